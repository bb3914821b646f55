"""The standard motor-level behaviours (Horswill 2008 "High-level control", 2009 IX): freeze,
pain withdrawal, approach, sit down and stand up. Goals above them (play-ball, hug-parent,
fight: :mod:`twig.behavior.playground`) command approach through ``agent.approach(...)``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from twig.behavior.selection import Behavior

if TYPE_CHECKING:
    from twig.action import Action
    from twig.behavior.agent import Agent

STILL = 0.05
"""Walk vectors slower than this (m/s) become a stop."""
RECOMMAND = 0.02
"""A new walk vector is sent only when it differs from the commanded one by this (m/s)."""
KICK_NEAR = 0.6
"""Farther than its stop distance by up to this (m), a child that has not got closer for
``KICK_WAIT`` seconds starts its kick from there: the kick walks the last steps itself. The
field's repulsion from a character standing by the ball (a ball at the parent's feet) kept
two children circling it for 80 s."""
KICK_WAIT = 3.0
"""Seconds near a ball without reaching it before the kick starts from there (s)."""


def walk(agent: Agent, velocity: np.ndarray) -> None:
    """Command ``velocity`` (m/s) unless the character already walks at it."""
    x, z = float(velocity[0]), float(velocity[2])
    if math.hypot(x, z) < STILL:
        x = z = 0.0
    now = agent.walk_command
    if max(abs(now[0] - x), abs(now[2] - z)) > RECOMMAND or (
            x == z == 0.0 and (now[0] != 0.0 or now[2] != 0.0)):
        agent.character.walk((x, 0.0, z))


class Freeze(Behavior):
    """The default: stand still (a low constant activation)."""

    name = "freeze"
    level = "motor"

    def __init__(self, activation: float = 0.1) -> None:
        self.value = float(activation)

    def activation(self, agent: Agent) -> float:
        return self.value

    def initialise(self, agent: Agent) -> None:
        agent.character.stop()


class PainWithdrawal(Behavior):
    """A fast, open-loop retreat from the source of pain (a reflex: it pre-empts the
    refractory period).

    Parameters
    ----------
    seconds
        How long the retreat lasts after the last painful impact, s.
    speed
        Retreat speed, m/s.
    """

    name = "pain-withdrawal"
    level = "motor"
    reflex = True

    def __init__(self, seconds: float = 0.8, speed: float = 1.4) -> None:
        self.seconds = float(seconds)
        self.speed = float(speed)
        self.heading = np.zeros(3)
        self.since = -math.inf

    def activation(self, agent: Agent) -> float:
        return 2.0 if agent.since_pain() < self.seconds else 0.0

    def initialise(self, agent: Agent) -> None:
        self.since = -math.inf

    def update(self, agent: Agent) -> None:
        if agent.pain_time > self.since:  # a new hit: retreat from its source
            self.since = agent.pain_time
            source = agent.position_of(agent.pain_source)
            away = agent.position - source if source is not None else np.zeros(3)
            away[1] = 0.0
            if np.linalg.norm(away) < 1e-6:
                h = agent.character.heading
                away = -np.array([math.sin(h), 0.0, math.cos(h)])
            self.heading = away / np.linalg.norm(away)
        walk(agent, self.speed * self.heading)

    def terminate(self, agent: Agent) -> None:
        agent.character.stop()


class Approach(Behavior):
    """Steer to the target a goal requests (``agent.approach(...)``) by the approach field
    (eq. 6), then forward the contact setting (reach, hug, grapple; or kick) to the motor
    system. Its activation is the requesting goal's.

    Parameters
    ----------
    retry
        Seconds to wait after a contact command ended before starting another.
    """

    name = "approach"
    level = "motor"

    def __init__(self, retry: float = 1.0) -> None:
        self.retry = float(retry)
        self.contact: Action | None = None
        self.contact_key: tuple[str, str] | None = None
        self.last_contact: Action | None = None
        self.retry_at = -math.inf
        self.near_since = math.inf

    def activation(self, agent: Agent) -> float:
        r = agent.request
        if r is None or r.target not in agent.system.object_index:
            return 0.0
        return r.activation

    def update(self, agent: Agent) -> None:
        r = agent.request
        if r is None or agent.picking_up:
            walk(agent, np.zeros(3))
            return
        if self.contact is not None:
            if self.contact_key != (r.target, r.contact):
                self._end_contact(agent)
            elif not self.contact.done or (self.contact.succeeded and r.contact != "kick"):
                return  # the arms (or the hug's own docking) are at work, or holding on
            else:
                self.last_contact, self.contact = self.contact, None
                self.retry_at = agent.now + self.retry
        if r.pause:
            walk(agent, np.zeros(3))
            return
        agent.system.request_steering(agent, self)

    def steer(self, agent: Agent, velocity: np.ndarray, gap: float, now: float) -> None:
        """Follow the field's walk vector, or start the contact command once within reach
        (called by the system after the vectorised field evaluation)."""
        r = agent.request
        reach = r.distance + r.within
        if r.contact == "kick":
            if gap > reach + KICK_NEAR:
                self.near_since = math.inf
            else:
                self.near_since = min(self.near_since, now)
                if now - self.near_since >= KICK_WAIT:
                    reach = gap
        if r.contact is not None and gap <= reach and now >= self.retry_at:
            self.near_since = math.inf
            if r.contact == "kick" and _kicked_by_another(agent, r.target):
                walk(agent, velocity)  # its turn comes when the other's kick is over
                return
            walk(agent, np.zeros(3))
            command = getattr(agent.character, r.contact)
            self.contact = command(r.target, **(r.options or {}))
            self.contact_key = (r.target, r.contact)
            return
        walk(agent, velocity)

    def terminate(self, agent: Agent) -> None:
        self._end_contact(agent)
        agent.character.stop()

    def _end_contact(self, agent: Agent) -> None:
        """Undo a contact command: let go with the arms (or stop a kick)."""
        if self.contact is None:
            return
        kind = self.contact_key[1] if self.contact_key else None
        if kind in ("hug", "grapple", "reach"):
            agent.character.release("both" if kind != "reach" else "right")
        self.last_contact, self.contact, self.contact_key = self.contact, None, None


def _kicked_by_another(agent: Agent, target: str) -> bool:
    """Whether another agent's kick of ``target`` is under way: children take turns at the
    ball (two kicking at once ran into each other, and a child on its kicking leg was
    shoved over by the other's arm)."""
    return any(other is not agent and other.kicking(target) for other in agent.system.agents)


class SitDown(Behavior):
    """Sit on a chair (``chair``: a name, or None for the nearest) when urged: its activation
    is ``urge`` while the character stands (set it with ``agent.find("sit-down").urge``
    or the ``urge`` command)."""

    name = "sit-down"
    level = "motor"

    def __init__(self, chair: str | None = None, urge: float = 0.0) -> None:
        self.chair = chair
        self.urge = float(urge)
        self.action: Action | None = None

    def activation(self, agent: Agent) -> float:
        # Still wanted while sitting down, and while seated by this behaviour.
        sitting = self.action is not None and (
            not self.action.done or (self.action.succeeded
                                     and agent.character.mode == "sitting"))
        return self.urge if agent.character.mode == "standing" or sitting else 0.0

    def initialise(self, agent: Agent) -> None:
        self.action = agent.character.sit(self.chair)


class StandUp(Behavior):
    """Stand up from a seat when urged: activation ``urge`` while the character sits."""

    name = "stand-up"
    level = "motor"

    def __init__(self, urge: float = 0.0) -> None:
        self.urge = float(urge)
        self.action: Action | None = None

    def activation(self, agent: Agent) -> float:
        rising = self.action is not None and not self.action.done
        return self.urge if agent.character.mode == "sitting" or rising else 0.0

    def initialise(self, agent: Agent) -> None:
        self.action = agent.character.stand_up()
