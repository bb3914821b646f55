"""Durative commands of the legs: walk to, turn to, kick, sit, stand up (Horswill VII.B-D).

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
from twig.bodies.frames import cross3
from twig.motor.gait import STAND_FRACTION
from twig.motor.state import SIT, STAND
from twig.motor.system import Task

if TYPE_CHECKING:
    from twig.motor.character import Character
    from twig.physics import Body


RISE_SPEED = 0.9
"""Peak speed of the hips standing up, m/s."""
RISE_MIN = 0.8
"""Shortest stand-up, seconds (from a high seat)."""


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
        t, r = self.who.motor_table, self.who.motor_row
        t["goal"][r] = self.where()
        t["goal_on"][r] = True
        t["goal_speed"][r] = self.speed
        t["goal_stop"][r] = self.distance
        t["face_on"][r] = False

    def check(self) -> None:
        t, r = self.who.motor_table, self.who.motor_row
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
        t, r = self.who.motor_table, self.who.motor_row
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
        t, r = self.who.motor_table, self.who.motor_row
        h = self.heading()
        t["face"][r] = (math.sin(h), 0.0, math.cos(h))
        t["face_on"][r] = True
        t["goal_on"][r] = False
        t["walk"][r] = 0.0

    def check(self) -> None:
        t, r = self.who.motor_table, self.who.motor_row
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


class Kick(Task):
    """Walk up behind the ball (on the line from the kicker through it) and swing the nearer
    foot through it at speed; succeeds when the foot is back on the ground."""

    def __init__(self, who: Character, action: Action, ball: Body, toward: np.ndarray | None,
                 timeout: float = 10.0) -> None:
        super().__init__(action, "legs")
        self.who = who
        self.ball = ball
        self.toward = toward
        self.timeout = timeout
        self.elapsed = 0.0
        self.phase = "approach"
        self.foot = 0

    def _line(self) -> tuple[np.ndarray, np.ndarray]:
        ball = self.ball.centroid
        aim = (self.toward - ball) if self.toward is not None else (ball - self.who.hips)
        aim[1] = 0.0
        return ball, aim / max(float(np.linalg.norm(aim)), 1e-9)

    def update(self) -> None:
        t, r = self.who.motor_table, self.who.motor_row
        if self.phase != "approach":
            return
        ball, aim = self._line()
        radius = float(self.who.world.nodes["radius"][self.ball.nodes.start])
        stand = ball - aim * (radius + 0.3 * self.who.scale)
        t["goal"][r] = stand
        t["goal_on"][r] = True
        t["goal_speed"][r] = 1.3
        t["goal_stop"][r] = 0.12
        t["face"][r] = aim
        t["face_on"][r] = bool(np.linalg.norm((stand - self.who.hips)[[0, 2]]) < 0.4)

    def check(self) -> None:
        t, r = self.who.motor_table, self.who.motor_row
        self.elapsed += self.who.world.dt
        if self.phase == "approach" and t["arrived"][r] and not t["swing"][r].any():
            ball, aim = self._line()
            feet = [self.who.node_position(f) for f in ("l_foot", "r_foot")]
            k = int(np.argmin([np.linalg.norm((f - ball)[[0, 2]]) for f in feet]))
            t["goal_on"][r] = False
            t["swing"][r, k] = 1
            t["kick"][r, k] = 1
            t["swing_t"][r, k] = 0.0
            t["swing_T"][r, k] = 0.3 * np.sqrt(self.who.scale)
            t["swing_from"][r, k] = feet[k]
            t["swing_to"][r, k] = ball + aim * 0.25 * self.who.scale
            t["swing_to"][r, k, 1] = t["foot_r"][r]
            t["steps"][r] += 1
            self.phase, self.foot = "kick", k
        elif self.phase == "kick" and not t["swing"][r, self.foot]:
            t["face_on"][r] = False
            self.action.succeed()
        elif self.elapsed > self.timeout:
            self.cancel(f"could not get to {self.ball.name} in {self.timeout:g} s")

    def cancel(self, reason: str) -> None:
        t, r = self.who.motor_table, self.who.motor_row
        t["goal_on"][r] = False
        t["face_on"][r] = False
        super().cancel(reason)


class Sit(Task):
    """Sit on a chair's ``seat`` chart (walking to its front and turning round first) or on
    the ground where the character stands: the hips go down to the seat, the feet stay
    planted, the torso stays upright (Horswill VII.B)."""

    def __init__(self, who: Character, action: Action, chair: Body | None,
                 timeout: float = 12.0) -> None:
        super().__init__(action, "legs")
        self.who = who
        self.chair = chair
        self.timeout = timeout
        self.elapsed = 0.0
        self.settled = 0.0
        self.phase = "approach" if chair is not None else "lower"
        self.ground = None
        if chair is None:
            t, r = who.motor_table, who.motor_row
            back = -np.array([math.sin(who.heading), 0.0, math.cos(who.heading)])
            self.ground = who.hips + back * 0.35 * t["leg"][r]
            self.ground[1] = 0.12 * who.scale

    def _seat(self) -> tuple[np.ndarray, np.ndarray]:
        from twig.bodies.charts import chart

        seat = chart(self.chair, "seat")
        front = seat.axes[2].copy()
        front[1] = 0.0
        return seat.origin, front / max(float(np.linalg.norm(front)), 1e-9)

    def update(self) -> None:
        t, r = self.who.motor_table, self.who.motor_row
        if self.phase == "approach":
            origin, front = self._seat()
            goal = origin + front * (0.45 * t["leg"][r] + 0.1)
            rel = self.who.hips - origin
            if rel @ front < -0.15:
                # Behind the chair: go round its side first, not through it.
                side = cross3(np.array((0.0, 1.0, 0.0)), front)
                side *= 1.0 if rel @ side >= 0.0 else -1.0
                goal += side * (0.45 * t["leg"][r] + 0.35)
            t["goal"][r] = goal
            t["goal_on"][r] = True
            t["goal_speed"][r] = 1.0
            t["goal_stop"][r] = 0.08
        elif self.phase == "turn":
            _, front = self._seat()
            t["face"][r] = front
            t["face_on"][r] = True
        elif self.phase == "lower":
            if self.chair is not None:
                origin, _ = self._seat()
                target = origin + np.array([0.0, 0.1 * self.who.scale, 0.0])
            else:
                target = self.ground
            t["seat"][r] = target
            t["mode"][r] = SIT

    def check(self) -> None:
        t, r = self.who.motor_table, self.who.motor_row
        dt = self.who.world.dt
        self.elapsed += dt
        if self.phase == "approach" and t["arrived"][r]:
            origin, front = self._seat()
            if (self.who.hips - origin) @ front > 0.1:
                t["goal_on"][r] = False
                self.phase = "turn"
        elif self.phase == "turn" and abs(t["yaw_error"][r]) < 0.15 and \
                not t["swing"][r].any():
            self.phase = "lower"
        elif self.phase == "lower" and abs(self.who.hips[1] - t["seat"][r, 1]) < 0.08:
            self.settled += dt
            if self.settled > 0.3:
                self.action.succeed()
        if not self.action.done and self.elapsed > self.timeout:
            self.cancel(f"could not sit down within {self.timeout:g} s")

    def cancel(self, reason: str) -> None:
        t, r = self.who.motor_table, self.who.motor_row
        t["goal_on"][r] = False
        if t["mode"][r] == SIT and not self.action.done:
            t["mode"][r] = STAND
        super().cancel(reason)


class StandUp(Task):
    """Rise from sitting: the seat target the posture loop holds the hips at rises to
    standing height over the middle of the feet along a minimum-jerk path, no faster than
    :data:`RISE_SPEED` at its peak (a person takes a second or two; switching straight to
    the standing height would pop the pelvis up at 2-3 m/s), then posture is back on
    standing. Succeeds once upright."""

    def __init__(self, who: Character, action: Action, timeout: float = 5.0) -> None:
        super().__init__(action, "legs")
        self.who = who
        self.timeout = timeout
        self.elapsed = 0.0
        t, r = who.motor_table, who.motor_row
        t["face_on"][r] = False
        self.start = self.goal = who.hips
        self.rise = 0.0
        if t["mode"][r] == SIT:
            feet = 0.5 * (who.node_position("l_foot") + who.node_position("r_foot"))
            self.goal = np.array([feet[0], t["foot_r"][r] + STAND_FRACTION * t["leg"][r],
                                  feet[2]])
            # A minimum-jerk path peaks at 1.875 times its mean speed.
            self.rise = max(RISE_MIN, 1.875 * float(np.linalg.norm(self.goal - self.start))
                            / RISE_SPEED)
        else:
            t["mode"][r] = STAND

    def update(self) -> None:
        t, r = self.who.motor_table, self.who.motor_row
        if t["mode"][r] != SIT:
            return
        if self.elapsed >= self.rise:
            t["mode"][r] = STAND
            return
        u = self.elapsed / self.rise
        s = u * u * u * (10.0 + u * (-15.0 + 6.0 * u))
        t["seat"][r] = self.start + s * (self.goal - self.start)

    def check(self) -> None:
        self.elapsed += self.who.world.dt
        t, r = self.who.motor_table, self.who.motor_row
        standing = t["foot_r"][r] + 0.9 * t["leg"][r]
        if t["mode"][r] == STAND and self.who.upright and self.who.hips[1] > standing:
            self.action.succeed()
        elif self.elapsed > self.timeout + self.rise:
            self.cancel(f"could not stand up within {self.timeout + self.rise:.2g} s")

    def cancel(self, reason: str) -> None:
        """Give up where it got to, standing posture on."""
        t, r = self.who.motor_table, self.who.motor_row
        if t["mode"][r] == SIT:
            t["mode"][r] = STAND
        super().cancel(reason)
