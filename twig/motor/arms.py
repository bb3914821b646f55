"""Durative commands of the arms (Horswill 2009, VII.C and VIII): reach, grab and hold (hugs and
grapples: :mod:`twig.motor.hugs`).

"Reaching, grappling and hugging are all implemented by moving the hands directly in front of
the shoulders at near-maximum extension"; grasping by "an invisible, zero-length link between
the character's hand and one of the nodes of the object". A driven hand is kinematic (it moves
at a limited speed toward its target and the arm follows by the links); a free hand hangs and
swings. Each task holds one or both hand channels (``"left"``, ``"right"``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from twig.action import Action
from twig.bodies.frames import shoulder_frame
from twig.motor.gait import STAND_FRACTION
from twig.motor.grips import steady, take_hold
from twig.motor.state import HAND_CARRY, HAND_DRIVE, HAND_FREE
from twig.motor.system import Task
from twig.physics import Body

if TYPE_CHECKING:
    from twig.motor.character import Character

SIDES = {"left": 0, "right": 1}
CARRY_GROUP = 1 << 29
"""Collision group of a carried object, which its carrier's legs pass (no tripping on it)."""
REACHED = 0.05
"""A reach succeeds with the hand this close to its target, metres."""
REACH = 1.0
"""A grab steps up to an object farther than this many arm lengths across the ground from
the hips ..."""
STEP_IN = 0.75
"""... until it is this many arm lengths away."""
HAND_TOUCH = 0.08
"""A contact this close to the hand node (m, for the 1.75 m adult) is the hand's."""
STOOP_REACH = 0.85
"""A stooping figure brings its shoulder within this many arm lengths of what it reaches
for (the driven hand goes no farther than 0.92 of the arm)."""
STOOP_CROUCH = 0.75
"""Hips lowered (m) per metre of stoop ..."""
STOOP_BEND = 0.5
"""... and shoulders brought ahead of the hips (m) per metre of stoop."""


def hands_of(hand: str) -> tuple[str, ...]:
    """The hand channels a ``hand`` argument names: ``"left"``, ``"right"`` or both."""
    return ("left", "right") if hand == "both" else (hand,)


def reach_forward(who: Character, side: str) -> np.ndarray:
    """In front of the shoulder at near-full extension (the paper's reach pose), metres."""
    frame = shoulder_frame(who)
    shoulder = who.node_position(f"{side[0]}_shoulder")
    return shoulder + 0.9 * who.arm_length * frame.forward


class Filter:
    """A change of collision group or mask on some volumes, undone by :meth:`restore`
    (volumes are found again by id, so bodies may come and go meanwhile)."""

    def __init__(self, world, rows: np.ndarray, group: int | None = None,
                 mask_clear: int = 0) -> None:
        vols = world.volumes
        self.world = world
        self.ids = vols["id"][rows].copy()
        self.group = vols["group"][rows].copy()
        self.mask = vols["mask"][rows].copy()
        if group is not None:
            world.set_volume_filter(rows, group=group)
        for row in rows if mask_clear else ():
            world.set_volume_filter(row, mask=int(vols["mask"][row]) & ~mask_clear)

    def restore(self) -> None:
        vols = self.world.volumes
        rows = np.searchsorted(vols["id"], self.ids)  # volume ids only grow
        live = rows < len(vols)
        live[live] = vols["id"][rows[live]] == self.ids[live]
        self.world.set_volume_filter(rows[live], group=self.group[live], mask=self.mask[live])


def stoop(who: Character, point: np.ndarray | None, side: str = "right") -> None:
    """Crouch and bend forward just enough to bring the ``side`` shoulder within reach
    (:data:`STOOP_REACH` of the arm) of ``point`` (m), or stand straight again (``None``).

    Crouching lowers the hips by :data:`STOOP_CROUCH` ``s``, bending brings the shoulders
    :data:`STOOP_BEND` ``s`` ahead of the hips (lowering them as the trunk tilts); the least
    stoop ``s`` that brings the shoulder within reach is taken, or the deepest one when none
    does. The shoulder's place is predicted from the standing figure (the lower foot, the
    leg's and the torso's lengths, the heading), not measured on the stooping one: measured,
    the stoop chased its own effect and see-sawed, and counting only the height to reach
    down, a boss bent 1 to 17 cm over a pen half a metre in front of it and never got there.
    """
    t, r = who.motor_table, who.motor_row
    if point is None:
        t["crouch"][r] = t["bend"][r] = 0.0
        return
    leg, torso, scale = float(t["leg"][r]), float(t["torso"][r]), who.scale
    feet = min(who.node_position("l_foot")[1], who.node_position("r_foot")[1])
    heading = float(t["heading"][r])
    ahead = np.array((np.sin(heading), 0.0, np.cos(heading)))
    shoulder = who.node_position(f"{side[0]}_shoulder") - who.node_position("neck")
    standing = who.hips + shoulder * (1.0, 0.0, 1.0)
    standing[1] = feet + leg * STAND_FRACTION + torso
    s = np.linspace(0.0, max(0.45 * leg / STOOP_CROUCH, 0.3 * scale / STOOP_BEND), 41)
    crouch = np.minimum(STOOP_CROUCH * s, 0.45 * leg)
    bend = np.minimum(STOOP_BEND * s, 0.3 * scale)
    low = crouch + torso - np.sqrt(np.maximum(torso * torso - bend * bend, 0.0))
    at = standing + bend[:, None] * ahead - low[:, None] * (0.0, 1.0, 0.0)
    gap = np.linalg.norm(point - at, axis=1)
    within = np.flatnonzero(gap <= STOOP_REACH * who.arm_length)
    k = int(within[0]) if len(within) else int(np.argmin(gap))
    t["crouch"][r] = crouch[k]
    t["bend"][r] = bend[k]


