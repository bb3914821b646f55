"""Per-tick work of the physics-level durative commands (wait, move-node, push).

Each running action may apply something at the start of every tick (a force) and is checked
at the end of every tick; the check ends it (succeeded, or failed with a reason). This is a
loop over running *actions*, a handful, never over nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar
from weakref import WeakKeyDictionary

from twig.action import Action
from twig.errors import TwigError

Check = Callable[[], "bool | str"]
"""Returns True when the action succeeded, a reason string when it failed, else False."""


@dataclass
class _Watch:
    action: Action
    check: Check
    each_tick: Callable[[], None] | None


class Watches:
    """The running watched actions of one world (installed in its tick hooks once)."""

    _of: ClassVar[WeakKeyDictionary[Any, Watches]] = WeakKeyDictionary()

    def __init__(self, world: Any) -> None:
        self._watches: list[_Watch] = []
        world.stages.add("commands", self._start)
        world.stages.add("record", self._end)

    @classmethod
    def of(cls, world: Any) -> Watches:
        """The world's watches (made and hooked in on first use)."""
        found = cls._of.get(world)
        if found is None or found._start not in world.stages:  # a restore may have unhooked it
            found = cls._of[world] = cls(world)
        return found

    def add(self, action: Action, check: Check,
            each_tick: Callable[[], None] | None = None) -> Action:
        """Check ``action`` after every tick until it ends; call ``each_tick`` before each."""
        if not action.done:
            self._watches.append(_Watch(action, check, each_tick))
        return action

    def __len__(self) -> int:
        return len(self._watches)

    def _start(self) -> None:
        for w in self._watches:
            if w.each_tick is not None and not w.action.done:
                try:
                    w.each_tick()
                except TwigError as e:
                    w.action.fail(str(e))

    def _end(self) -> None:
        if not self._watches:
            return
        running = []
        for w in self._watches:
            if not w.action.done:
                try:
                    outcome = w.check()
                except TwigError as e:  # its body was removed, its node renamed...
                    outcome = str(e)
                if outcome is True:
                    w.action.succeed()
                elif isinstance(outcome, str):
                    w.action.fail(outcome)
            if not w.action.done:
                running.append(w)
        self._watches = running
