"""Durative commands of the arms (Horswill 2009, VII.C and VIII): reach, grab, hold, hug,
grapple.

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
from twig.bodies.frames import cross3, shoulder_frame
from twig.motor.gait import STAND_FRACTION
from twig.motor.grips import closing_link, steady, take_hold
from twig.motor.state import HAND_CARRY, HAND_DRIVE, HAND_FREE, HAND_PULL
from twig.motor.system import Task
from twig.physics import Body, Link

if TYPE_CHECKING:
    from twig.motor.character import Character

SIDES = {"left": 0, "right": 1}
HUG_GROUP = 1 << 30
"""Collision group a hugged partner's arms move to, so the hugger's arms pass them."""
CARRY_GROUP = 1 << 29
"""Collision group of a carried object, which its carrier's legs pass (no tripping on it)."""
ARM_NODES = ("l_shoulder", "l_elbow", "l_hand", "r_shoulder", "r_elbow", "r_hand")
REACHED = 0.05
"""A reach succeeds with the hand this close to its target, metres."""
AROUND = 0.25
"""A hug joins only with both hands this close to the partner's trunk (its spine, or its
nearest node), metres: arms around the partner, not clasped in the air."""
LOST = 0.3
"""A joined hug whose hands are farther than this from the partner's trunk ..."""
LOST_AFTER = 0.1
"""... for this many seconds has lost its hold: the hands part and it docks again."""
REDOCK = 4.0
"""Seconds a hug that lost its hold has to join again before it ends, failed."""
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
    arm, across the ground from the hips) is first stepped up to; the ``timeout`` counts from
    then. The hand holds once it is near the node, or once it touches the object near it (a
    node inside a block lies under the block's skin, out of the hand's way).
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
            if not self.walk.done:
                self.elapsed = 0.0  # the reach's time starts once the item is at hand
                return
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

