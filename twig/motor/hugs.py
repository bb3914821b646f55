"""Hugs and grapples (Horswill 2009, VII.C): both hands brought round another character's
trunk, held there, and let go; or pushed against it.

"Reaching, grappling and hugging are all implemented by moving the hands directly in front of
the shoulders at near-maximum extension": each is an :class:`~twig.motor.arms.ArmTask` holding
both hand channels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from twig.action import Action
from twig.bodies.frames import cross3
from twig.motor.arms import SIDES, ArmTask, Filter, reach_forward
from twig.motor.grips import closing_link
from twig.motor.state import HAND_CARRY, HAND_FREE, HAND_PULL, HAND_STRIKE
from twig.physics import Body, Link

if TYPE_CHECKING:
    from twig.motor.character import Character

HUG_GROUP = 1 << 30
"""Collision group a hugged partner's arms move to, so the hugger's arms pass them."""
ARM_NODES = ("l_shoulder", "l_elbow", "l_hand", "r_shoulder", "r_elbow", "r_hand")
AROUND = 0.25
"""A hug joins only with both hands this close to the partner's trunk (its spine, or its
nearest node), metres: arms around the partner, not clasped in the air."""
LOST = 0.3
"""A joined hug whose hands are farther than this from the partner's trunk ..."""
LOST_AFTER = 0.1
"""... for this many seconds has lost its hold: the hands part and it docks again."""
STUCK = 1.0
"""Seconds a closing hand in front of the partner's spine may come no nearer its place
behind it before it goes round the partner's side again."""
HANDS = ("l_hand", "r_hand")
REDOCK = 4.0
"""Seconds a hug that lost its hold has to join again before it ends, failed."""


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
        self._reset_rounding()
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
            sides = [torso + ahead * 0.3 * radius + sign * side * (radius + 0.05)
                     for sign in (1.0, -1.0)]
            if self.phase == "wrap":
                targets = sides
                self.wrapping += self.who.world.dt
                # Round the sides (or as far as they get in a second and a half: a hand
                # that holds a doll is slowed by it): now behind.
                if all(self.distance(s) < 0.08 for s in self.hands) or (
                        self.wrapping > 1.5 and all(self.distance(s) < 0.2 for s in self.hands)):
                    self.phase = "close"
            else:
                targets = [torso + ahead * radius + sign * side * 0.005
                           for sign in (1.0, -1.0)]
                if self.phase == "close":
                    targets = self._round_the_sides(targets, sides, torso, ahead)
            for s, point in zip(("left", "right"), targets, strict=True):
                self.drive(s, point, mode=HAND_PULL)

    def _round_the_sides(self, behind: list[np.ndarray], sides: list[np.ndarray],
                         torso: np.ndarray, ahead: np.ndarray) -> list[np.ndarray]:
        """Where each closing hand goes (m): behind the partner, or, for a hand held on the
        partner's front, round its side first.

        Pulled straight for its place behind the partner, a hand still in front of the
        partner's spine may meet the belly and stay pressed on it, short of the back (the
        playground at seed 4, t = 28-39.5 s: the kid's free hand 8 cm in front of the
        parent's spine for 11 s, the hug failed). A hand in front that has come no nearer
        (5 mm) in :data:`STUCK` s goes back to the partner's side (the wrap's place), and
        from there, once it is there or nearer by no more than 5 mm in half a second,
        behind again."""
        dt = self.who.world.dt
        for k in range(2):
            point = sides[k] if self.rounding[k] else behind[k]
            gap = float(np.linalg.norm(self.who.node_position(HANDS[k]) - point))
            self.still[k] = self.still[k] + dt if gap > self.nearest[k] - 0.005 else 0.0
            self.nearest[k] = min(self.nearest[k], gap)
            if self.rounding[k]:
                turn = gap < 0.08 or self.still[k] > 0.5
            else:
                turn = (self.still[k] > STUCK
                        and (self.who.node_position(HANDS[k]) - torso) @ ahead < 0.0)
            if turn:
                self.rounding[k] = not self.rounding[k]
                self.still[k], self.nearest[k] = 0.0, np.inf
        return [sides[k] if self.rounding[k] else behind[k] for k in range(2)]

    def _reset_rounding(self) -> None:
        self.rounding = [False, False]  # per hand: going round the partner's side again
        self.still = [0.0, 0.0]  # seconds the hand has come no nearer its place
        self.nearest = [np.inf, np.inf]

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
        self._reset_rounding()
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
                self.drive(side, them + 0.1 * (them - me) / max(gap, 1e-6), speed=8.0,
                           mode=HAND_STRIKE)
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