def grip_close(who: Character, node: int) -> float:
    """How near (m) ``who``'s hand node must come to global node ``node`` to hold it: the
    hand's own size, plus the node's radius (a node inside a ball is the ball's radius in)."""
    return max(0.06, float(who.world.nodes["radius"][node]) + 0.05 * who.scale)


class ArmTask(Task):
    """Drives the hands it holds toward targets given per hand each tick."""

    def __init__(self, who: Character, action: Action, hands: tuple[str, ...]) -> None:
        super().__init__(action, hands[0])
        self.who = who
        self.hands = hands
        self.elapsed = 0.0

    def drive(self, side: str, point: np.ndarray, speed: float = 1.5,
              mode: int = HAND_DRIVE) -> None:
        t, r, k = self.who.motor_table, self.who.motor_row, SIDES[side]
        t["hand_mode"][r, k] = mode
        t["hand_target"][r, k] = point
        t["hand_speed"][r, k] = speed

    def free(self, side: str) -> None:
        self.who.motor_table["hand_mode"][self.who.motor_row, SIDES[side]] = HAND_FREE

    def distance(self, side: str) -> float:
        return float(self.who.motor_table["hand_dist"][self.who.motor_row, SIDES[side]])

    def touches(self, item: Body, side: str) -> bool:
        """Whether ``item`` touched this character at its ``side`` hand in the last tick."""
        world, who = self.who.world, self.who
        contacts = world.contacts
        rows = contacts.involving(item.id)
        rows = rows[(contacts.body_a[rows] == who.id) | (contacts.body_b[rows] == who.id)]
        if not len(rows):
            return False
        hand = who.node(f"{side[0]}_hand")
        near = np.linalg.norm(contacts.point[rows] - world.node_pos[hand], axis=1)
        return bool(near.min() < HAND_TOUCH * who.scale)

    def at_grip(self, side: str, item: Body, node: int) -> bool:
        """Whether the ``side`` hand has arrived at global node ``node`` of ``item``, to take
        hold of it: within the hand's own size of the node (plus the node's radius: a node
        inside a ball is the ball's radius in), or touching the item near it (a node inside
        a board or a block lies under its skin, and the hand stops at the skin)."""
        who, world = self.who, self.who.world
        close = grip_close(who, node)
        gap = float(np.linalg.norm(world.node_pos[who.node(f"{side[0]}_hand")]
                                   - world.node_pos[node]))
        return gap < close or (gap < close + HAND_TOUCH * who.scale + 0.1
                               and self.touches(item, side))

    def short_of(self, side: str, point: np.ndarray) -> str:
        """Why the ``side`` hand did not get to ``point`` (m): out of the arm's reach from
        the shoulder, or stopped short of it (something in the way)."""
        who = self.who
        gap = float(np.linalg.norm(point - who.node_position(f"{side[0]}_shoulder")))
        if gap > 0.97 * who.arm_length:
            return (f"out of reach: the target is {gap:.2f} m from the {side} shoulder and the "
                    f"arm reaches {who.arm_length:.2f} m")
        hand = who.node_position(f"{side[0]}_hand")
        return f"the {side} hand stopped {np.linalg.norm(point - hand):.2f} m short"

    def check(self) -> None:
        self.elapsed += self.who.world.dt

    def cancel(self, reason: str) -> None:
        for side in self.hands:
            self.free(side)
        stoop(self.who, None)
        super().cancel(reason)


class Reach(ArmTask):
    """Move the hands to a point (both hands side by side) or in front of the shoulders, and
    keep them there until the arms get another command or :meth:`Character.release`."""

    persist = True

    def __init__(self, who: Character, action: Action, hands: tuple[str, ...],
                 where: Callable[[], np.ndarray] | None, timeout: float = 2.5) -> None:
        super().__init__(who, action, hands)
        self.where = where
        self.timeout = timeout

    def targets(self) -> dict[str, np.ndarray]:
        if self.where is None:
            return {side: reach_forward(self.who, side) for side in self.hands}
        point = self.where()
        if len(self.hands) == 1:
            return {self.hands[0]: point}
        right = shoulder_frame(self.who).right
        gap = 0.06 * self.who.scale
        return {"left": point - gap * right, "right": point + gap * right}

    def update(self) -> None:
        for side, point in self.targets().items():
            self.drive(side, point)

    def check(self) -> None:
        super().check()
        if self.action.done:
            return
        if all(self.distance(side) < REACHED for side in self.hands):
            self.action.succeed()
        elif self.elapsed > self.timeout:
            far = max(self.hands, key=self.distance)
            self.cancel(self.short_of(far, self.targets()[far]))


