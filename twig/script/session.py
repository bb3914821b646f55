"""One caller's connection to a world: it runs calls, tracks their actions, holds the caller's
event subscriptions, and reports every outcome as :class:`Reply` records.

The interpreter (a script) and the server (one session per client) both drive a world through
sessions, on the thread that owns the world.
"""

from __future__ import annotations

import difflib
import sys
import traceback
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Literal

from twig import motor  # noqa: F401  (registers the characters' commands)
from twig.action import Action
from twig.commands import Command, commands_of, resolve_object
from twig.errors import ScriptError, TwigError, describe
from twig.events import Event, Subscription
from twig.physics import PhysicsWorld
from twig.script import body_commands  # noqa: F401  (registers the body commands)
from twig.script.binding import bind
from twig.script.syntax import Call
from twig.script.world_commands import Clock, FreeClock, WorldTarget

ReplyKind = Literal["ok", "done", "error", "value", "event"]


@dataclass(frozen=True)
class Reply:
    """An outcome sent to a caller.

    ``ok``: a durative command started; ``done``: it (or an instant command) finished;
    ``error``: a command failed (``data`` is the message); ``value``: a query's JSON value;
    ``event``: a subscribed event (``id`` None). Every request gets exactly one of ``done``,
    ``error`` or ``value``, and ``ok`` before ``done``/``error`` if it was durative.
    """

    kind: ReplyKind
    id: str | None
    data: Any = None


@dataclass(frozen=True)
class Outcome:
    """What running a call gave: the command and its result (an Action, a value or None)."""

    command: Command
    result: Any


class Session:
    """Runs calls against ``world`` for one caller.

    Parameters
    ----------
    world
        The world (every method must run on the thread that owns it).
    send
        Receives every :class:`Reply` (on the world's thread), in order.
    clock
        The real-time loop (speed, pause, single step); default a
        :class:`~twig.script.world_commands.FreeClock` (a world stepped as fast as it can).
    """

    def __init__(self, world: PhysicsWorld, send: Callable[[Reply], None] | None = None,
                 clock: Clock | None = None) -> None:
        self.world = world
        self.send = send or (lambda reply: None)
        self.clock: Clock = clock or FreeClock()
        self.json = False
        self.actions: list[Action] = []
        self._prune_at = 16
        self.target = WorldTarget(world, self)
        self._events: set[str] = set()
        self._subscription: Subscription | None = None
        self.on_internal_error: Callable[[str], None] | None = None
        """Told (with the error reply's message) when a command fails with a bug."""

    # ------------------------------------------------------------------ running calls
    def execute(self, call: Call) -> Outcome:
        """Run ``call`` and return its outcome; raises TwigError (nothing changed) on error.

        A command is a transaction: one that fails half-way (a spawn whose builder rejects a
        field after adding nodes) is rolled back to the whole world as it was before it
        (:meth:`twig.World.snapshot`), so the future is the one it would have had without it.
        """
        targets = [self.target] if call.target == "world" else self._targets(call.target)
        for obj in targets:
            cmd = commands_of(type(obj)).get(call.method)
            if cmd is not None:
                break
        else:
            raise ScriptError(self._unknown(call, targets))
        try:
            args, kwargs = bind(cmd, call, self.world)
        except ScriptError as e:
            raise ScriptError(f"{call.target}: {call.method}: {e}") from None
        if cmd.kind == "query":
            result = cmd.function(obj, *args, **kwargs)
        else:
            saved = self.world.snapshot()
            try:
                result = cmd.function(obj, *args, **kwargs)
            except TwigError:
                self.world.restore(saved)
                raise
        if isinstance(result, Action):
            self.actions.append(result)
            if len(self.actions) >= self._prune_at:  # amortised: forget ended actions
                self.actions = [a for a in self.actions if not a.done]
                self._prune_at = 2 * len(self.actions) + 16
        return Outcome(cmd, result)

    def run(self, call: Call, request_id: str | None = None) -> None:
        """Run ``call`` and send its replies: ``ok`` then ``done``/``error`` for an action
        (when it ends), ``value`` for a query, ``done`` for an instant command, ``error`` for
        a failure. Never raises for bad input."""
        try:
            outcome = self.execute(call)
        except TwigError as e:
            self.send(Reply("error", request_id, str(e)))
            return
        except Exception as e:  # a bug: report it, keep the world and the caller going
            traceback.print_exc(file=sys.stderr)
            message = f"{call.target}: {call.method}: {describe(e)}"
            self.send(Reply("error", request_id, message))
            if self.on_internal_error is not None:
                self.on_internal_error(message)
            return
        kind = outcome.command.kind
        if kind == "query":
            self.send(Reply("value", request_id, outcome.result))
        elif kind == "instant":
            self.send(Reply("done", request_id))
        else:
            self.send(Reply("ok", request_id))
            outcome.result.add_done_callback(lambda a: self.send(
                Reply("done", request_id) if a.succeeded
                else Reply("error", request_id, f"{a.agent}: {a.name} failed: {a.reason}")))

    def _targets(self, name: str) -> list[Any]:
        try:
            return resolve_object(self.world, name)
        except TwigError as e:
            raise ScriptError(f"{name}: {e}") from None

    def _unknown(self, call: Call, targets: list[Any]) -> str:
        known = sorted({n for obj in targets for n in commands_of(type(obj))})
        close = difflib.get_close_matches(call.method, known, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        kind = ("world" if call.target == "world"
                else f"{call.target} ({self.world.body(call.target).type})")
        return f"{call.target}: unknown command {call.method!r}{hint}; commands of {kind}: " \
               f"{', '.join(known)}"

    # ------------------------------------------------------------------ events
    def subscribe(self, types: Collection[str]) -> None:
        """Also receive events of ``types`` (as ``event`` replies)."""
        self._resubscribe(self._events | set(types))

    def unsubscribe(self, types: Collection[str]) -> None:
        """Stop receiving events of ``types``."""
        self._resubscribe(self._events - set(types))

    def _resubscribe(self, types: set[str]) -> None:
        if self._subscription is not None:
            self._subscription.cancel()
            self._subscription = None
        self._events = types
        if types:
            self._subscription = self.world.events.subscribe(self._event, types)

    def _event(self, event: Event) -> None:
        self.send(Reply("event", None, event))

    def close(self) -> None:
        """Stop all deliveries (the caller left); its running actions go on."""
        self._resubscribe(set())
        self.send = lambda reply: None
