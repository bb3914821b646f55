"""The MCP server's hold on a world: commands run on the world's own thread, between ticks.

A :class:`~twig.realtime.RealTime` loop owns the world (as under ``twig serve``); everything
the MCP handlers do to it goes through :meth:`WorldBridge.run`, which hands a function to that
thread and awaits its result, so the world is stepped from one place only. Tool calls become
JSON requests of the line protocol (docs/protocol.md) run by one
:class:`~twig.script.session.Session`, so a tool call and a JSON request with the same
arguments do the same thing and fail with the same message.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from twig.action import Action
from twig.errors import TwigError
from twig.events import Event
from twig.physics import PhysicsWorld
from twig.realtime import RealTime
from twig.script.session import Session
from twig.script.world_commands import EVENT_TYPES
from twig.server.protocol import parse_request

T = TypeVar("T")

RECENT_EVENTS = 200
"""Events the ``twig://world/events`` resource keeps (the most recent)."""


@dataclass
class Started:
    """A durative command an MCP call started: its number, tool, action and start tick."""

    number: int
    tool: str
    action: Action
    tick: int
    end_tick: int | None = None
    ended: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass(frozen=True)
class Ran:
    """What running one tool call on the world's thread gave.

    ``error`` (a message) if it could not run; otherwise ``kind`` (``durative``, ``query`` or
    ``instant``) and the query's ``value`` or the :class:`Started` action."""

    error: str | None = None
    kind: str = ""
    value: Any = None
    started: Started | None = None


class WorldBridge:
    """Runs MCP requests against ``world``, which ``clock`` steps on its own thread.

    Parameters
    ----------
    world
        The world; ``clock`` owns it once started.
    clock
        Its real-time loop (paused for a world stepped by the agent).
    """

    def __init__(self, world: PhysicsWorld, clock: RealTime) -> None:
        self.world = world
        self.clock = clock
        self.session = Session(world, clock=clock)
        self.events: deque[Event] = deque(maxlen=RECENT_EVENTS)
        self._numbers = itertools.count(1)
        self._running: dict[int, Started] = {}
        self._subscription = world.events.subscribe(self.events.append, EVENT_TYPES)

    async def run(self, fn: Callable[[], T]) -> T:
        """Run ``fn()`` on the world's thread between ticks and return its result."""
        return await asyncio.wrap_future(self.clock.submit(fn))

    async def call(self, tool: str, target: str, command: str, args: dict[str, Any]) -> Ran:
        """Run ``target: command`` with ``args`` (JSON values, by parameter name), as the JSON
        request ``{"target", "command", "args"}`` would run; a durative command's action is
        tracked until its end has been reported (:meth:`ended`)."""
        text = json.dumps({"target": target, "command": command, "args": args})
        request = parse_request(text.encode("utf-8"))
        if request is None or request.call is None:
            return Ran(error=request.error if request is not None else "empty request")
        loop = asyncio.get_running_loop()

        def run() -> Ran:
            try:
                outcome = self.session.execute(request.call)
            except TwigError as e:
                return Ran(error=str(e))
            except Exception as e:  # a bug: report it, keep the world and the caller going
                traceback.print_exc(file=sys.stderr)
                return Ran(error=f"internal error: {type(e).__name__}: {e}")
            kind = outcome.command.kind
            if kind != "durative":
                return Ran(kind=kind, value=outcome.result)
            started = Started(next(self._numbers), tool, outcome.result, self.world.tick)

            def end(_: Action) -> None:
                started.end_tick = self.world.tick
                loop.call_soon_threadsafe(started.ended.set)

            outcome.result.add_done_callback(end)
            return Ran(kind=kind, started=started)

        ran = await self.run(run)
        if ran.started is not None:
            self._running[ran.started.number] = ran.started
        return ran

    def report(self, started: Started) -> dict[str, Any]:
        """The outcome of a started command: ``status`` (``running``, ``succeeded``,
        ``failed`` or ``interrupted``), ``reason``, the simulated ``seconds`` it has taken;
        once it has ended, it is no longer tracked."""
        action = started.action
        status = "interrupted" if action.interrupted else action.status
        end = started.end_tick
        ticks = (self.world.tick if end is None else end) - started.tick
        if end is not None:
            self._running.pop(started.number, None)
        return {"action": started.number, "tool": started.tool, "command": action.name,
                "agent": action.agent, "status": status, "reason": action.reason,
                "seconds": round(ticks * self.world.dt, 6)}

    def ended(self) -> list[dict[str, Any]]:
        """Reports of tracked commands that ended since they were last reported (a call that
        returned while its action still ran learns of its end here)."""
        return [self.report(s) for s in list(self._running.values()) if s.end_tick is not None]

    def close(self) -> None:
        """Stop recording events (on the world's thread)."""
        self._subscription.cancel()
        self.session.close()
