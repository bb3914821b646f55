"""The tick's stages, in one fixed order, and the per-tick profile of their cost.

``World.step`` runs, for each tick (docs/architecture.md, "The tick"):

========== ====================================================================================
stage      what runs there
========== ====================================================================================
sense      behaviour: object positions, attachment, attention and focus (Horswill IX-XII)
decide     behaviour: every agent's levels, the approach field (eq. 6), gaze shifts
script     script interpreters: lines run until one must wait (Horswill XI.C)
commands   physics-level durative commands' per-tick work (push, move-node); user hooks
act        motor control: tasks' targets, one motor kernel call, breathing, tasks' checks
hybrid     hybrid supervisors: who controls each character (DANCE 2.1); the controller in
           charge acts after the motor kernel, overriding it for the characters it holds
physics    one physics kernel call (broad phase, Verlet, projection, friction, sleep), pain
record     checks of physics-level commands, recordings, metrics, clip capture
========== ====================================================================================

Systems register a callable into a stage by name (:meth:`Stages.add`), never into a list whose
order depends on when they were made; within one stage, callables run in the order they were
added (several recordings, several scripts). Each stage's wall time is measured into
:class:`Profile` (Box2D's ``b2Profile``): ``world.profile.last["act"]`` is the motor stage of the
last tick in seconds, ``world.profile.total`` the sums since the world was made or
:meth:`Profile.reset`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from twig.errors import PhysicsError

STAGES = ("sense", "decide", "script", "commands", "act", "hybrid", "physics", "record")
"""The tick's stages in the order they run; ``physics`` is the world's own kernel call."""
BEFORE_PHYSICS = STAGES[:STAGES.index("physics")]
AFTER_PHYSICS = STAGES[STAGES.index("physics") + 1:]

Hook = Callable[[], None]


class Profile:
    """Seconds spent in each stage: ``last`` (the last tick), ``total`` (since made or
    :meth:`reset`) and ``ticks`` (ticks counted in ``total``). ``step`` is the whole tick."""

    def __init__(self) -> None:
        self.last: dict[str, float] = dict.fromkeys((*STAGES, "step"), 0.0)
        self.total: dict[str, float] = dict(self.last)
        self.ticks = 0

    def reset(self) -> None:
        """Zero ``total`` and ``ticks`` (``last`` keeps the last tick)."""
        self.total = dict.fromkeys(self.total, 0.0)
        self.ticks = 0

    def mean_ms(self, stage: str) -> float:
        """Mean milliseconds per tick of ``stage`` over ``total`` (0 before any tick)."""
        return 1e3 * self.total[stage] / self.ticks if self.ticks else 0.0

    def __repr__(self) -> str:
        parts = ", ".join(f"{k} {1e3 * v:.3f}" for k, v in self.last.items() if v)
        return f"<Profile last tick (ms): {parts}>"


class Stages:
    """The callables registered in each stage of one world's tick (``world.stages``)."""

    def __init__(self) -> None:
        self.hooks: dict[str, list[Hook]] = {name: [] for name in STAGES if name != "physics"}

    def add(self, stage: str, hook: Hook) -> Hook:
        """Run ``hook()`` in ``stage`` every tick (after the stage's earlier hooks)."""
        self._list(stage).append(hook)
        return hook

    def remove(self, stage: str, hook: Hook) -> None:
        """Stop running ``hook`` in ``stage`` (nothing if it is not there)."""
        hooks = self._list(stage)
        if hook in hooks:
            hooks.remove(hook)

    def __contains__(self, hook: Hook) -> bool:
        return any(hook in hooks for hooks in self.hooks.values())

    def _list(self, stage: str) -> list[Hook]:
        if stage not in self.hooks:
            raise PhysicsError(f"unknown tick stage {stage!r}; stages: "
                               f"{', '.join(s for s in STAGES if s != 'physics')}")
        return self.hooks[stage]

    def run(self, names: tuple[str, ...], profile: Profile) -> None:
        """Run the hooks of ``names`` in order, timing each non-empty stage into ``profile``."""
        clock = time.perf_counter
        for name in names:
            hooks = self.hooks[name]
            if not hooks:
                profile.last[name] = 0.0
                continue
            t0 = clock()
            for hook in list(hooks):
                hook()
            spent = clock() - t0
            profile.last[name] = spent
            profile.total[name] += spent