class Grab(ArmTask):
    """Reach for an object's nearest node and link the hand to it (Horswill VI.C); with
    ``carry``, then hold the hand at the side (Hold, VIII). Persists until released.

    An object beyond the arm's reach from where the character stands (:data:`REACH` of the
    arm, across the ground from the hips) is first stepped up to (the steps stop when the
    hand is at it first); the ``timeout`` counts from then. The hand holds once it is near
    the node, or once it touches the object near it (a node inside a block lies under the
    block's skin, out of the hand's way).
    """

    persist = True

    def __init__(self, who: Character, action: Action, side: str, item: Body, node: int | None,
                 carry: bool, timeout: float = 3.0) -> None:
        super().__init__(who, action, (side,))
        self.side = side
        self.item = item
        self.carry = carry
        self.timeout = timeout
        hand = who.node(f"{side[0]}_hand")
        if node is None:
            gaps = np.linalg.norm(who.world.node_pos[item.nodes] - who.world.node_pos[hand], axis=1)
            node = item.nodes.start + int(np.argmin(gaps))
        self.local = node - item.nodes.start  # node indices shift when earlier bodies go
        # A crouching figure's hand gets only so low (a doll lying on the floor).
        self.close = grip_close(who, node)
        self.floor = 0.25 * who.scale
        self.filters: list[Filter] = []
        self.walk: Action | None = None
        if self._across() > REACH * who.arm_length:
            self.walk = who.walk_to(item, distance=STEP_IN * who.arm_length,
                                    speed=1.0)

    def _across(self) -> float:
        """Distance across the ground from the hips to the node, metres."""
        gap = self.who.world.node_pos[self.node] - self.who.hips
        return float(np.hypot(gap[0], gap[2]))

    @property
    def node(self) -> int:
        """The node the hand goes for (UnknownNameError once the object is removed)."""
        return self.item.nodes.start + self.local

    def update(self) -> None:
        if self.action.done:
            return  # carrying: the kernel keeps the hand at its pose (HAND_CARRY)
        point = self.who.world.node_pos[self.node].copy()
        stoop(self.who, point, self.side)
        self.drive(self.side, point)

    def check(self) -> None:
        super().check()
        if self.action.done:
            return
        if not self.item.alive:
            self.cancel(f"{self.side} hand: the object was removed")
            return
        if self.walk is not None:
            at_hand = self.at_grip(self.side, self.item, self.node)
            if not self.walk.done and not at_hand:
                self.elapsed = 0.0  # the reach's time starts once the item is at hand
                return
            if not self.walk.done:  # the hand got there first: stepping on kicks it away
                self.who.motor.stop(self.who, "legs", f"the {self.side} hand is at "
                                    f"{self.item.name}")
            self.walk = None
        world = self.who.world
        hand = self.who.node(f"{self.side[0]}_hand")
        gap = world.node_pos[hand] - world.node_pos[self.node]
        low = world.node_pos[self.node, 1] < self.floor and 0.0 < gap[1] < self.floor
        if self.at_grip(self.side, self.item, self.node) or (
                low and np.linalg.norm(gap[[0, 2]]) < 1.5 * self.close):
            take_hold(self.who, self.side, self.node, self.item)
            stoop(self.who, None)
            if self.carry:
                # At the side, out and forward, the elbow bent (high enough that a child's
                # doll hangs clear of the ground): kept by the kernel; the legs pass what
                # hangs from the hand (a doll would trip the carrier); held steady by the
                # hand, it swings against it damped.
                out = 0.25 if self.side == "right" else -0.25
                self.drive(self.side, np.array([out, -0.45, 0.4]), speed=1.0, mode=HAND_CARRY)
                steady(world, self.item, hand)
                vols = world.volumes["body"]
                self.filters = [
                    Filter(world, np.flatnonzero(vols == self.item.id), group=CARRY_GROUP),
                    Filter(world, np.flatnonzero(vols == self.who.id), mask_clear=CARRY_GROUP)]
            else:
                self.free(self.side)
            self.action.succeed()
        elif self.elapsed > self.timeout:
            self.cancel(f"could not get the {self.side} hand to {self.item.name} in "
                        f"{self.timeout:g} s: "
                        f"{self.short_of(self.side, world.node_pos[self.node])}")


    def cancel(self, reason: str) -> None:
        if self.walk is not None and not self.walk.done:
            self.who.motor.stop(self.who, "legs", reason)
        self.walk = None
        for f in self.filters:
            f.restore()
        self.filters = []
        super().cancel(reason)

    def abandon(self, reason: str) -> None:
        for f in self.filters:
            f.restore()
        self.filters = []
        super().abandon(reason)
