"""``Agent``: one character's mind: its behaviour levels, the approach request passed down
between them, and read access to its attention and drives.

Behaviours receive the agent in every hook; what they may read (focus, salience, distances,
anxiety, pain) and command (``agent.approach(...)``, ``agent.character``) is here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from twig.behavior.selection import Behavior, Selector
from twig.errors import TwigError

if TYPE_CHECKING:
    from twig.action import Action
    from twig.behavior.standard import Approach
    from twig.behavior.system import BehaviorSystem
    from twig.motor import Character

Contact = Literal["reach", "hug", "grapple", "kick"]
"""What the approach does on arrival: the arm controls it forwards to (reach, hug, grapple;
Horswill IX.A) or a kick of the ball."""
CONTACTS = ("reach", "hug", "grapple", "kick")
HOLD_REACH = 1.0
"""A carried object that was let go is picked up again when this close, m."""
HOLD_RETRY = 3.0
"""Seconds between attempts to pick it up."""
HOLD_TRIES = 2
"""Failed attempts in a row after which it gives up."""


@dataclass
class ApproachRequest:
    """What a goal asks of the approach behaviour this tick (Horswill IX.A's inputs).

    Attributes
    ----------
    target
        Name of the object to approach.
    activation
        The requesting goal's activation (the approach behaviour's own).
    distance
        Stop this far from the target, m (``d`` of eq. 6).
    direction
        Unit horizontal vector from the target toward the stop point (``**d**`` of eq. 6);
        None: from whichever side the character is on.
    contact
        On arrival: ``reach``, ``hug``, ``grapple`` (forwarded to the arms) or ``kick``; None.
    within
        Start the contact command this much beyond ``distance``, m.
    speed
        Walking speed limit, m/s (the attraction's saturation).
    options
        Keyword arguments of the contact command (``toward`` of a kick, ``seconds`` of a
        hug).
    pause
        Stand still this tick (looking back at the parent).
    """

    target: str
    activation: float
    distance: float = 0.4
    direction: tuple[float, float, float] | None = None
    contact: Contact | None = None
    within: float = 0.25
    speed: float = 1.2
    options: dict | None = None
    pause: bool = False


class Agent:
    """The behaviour state of one character (``world.behavior.agent(kid)``).

    Attributes
    ----------
    character
        The :class:`~twig.motor.Character` it commands.
    levels
        Its :class:`~twig.behavior.selection.Selector` levels, evaluated in order (goals
        before motor): each level's winner commands the level below.
    request
        The approach request of this tick (set by a goal's ``update``), or None.
    interests
        Object name (or body type) -> (salience, valence, monitoring priority).
    carry
        (object, hand) to hold from the start, or None.
    """

    def __init__(self, system: BehaviorSystem, character: Character,
                 levels: Sequence[Selector],
                 interests: dict[str, tuple[float, float, float]] | None = None,
                 carry: tuple[str, str] | None = None) -> None:
        self.system = system
        self.character = character
        self.name = character.name
        self.levels = list(levels)
        self.request: ApproachRequest | None = None
        self.interests = dict(interests or {})
        self.carry = carry
        self.row = -1
        self.pain_time = -math.inf
        self.pain_source = ""
        self.pain_point = np.zeros(3)
        self.carried: set[str] = set()
        self._hold: Action | None = None
        self._hold_retry = -math.inf
        self._hold_failures = 0
        self._approach: Approach | None = None

    # ------------------------------------------------------------------ reading the world
    @property
    def now(self) -> float:
        """Simulated time, s."""
        return self.system.world.time

    @property
    def position(self) -> np.ndarray:
        """The character's hips, m, shape (3,)."""
        return self.character.hips

    @property
    def focus(self) -> str | None:
        """Name of the focus of attention (maximal salience), or None."""
        k = int(self.system.attention.focus[self.row])
        return self.system.object_names[k] if k >= 0 else None

    @property
    def looking_at(self) -> str | None:
        """Name of the object the gaze rests on, or None."""
        k = int(self.system.attention.gaze[self.row])
        return self.system.object_names[k] if k >= 0 else None

    def salience(self, name: str) -> float:
        """This tick's salience of object ``name`` (0 if unknown)."""
        k = self.system.object_index.get(name)
        return 0.0 if k is None else float(self.system.attention.salience[self.row, k])

    def valence(self, name: str) -> float:
        """This tick's valence of object ``name`` (0 if unknown or forgotten)."""
        k = self.system.object_index.get(name)
        return 0.0 if k is None else float(self.system.attention.valence[self.row, k])

    def distance_to(self, name: str) -> float:
        """Horizontal distance from the hips to object ``name``, m (inf if it is gone)."""
        k = self.system.object_index.get(name)
        if k is None:
            return math.inf
        a, b = self.system.object_pos[k], self.position
        return math.hypot(a[0] - b[0], a[2] - b[2])

    def position_of(self, name: str) -> np.ndarray | None:
        """Current position of object ``name``, m, or None if it is gone."""
        k = self.system.object_index.get(name)
        return None if k is None else self.system.object_pos[k].copy()

    @property
    def anxiety(self) -> float:
        """Attachment anxiety, 0 to 1 (0 without an attachment figure; Horswill XII)."""
        return float(self.system.attachment.anxiety[self.row])

    def relieve(self, amount: float) -> None:
        """Lower the anxiety by ``amount`` at once (clamped at 0)."""
        a = self.system.attachment.anxiety
        a[self.row] = max(0.0, a[self.row] - amount)

    @property
    def walk_command(self) -> np.ndarray:
        """The ground velocity last commanded to the character, m/s, shape (3,)."""
        system = self.system
        return system.world.motor.table["walk"][system.motor_rows[self.row]]

    @property
    def picking_up(self) -> bool:
        """Whether it is picking up the object it carries (it stands still meanwhile)."""
        return self._hold is not None and not self._hold.done

    def contact_target(self) -> str | None:
        """Name of the object the approach's running contact command (a hug, grapple, reach
        or kick) acts on, or None."""
        approach = self.approach_behavior()
        action, key = approach.contact, approach.contact_key
        if action is None or key is None:
            return None
        # A hug goes on after it succeeds (the hands joined) until it ends by itself.
        if action.done and not (key[1] == "hug" and action.succeeded
                                and self.character.hugging):
            return None
        return key[0]

    def hugging(self, name: str) -> bool:
        """Whether a hug of ``name`` is under way (from the approach that sends it to the
        hands joined and let go)."""
        key = self.approach_behavior().contact_key
        return key == (name, "hug") and self.contact_target() == name

    def kicking(self, target: str) -> bool:
        """Whether a kick of ``target`` is under way (the approach's contact command)."""
        key = self.approach_behavior().contact_key
        return key == (target, "kick") and self.contact_target() == target

    def approach_behavior(self) -> Approach:
        """This agent's ``approach`` behaviour (found once)."""
        if self._approach is None:
            self._approach = self.find("approach")
        return self._approach

    def since_pain(self) -> float:
        """Seconds since the last painful impact (inf if none)."""
        return self.now - self.pain_time

    # ------------------------------------------------------------------ commanding
    def approach(self, target: str, activation: float, **settings) -> None:
        """Ask the approach behaviour (the level below) to steer to ``target`` this tick;
        ``settings`` are :class:`ApproachRequest` fields."""
        self.request = ApproachRequest(target, float(activation), **settings)

    @property
    def behavior(self) -> str | None:
        """The top level's current behaviour (``kid.behavior``)."""
        current = self.levels[0].current if self.levels else None
        return current.name if current else None

    def behaviors(self) -> dict[str, str | None]:
        """Each level's current behaviour by level name."""
        return {lv.name: (lv.current.name if lv.current else None) for lv in self.levels}

    def find(self, name: str) -> Behavior:
        """This agent's behaviour called ``name``."""
        for level in self.levels:
            for b in level.behaviors:
                if b.name == name:
                    return b
        raise TwigError(f"{self.name} has no behaviour {name!r}; it has "
                        f"{[b.name for lv in self.levels for b in lv.behaviors]}")

    def decide(self, now: float) -> None:
        """The decide stage for this character: each level, top down, picks its winner and
        runs its hooks; switches become ``behavior`` events."""
        if self.carry is not None:
            self._keep_carrying(now)
        self.request = None
        events = self.system.world.events
        for level in self.levels:
            if level.tick(self, now):
                events.emit("behavior", agent=self.name, behavior=level.current.name,
                            level=level.name)

    def _keep_carrying(self, now: float) -> None:
        """Hold the carried object (the kid's doll); pick it up again when it was let go (a
        hug needs both hands) and lies within reach, unless the arms are busy; after
        ``HOLD_TRIES`` failures in a row it gives up."""
        item, hand = self.carry
        if item in self.carried or now < self._hold_retry:
            return
        if self._hold is not None:
            if not self._hold.done:
                return
            self._hold_failures = 0 if self._hold.succeeded else self._hold_failures + 1
            self._hold = None
        if self._hold_failures >= HOLD_TRIES:
            return  # out of reach: it gives up on the object
        busy = [a for a in self.character.actions if a.name in ("hug", "grapple", "kick")]
        if busy or self.distance_to(item) > HOLD_REACH:
            return
        self._hold = self.character.hold(item, hand=hand)
        self._hold_retry = now + HOLD_RETRY

    def __repr__(self) -> str:
        return f"<Agent {self.name!r} {self.behaviors()}>"
