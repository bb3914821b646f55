"""The goals of the safe-home-base demonstration (Horswill 2009, section XII and Fig. 8):
``play-ball``, ``hug-parent`` and ``fight``, three uses of approach that react to the focus of
attention and to the child's anxiety.

The child runs after the ball because it is highly valenced; away from the parent its anxiety
grows (:mod:`twig.behavior.attachment`), the parent's monitoring priority with it, so the
child stops to look back more and more often; when the parent becomes the focus and the
anxiety outweighs the ball, ``hug-parent`` wins; the hug soothes, attention returns to the
ball, and the cycle repeats. A child whose rival keeps contesting its ball loses its temper
and grapples the rival, which hurts (pain withdrawal).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from twig.behavior.selection import Behavior

if TYPE_CHECKING:
    from twig.behavior.agent import Agent

OFF_FOCUS = 0.7
"""A goal's activation is scaled by this while its object is not the focus of attention."""


class PlayBall(Behavior):
    """Chase the ball and kick it toward a random spot of the play area.

    Parameters
    ----------
    ball
        Name of the ball.
    value
        Activation when the ball is the focus and the child is calm (scaled by
        ``1 - anxiety``).
    area
        Radius of the play area about ``centre`` where kicks aim, m.
    centre
        (x, z) of the play area, m.
    speed
        Running speed, m/s.
    """

    name = "play-ball"

    def __init__(self, ball: str = "ball", value: float = 0.8, area: float = 5.0,
                 centre: tuple[float, float] = (0.0, 0.0), speed: float = 1.2) -> None:
        self.ball = ball
        self.value = float(value)
        self.area = float(area)
        self.centre = (float(centre[0]), float(centre[1]))
        self.speed = float(speed)
        self.aim: np.ndarray | None = None
        self.aimed_from = np.zeros(3)

    def interests(self) -> dict[str, tuple[float, float, float]]:
        return {self.ball: (0.8, 1.0, 0.1)}

    def activation(self, agent: Agent) -> float:
        focus = 1.0 if agent.focus == self.ball else OFF_FOCUS
        return self.value * (1.0 - agent.anxiety) * focus

    def update(self, agent: Agent) -> None:
        ball = agent.position_of(self.ball)
        if ball is None:
            return
        if self.aim is None or math.hypot(ball[0] - self.aimed_from[0],
                                          ball[2] - self.aimed_from[2]) > 1.0:
            self.aim = self._new_aim(agent, ball)
            self.aimed_from = ball
            dx, dz = ball[0] - self.aim[0], ball[2] - self.aim[2]
            n = max(math.hypot(dx, dz), 1e-9)
            self.back = (dx / n, 0.0, dz / n)
            self.kick = {"toward": tuple(self.aim)}
        looking = agent.looking_at
        pause = looking not in (None, self.ball) and agent.anxiety > 0.2
        agent.approach(self.ball, self.activation(agent), distance=0.3, direction=self.back,
                       contact="kick", within=0.15, speed=self.speed, options=self.kick,
                       pause=pause)

    def _new_aim(self, agent: Agent, ball: np.ndarray) -> np.ndarray:
        """A random point of the play area at least 2 m from the ball (world.rng)."""
        rng = agent.system.world.rng
        for _ in range(8):
            r = self.area * math.sqrt(rng.random())
            a = 2 * math.pi * rng.random()
            aim = np.array([self.centre[0] + r * math.sin(a), 0.0,
                            self.centre[1] + r * math.cos(a)])
            if np.linalg.norm((aim - ball)[[0, 2]]) > 2.0:
                return aim
        return np.array([self.centre[0], 0.0, self.centre[1]])


class HugParent(Behavior):
    """Run to the parent and hug it (attachment): activation is the child's anxiety once the
    parent is the focus of attention (the child looks back first), and at least ``hold``
    while the hug lasts.

    Parameters
    ----------
    parent
        Name of the attachment figure.
    value
        Activation per unit of anxiety.
    speed
        Running speed, m/s.
    seconds
        How long a hug lasts, s.
    hold
        Activation while hugging.
    """

    name = "hug-parent"

    def __init__(self, parent: str = "parent", value: float = 1.0, speed: float = 1.1,
                 seconds: float = 3.0, hold: float = 0.9) -> None:
        self.parent = parent
        self.value = float(value)
        self.speed = float(speed)
        self.seconds = float(seconds)
        self.hold = float(hold)

    def interests(self) -> dict[str, tuple[float, float, float]]:
        return {self.parent: (0.2, 0.8, 0.25)}

    def activation(self, agent: Agent) -> float:
        if agent.contact_target() == self.parent:
            return max(self.value * agent.anxiety, self.hold)  # a hug, once begun, ends
        return self.value * agent.anxiety if agent.focus == self.parent else 0.0

    def update(self, agent: Agent) -> None:
        agent.approach(self.parent, self.activation(agent), distance=0.45, contact="hug",
                       within=0.25, speed=self.speed, options={"seconds": self.seconds})


class Fight(Behavior):
    """Grapple a rival who contests the ball: the temper rises while both are near the ball
    and falls otherwise; it is the activation, and a grapple spends it.

    Parameters
    ----------
    rival
        Name of the other child.
    ball
        Name of the contested ball.
    temper
        Rise of the temper per second of contest.
    near
        Both within this of the ball (and of each other) is a contest, m.
    """

    name = "fight"

    def __init__(self, rival: str = "kid", ball: str = "ball", temper: float = 0.12,
                 near: float = 1.5) -> None:
        self.rival = rival
        self.ball = ball
        self.temper = float(temper)
        self.near = float(near)
        self.anger = 0.0
        self.last = -math.inf
        self.started = math.inf
        self.before = None

    def interests(self) -> dict[str, tuple[float, float, float]]:
        return {self.rival: (0.3, -0.5, 0.3)}

    def activation(self, agent: Agent) -> float:
        now = agent.now
        dt = min(now - self.last, 0.1) if math.isfinite(self.last) else 0.0
        self.last = now
        contest = (agent.distance_to(self.ball) < self.near
                   and agent.distance_to(self.rival) < self.near)
        rate = self.temper if contest else -0.5 * self.temper
        self.anger = min(1.0, max(0.0, self.anger + rate * dt))
        return self.anger

    def initialise(self, agent: Agent) -> None:
        self.started = agent.now
        self.before = agent.find("approach").last_contact

    def update(self, agent: Agent) -> None:
        done = agent.find("approach").last_contact
        if done is not self.before or agent.now - self.started > 6.0:
            self.anger = 0.0  # spent on a grapple (or gave up)
        agent.approach(self.rival, self.anger, distance=0.5, contact="grapple", within=0.3,
                       speed=1.4)

    def terminate(self, agent: Agent) -> None:
        self.started = math.inf
