"""Run a script against a world, tick by tick (Horswill 2009, XI.C).

The interpreter is a stage of the tick (the *decide* stage: "script and RPC actions are
polled"): at the start of each tick it runs lines until one starts an action it must wait
for. A durative line waits for its action unless it ends with ``&``; ``world: wait-all`` joins
everything started so far. A failed action, or a command that cannot run, stops the script
with the reason and the line, unless the line starts with ``-``. Query values and subscribed
events go to ``output``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Literal

from twig.action import Action
from twig.errors import TwigError
from twig.physics import PhysicsWorld
from twig.script.session import Reply, Session
from twig.script.syntax import Call, format_call, read_script
from twig.script.world_commands import Clock

Status = Literal["running", "finished", "failed"]


class Interpreter:
    """Runs ``calls`` on ``world`` as it steps (in the tick's ``script`` stage).

    Parameters
    ----------
    world
        The world to drive.
    calls
        Parsed lines (:func:`~twig.script.syntax.parse_script`).
    output
        Receives one line of text per query value, event and reported failure.
    clock
        The real-time loop, for ``world: speed``, ``pause``, ``resume`` and ``step``.

    Attributes
    ----------
    status
        ``"running"`` until every line has run and every action ended (``"finished"``), or
        until a failure stopped it (``"failed"``, with ``reason``).
    ended_at
        Simulated time (s) at which it finished or failed.
    """

    def __init__(self, world: PhysicsWorld, calls: Sequence[Call],
                 output: Callable[[str], None] | None = None,
                 clock: Clock | None = None) -> None:
        self.world = world
        self.calls = list(calls)
        self.output = output or (lambda line: None)
        self.session = Session(world, self._reply, clock)
        self.status: Status = "running"
        self.reason = ""
        self.ended_at: float | None = None
        self.next = 0
        self._waiting: tuple[Call, Action] | None = None
        self._watched: list[tuple[Call, Action]] = []
        world.stages.add("script", self._tick)

    @property
    def done(self) -> bool:
        return self.status != "running"

    def _reply(self, reply: Reply) -> None:
        if reply.kind == "event":
            self._say(json.dumps({"event": reply.data}) if self.session.json
                      else f"event {json.dumps(reply.data)}")

    def _say(self, text: str) -> None:
        self.output(f"t={self.world.time:.3f} {text}" if not self.session.json else text)

    def _tick(self) -> None:
        if self.done:
            return
        if not self._check_actions():
            return
        while self._waiting is None and self.next < len(self.calls):
            call = self.calls[self.next]
            self.next += 1
            if not self._run(call):
                return
        if self.next >= len(self.calls) and self._waiting is None and not self._watched:
            self.status = "finished"
            self.ended_at = self.world.time
            self.world.stages.remove("script", self._tick)

    def _check_actions(self) -> bool:
        """Note ended actions; False if one failed and stopped the script."""
        still = []
        for call, action in self._watched:
            if action.status == "failed":
                if not self._failed(call, f"{action.agent}: {action.name} failed: "
                                          f"{action.reason}"):
                    return False
            elif not action.done:
                still.append((call, action))
        self._watched = still
        if self._waiting is not None and self._waiting[1].done:
            self._waiting = None
        return True

    def _run(self, call: Call) -> bool:
        """Run one line; False if it stopped the script."""
        try:
            outcome = self.session.execute(call)
        except TwigError as e:
            return self._failed(call, str(e))
        if outcome.command.kind == "query":
            value = json.dumps(outcome.result)
            self._say(json.dumps({"line": format_call(call), "value": outcome.result})
                      if self.session.json else f"{format_call(call)} -> {value}")
        elif isinstance(outcome.result, Action):
            action = outcome.result
            if action.status == "failed":
                return self._failed(call, f"{action.agent}: {action.name} failed: "
                                          f"{action.reason}")
            if not action.done:
                self._watched.append((call, action))
                if not call.parallel:
                    self._waiting = (call, action)
        return True

    def _failed(self, call: Call, reason: str) -> bool:
        message = f"{call.where.file}:{call.where.line}: {reason}"
        if call.keep_going:
            self._say(f"failed (going on): {message}")
            return True
        self.status = "failed"
        self.ended_at = self.world.time
        self.reason = message
        self._say(f"script stopped: {message}")
        self.world.stages.remove("script", self._tick)
        return False

    def run(self, max_seconds: float = 600.0) -> Status:
        """Step the world until the script finishes or fails, or ``max_seconds`` of simulated
        time pass (then it is still ``"running"``). Returns the status."""
        end = self.world.tick + round(max_seconds / self.world.dt)
        while not self.done and self.world.tick < end:
            self.world.step()
        return self.status


def run_script(world: PhysicsWorld, path: str, output: Callable[[str], None] | None = None,
               max_seconds: float = 600.0) -> Interpreter:
    """Parse the ``.twig`` file at ``path`` and run it on ``world`` (see :class:`Interpreter`)."""
    interpreter = Interpreter(world, read_script(path), output)
    interpreter.run(max_seconds)
    return interpreter

