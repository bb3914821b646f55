"""Durative commands and their outcome: :class:`Action`.

Every command that takes time (walk to, reach, grab, hug, sit, gesture, wait...) returns an
Action at once; the controller that carries it out marks it succeeded or failed (with a reason)
on a later tick. Scripts and remote clients wait on actions; the world's event stream reports
each one's start and end (``{"type": "action", "agent", "name", "status": "start|done|failed"}``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from twig.events import EventBus

Status = Literal["running", "succeeded", "failed"]


class Action:
    """The outcome of one durative command.

    Parameters
    ----------
    name
        The command, e.g. ``"walk-to"``.
    agent
        Name of the character (or ``"world"``) carrying it out.
    events
        Where to report start and end (``world.events``), or None.

    Attributes
    ----------
    status
        ``"running"``, then ``"succeeded"`` or ``"failed"``, exactly once.
    reason
        Why it failed (or how it ended), for people: ``"no object called 'ball2'"``.
    interrupted
        Whether it failed because something else stopped it (another command took its
        limbs, the character went limp, let go or stopped) rather than by its own failure;
        set by whoever stops it.
    """

    def __init__(self, name: str, agent: str = "world", events: EventBus | None = None) -> None:
        self.name = name
        self.agent = agent
        self.status: Status = "running"
        self.reason = ""
        self.interrupted = False
        self._events = events
        self._callbacks: list[Callable[[Action], None]] = []
        if events is not None:
            events.emit("action", agent=agent, name=name, status="start")

    @property
    def done(self) -> bool:
        """True once the action has succeeded or failed."""
        return self.status != "running"

    @property
    def succeeded(self) -> bool:
        return self.status == "succeeded"

    def succeed(self, reason: str = "") -> None:
        """Mark the action finished successfully (no effect if it already ended)."""
        self._end("succeeded", reason)

    def fail(self, reason: str) -> None:
        """Mark the action failed with a reason a user can act on (no effect if it ended)."""
        self._end("failed", reason)

    def add_done_callback(self, callback: Callable[[Action], None]) -> None:
        """Call ``callback(action)`` when it ends (at once if it already has)."""
        if self.done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def _end(self, status: Status, reason: str) -> None:
        if self.done:
            return
        self.status = status
        self.reason = reason
        if self._events is not None:
            fields = {"reason": reason} if status == "failed" else {}
            self._events.emit("action", agent=self.agent, name=self.name,
                              status="done" if status == "succeeded" else "failed", **fields)
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    @classmethod
    def failed(cls, name: str, agent: str, reason: str,
               events: EventBus | None = None) -> Action:
        """An action that failed at once (bad input: a missing object, no chair...)."""
        action = cls(name, agent, events)
        action.fail(reason)
        return action

    def __repr__(self) -> str:
        why = f" ({self.reason})" if self.reason else ""
        return f"<Action {self.agent}: {self.name} {self.status}{why}>"