class Hug(ArmTask):
    persist = True
    """Approach the partner, reach, and when its torso touches ours, bring the hands round
    behind it and join them (Horswill VII.C "Hugging"); hold the hug ``seconds``, then let go.
    Emits ``hug`` events ``start``, ``joined`` and ``end``."""

    def __init__(self, who: Character, action: Action, partner: Body, seconds: float,
                 timeout: float = 12.0) -> None:
        super().__init__(who, action, ("left", "right"))
        self.partner = partner
        self.seconds = seconds
        self.timeout = timeout
        self.phase = "approach"
        self.joined_for = 0.0
        self.best_gap = np.inf
        self.closing = 0.0
        self.wrapping = 0.0
        self.join: Link | None = None
        self.away = 0.0  # seconds the joined hands have been off the partner's trunk
        self.redock_by = np.inf  # when a hug that lost its hold must have joined again
        self.names = (who.name, partner.name)  # for the events once either is removed
        who.world.events.emit("hug", agent=who.name, object=partner.name, status="start")
        # Arms round the partner's body, between its arms and sides: the partner's arms let
        # the hugger through (stick figures have no room there; its hands end up on our back).
        world = who.world
        self.filters = [Filter(world, _arm_volumes(partner), group=HUG_GROUP),
                        Filter(world, np.flatnonzero(world.volumes["body"] == who.id),
                               mask_clear=HUG_GROUP)]
        self.walk = who.walk_to(partner, distance=0.1 * who.scale + 0.12, speed=1.5)

    def _torso_point(self) -> np.ndarray:
        """The partner's spine where our arms go round it: at our shoulders' height, but not
        below the top of its hips (a child hugs a parent's waist)."""
        p = self.partner
        if p.type != "humanoid":
            return p.centroid
        hips = 0.5 * (p.node_position("l_hip") + p.node_position("r_hip"))
        y = max(self.who.node_position("neck")[1] - 0.05 * self.who.scale,
                hips[1] + 0.15 * p.world.body_record(p.id).meta.get("scale", 1.0))
        low, high = p.node_position("pelvis"), p.node_position("neck")
        s = np.clip((y - low[1]) / max(high[1] - low[1], 1e-6), 0.0, 1.0)
        return low + s * (high - low)

    def hands_off_trunk(self) -> float:
        """How far (m) the farther of our hands is from the partner's trunk: the
        pelvis-chest-neck line of a humanoid, the nearest node of another body."""
        p, world = self.partner, self.who.world
        hands = [self.who.node_position(h) for h in ("l_hand", "r_hand")]
        if p.type != "humanoid":
            nodes = world.node_pos[p.nodes]
            return max(float(np.linalg.norm(nodes - h, axis=1).min()) for h in hands)
        spine = [p.node_position(n) for n in ("pelvis", "chest", "neck")]
        return max(min(_to_segment(h, spine[0], spine[1]), _to_segment(h, spine[1], spine[2]))
                   for h in hands)

    def update(self) -> None:
        torso = self._torso_point()
        me = self.who.node_position("chest")
        to = torso - me
        to[1] = 0.0
        dist = float(np.linalg.norm(to))
        ahead = to / max(dist, 1e-9)
        side = cross3(np.array((0.0, 1.0, 0.0)), ahead)  # our left
        width = 0.14 * self.who.scale + 0.1
        if self.phase == "approach":
            # Arms open wide (a hug, not a shove): out to the sides and a little forward.
            arm = self.who.arm_length
            for s, sign in (("left", 1.0), ("right", -1.0)):
                self.drive(s, me + ahead * 0.35 * arm + sign * side * (width + 0.5 * arm))
            touching = self.partner.name in self.who.world.touched(self.who, within=0.2)
            if touching or dist < 0.3 * self.who.scale + 0.12:
                self.phase = "wrap"
                self.who.stop()  # in contact: no more walking into the partner
        else:  # wrap, close, and joined: the hands stay clasped behind the partner
            t, r = self.who.motor_table, self.who.motor_row
            t["face"][r] = ahead  # square on to the partner, both arms equally round it
            t["face_on"][r] = True
            # Snuggle in: the hips creep toward the partner until the chests touch.
            if self.phase != "joined" and dist > 0.12 * self.who.scale + 0.1:
                t["walk"][r] = ahead * 0.25
            else:
                t["walk"][r] = 0.0
            # Round the sides first, then behind, pulled by springs: the hands slide around
            # the partner instead of shoving it away.
            radius = 0.1 * self.partner.world.body_record(self.partner.id).meta.get(
                "scale", 1.0) + 0.05
            if self.phase == "wrap":
                targets = [torso + ahead * 0.3 * radius + sign * side * (radius + 0.05)
                           for sign in (1.0, -1.0)]
                self.wrapping += self.who.world.dt
                # Round the sides (or as far as they get in a second and a half: a hand
                # that holds a doll is slowed by it): now behind.
                if all(self.distance(s) < 0.08 for s in self.hands) or (
                        self.wrapping > 1.5 and all(self.distance(s) < 0.2 for s in self.hands)):
                    self.phase = "close"
            else:
                targets = [torso + ahead * radius + sign * side * 0.005
                           for sign in (1.0, -1.0)]
            for s, point in zip(("left", "right"), targets, strict=True):
                self.drive(s, point, mode=HAND_PULL)

    def check(self) -> None:
        super().check()
        world = self.who.world
        if self.phase == "close" and self.join is None:
            hands = [self.who.node_position(h) for h in ("l_hand", "r_hand")]
            gap = float(np.linalg.norm(hands[0] - hands[1]))
            self.closing = self.closing + world.dt if gap > self.best_gap - 0.005 else 0.0
            self.best_gap = min(self.best_gap, gap)
            # Behind the partner: both hands past its spine, seen from us.
            torso = self._torso_point()
            ahead = (torso - self.who.node_position("chest")) * (1.0, 0.0, 1.0)
            ahead /= max(float(np.linalg.norm(ahead)), 1e-9)
            behind = all((h - torso) @ ahead > 0.0 for h in hands)
            # A hand that holds something (a doll) gets only so far round: it is in the way.
            reach = 0.35 if self.who.gripped("left") or self.who.gripped("right") else 0.25
            clasp = gap < 0.12 or (behind and gap < reach and self.closing > 0.5)
            if clasp and self.hands_off_trunk() <= AROUND:
                # Close enough to clasp (or as close as the arms get, round a big partner),
                # with the arms round the partner: a link joins the pulled hands and closes,
                # squeezing them together (what the hands held before stays held).
                self.join = closing_link(world, self.who.node("l_hand"),
                                         self.who.node("r_hand"))
                self.who.motor.joins.append(self.join)
                self.phase = "joined"
                self.away = 0.0
                self.redock_by = np.inf
                world.events.emit("hug", agent=self.who.name, object=self.partner.name,
                                  status="joined")
                self.walk = None
                self.who.stop()
                if not self.action.done:
                    self.action.succeed()
        if self.phase == "joined":
            self.joined_for += world.dt
            self.away = self.away + world.dt if self.hands_off_trunk() > LOST else 0.0
            if self.joined_for >= self.seconds:
                self.cancel("the hug is over")
            elif self.away > LOST_AFTER:
                self._lose_hold()
        elif self.elapsed > min(self.timeout, self.redock_by):
            lost = self.redock_by < np.inf
            self.cancel(f"lost its hold on {self.partner.name}" if lost else
                        f"could not hug {self.partner.name} within {self.timeout:g} s")

    def _lose_hold(self) -> None:
        """The partner slipped out of the joined arms (it stepped back, it was pulled away):
        the hands part and the hug docks again, or ends failed after :data:`REDOCK` s."""
        world = self.who.world
        if self.join is not None and self.join.alive:
            self.join.remove()
        self.join = None
        world.events.emit("hug", agent=self.who.name, object=self.partner.name, status="lost")
        self.phase = "approach"
        self.best_gap = np.inf
        self.closing = self.wrapping = 0.0
        self.redock_by = self.elapsed + REDOCK
        self.walk = self.who.walk_to(self.partner, distance=0.1 * self.who.scale + 0.12,
                                     speed=1.5)

    def cancel(self, reason: str) -> None:
        if self.finished:
            return
        super().cancel(reason)
        who, world = self.who, self.who.world
        who.motor_table["face_on"][who.motor_row] = False
        who.motor_table["walk"][who.motor_row] = 0.0
        if self.join is not None and self.join.alive:
            self.join.remove()
        world.events.emit("hug", agent=who.name, object=self.names[1], status="end")
        # Let go gently: the hands come back in front of the chest before they hang free
        # (flung free from behind the partner, the arms would strike it).
        t, r = who.motor_table, who.motor_row
        for side, k in SIDES.items():
            if t["hand_mode"][r, k] == HAND_FREE and who.motor.task(who, side) is None:
                t["hand_mode"][r, k] = HAND_CARRY
                t["hand_target"][r, k] = (0.1 if side == "right" else -0.1, -0.45, 0.45)
                t["hand_speed"][r, k] = 0.6
        until = world.time + 0.6

        def back() -> bool:
            return world.time >= until

        def hang() -> None:
            if who.alive:
                t, r = who.motor_table, who.motor_row  # rows move when other characters go
                for side, k in SIDES.items():
                    if t["hand_mode"][r, k] == HAND_CARRY and \
                            who.motor.task(who, side) is None:
                        t["hand_mode"][r, k] = HAND_FREE

        who.motor.after(back, hang)
        # The arms may still be round the partner: collisions between the two come back only
        # once they have parted, or the separation would throw them about.
        partner = self.partner
        if not partner.alive:
            self._restore_filters()
            return
        # Apart: the partner's arms cannot reach us (they pass through us until then).
        clear = 0.75 * world.body_record(partner.id).meta.get("scale", 1.0) + 0.3

        def parted() -> bool:
            if not (who.alive and partner.alive):
                return True
            gap = (who.centroid - partner.centroid)[[0, 2]]
            return float(np.hypot(*gap)) > clear

        who.motor.after(parted, self._restore_filters)

    def abandon(self, reason: str) -> None:
        if self.finished:
            return
        super().abandon(reason)
        if self.join is not None and self.join.alive:
            self.join.remove()
        self._restore_filters()
        self.who.world.events.emit("hug", agent=self.names[0], object=self.names[1],
                                   status="end")

    def _restore_filters(self) -> None:
        for f in self.filters:
            f.restore()


