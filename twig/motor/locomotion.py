"""Durative commands of the legs and the gaze: walk to, turn to, look at (Horswill VII.B-D).

Each is a :class:`~twig.motor.system.Task` that writes the character's control columns every
tick (so moving targets are followed) and ends its action when the body shows the result:
arrived and stopped, facing the direction with the feet settled, looking at the target.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from twig.action import Action
from twig.motor.state import STAND
from twig.motor.system import Task

if TYPE_CHECKING:
    from twig.motor.character import Character


class WalkTo(Task):
    """Walk until the hips are within ``distance`` of the target, then stop.

    Fails when the character makes no progress for ``patience`` seconds (blocked) or is not
    standing (limp, sitting).
    """

    def __init__(self, who: Character, action: Action, where: Callable[[], np.ndarray],
                 speed: float, distance: float, patience: float = 6.0) -> None:
        super().__init__(action, "legs")
        self.who = who
        self.where = where
        self.speed = speed
        self.distance = distance
        self.patience = patience
        self.best = math.inf
        self.since_best = 0.0

    def update(self) -> None:
        t, r = self.who._table, self.who._row
        t["goal"][r] = self.where()
        t["goal_on"][r] = True
        t["goal_speed"][r] = self.speed
        t["goal_stop"][r] = self.distance
        t["face_on"][r] = False

    def check(self) -> None:
        t, r = self.who._table, self.who._row
        if t["mode"][r] != STAND:
            self.cancel("the character is not standing")
            return
        if t["arrived"][r]:
            t["goal_on"][r] = False
            self.action.succeed()
            return
        gap = float(np.linalg.norm((self.where() - self.who.hips)[[0, 2]]))
        if gap < self.best - 0.05:
            self.best, self.since_best = gap, 0.0
        else:
            self.since_best += self.who.world.dt
            if self.since_best > self.patience:
                self.cancel(f"blocked: no progress for {self.patience:g} s, "
                            f"{gap:.2f} m from the goal")

    def cancel(self, reason: str) -> None:
        t, r = self.who._table, self.who._row
        t["goal_on"][r] = False
        t["walk"][r] = 0.0
        super().cancel(reason)


class TurnTo(Task):
    """Turn the pelvis to a heading (stepping as needed); succeeds when within 0.12 rad with
    both feet planted and the body still, fails after ``timeout`` seconds."""

    def __init__(self, who: Character, action: Action, heading: Callable[[], float],
                 timeout: float = 6.0) -> None:
        super().__init__(action, "legs")
        self.who = who
        self.heading = heading
        self.timeout = timeout
        self.elapsed = 0.0

    def update(self) -> None:
        t, r = self.who._table, self.who._row
        h = self.heading()
        t["face"][r] = (math.sin(h), 0.0, math.cos(h))
        t["face_on"][r] = True
        t["goal_on"][r] = False
        t["walk"][r] = 0.0

    def check(self) -> None:
        t, r = self.who._table, self.who._row
        self.elapsed += self.who.world.dt
        settled = not t["swing"][r].any() and np.linalg.norm(t["walk_cmd"][r]) < 0.05
        if abs(t["yaw_error"][r]) < 0.12 and settled:
            self.action.succeed()
        elif self.elapsed > self.timeout:
            self.cancel(f"still {math.degrees(t['yaw_error'][r]):.0f} degrees off after "
                        f"{self.timeout:g} s")

    def cancel(self, reason: str) -> None:
        """Keep the heading reached so far (the legs stop turning)."""
        self.action.fail(reason)


class LookAt(Task):
    """Keep the gaze on a target (following it) until replaced; the action succeeds at once
    (the face turns instantly, VII.C) and the shoulders follow within the 90 degree limit."""

    def __init__(self, who: Character, action: Action, where: Callable[[], np.ndarray]) -> None:
        super().__init__(action, "gaze")
        self.who = who
        self.where = where
        self.persist = True

    def update(self) -> None:
        t, r = self.who._table, self.who._row
        t["gaze"][r] = self.where()
        t["gaze_on"][r] = True

    def check(self) -> None:
        self.action.succeed()

    def cancel(self, reason: str) -> None:
        self.who._table["gaze_on"][self.who._row] = False
        super().cancel(reason)