def _to_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Distance (m) from point ``p`` to segment ``a``-``b``."""
    ab = b - a
    s = float(np.clip((p - a) @ ab / max(float(ab @ ab), 1e-12), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + s * ab)))


def _arm_volumes(body: Body) -> np.ndarray:
    """Rows of the volumes on a humanoid's arms (empty for other bodies)."""
    world = body.world
    if body.type != "humanoid":
        return np.zeros(0, dtype=np.int64)
    arms = [body.node(n) for n in ARM_NODES]
    nodes = world.volumes["nodes"][:, :2]
    on_arm = np.isin(nodes, arms).all(axis=1) & (world.volumes["body"] == body.id)
    shoulders = np.isin(nodes, [arms[0], arms[3]]).all(axis=1)
    return np.flatnonzero(on_arm & ~shoulders)


class Grapple(ArmTask):
    """Close in on the opponent and, once within arm's length, bash it with alternating
    hands (Horswill VII.C "Grappling"): it looks like shoving or wrestling and hurts."""

    def __init__(self, who: Character, action: Action, opponent: Body, seconds: float) -> None:
        super().__init__(who, action, ("left", "right"))
        self.opponent = opponent
        self.seconds = seconds
        self.engaged = 0.0
        who.walk_to(opponent, distance=0.55 * who.arm_length + 0.2, speed=1.5)

    def update(self) -> None:
        # At the upper chest: the fists, not the forearms, meet it first.
        them = self.opponent.centroid if self.opponent.type != "humanoid" else 0.5 * (
            self.opponent.node_position("chest") + self.opponent.node_position("neck"))
        me = self.who.node_position("chest")
        gap = float(np.linalg.norm((them - me)[[0, 2]]))
        if gap > self.who.arm_length + 0.35:
            for side in self.hands:
                self.drive(side, reach_forward(self.who, side))
            return
        self.engaged += self.who.world.dt
        beat = int(self.engaged / 0.35) % 2  # punch with one hand, pull back the other
        for k, side in enumerate(self.hands):
            if k == beat:
                self.drive(side, them + 0.4 * (them - me) / max(gap, 1e-6), speed=8.0)
            else:
                self.drive(side, reach_forward(self.who, side) * 0.5
                           + self.who.node_position(f"{side[0]}_shoulder") * 0.5, speed=3.5)

    def check(self) -> None:
        super().check()
        if self.engaged >= self.seconds:
            for side in self.hands:
                self.free(side)
            self.action.succeed()
        elif self.elapsed > self.seconds + 10.0:
            self.cancel(f"could not close in on {self.opponent.name}")
