"""The supervisor (DANCE section 2.1, Fig. 1): one per character, arbitrating its controllers.

Each tick, before physics, the supervisor of every character under hybrid control decides
who has the character, in this order:

1. a **protective reflex** interrupts kinematic control when something flies at the head
   (:class:`~twig.hybrid.controllers.GuardReflex`);
2. **kinematic to dynamic** (DANCE 2.6): contact with an object that is *active* for this
   character hands a clip over to its dynamic tracking controller, every node keeping its
   velocity (the clip drove the nodes with their true velocities, so momentum carries over)
   and the figure's links settling from the clip's lengths to their own over 0.5 s;
3. a controller that has **succeeded or failed** hands over to the best controller whose
   pre-condition holds now (**dynamic to dynamic**: a fall's reflex when tracking fails, the
   fall-recovery clip once lying still, twig's motor control once standing);
4. a dynamic controller in control is replaced by the user's clip when that clip **bids**:
   its similarity (eq. 1) to one of its frames is under its threshold (**dynamic to
   kinematic**, blended over 0.5 s);
5. the controller in control acts.

Active and passive are per pair and directed (DANCE 2.6): ``set_passive(kid, "ball")``
makes the ball passive *to kid* only; a clip names the objects its motion touches on purpose
(the kicker's ball); the ground is always passive. Every hand-over is reported on the world's
event stream: ``{"type": "controller", "agent", "controller", "transition", "reason"}``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from twig.action import Action
from twig.bodies.frames import pelvis_frame
from twig.hybrid.blend import WINDOW_SECONDS, LinkSettle, OffsetBlend
from twig.hybrid.controllers import (
    ClipPlayer,
    Controller,
    FallReflex,
    GuardReflex,
    MotorControl,
    Status,
    Tracking,
)
from twig.motor.manipulation import drive_nodes, release_nodes
from twig.physics import flags

if TYPE_CHECKING:
    from twig.motor import Character
    from twig.physics import PhysicsWorld

L_FOOT, R_FOOT, L_HIP, R_HIP = 12, 15, 10, 13
GROUND_SLACK = 0.01
"""Metres above a ground plane within which a foot counts as standing on it."""
RETURN_AFTER = 0.4
"""Seconds a tracking controller keeps the character before its clip may bid again, and
seconds without active contact needed for it to."""
KNOCKDOWN = 10.0
"""A blow of this many joules from another character (twice a humanoid's pain threshold)
knocks a character on a clip or tracking one off its feet."""
KNOCK_SECONDS = 0.5
"""...if it came within this many seconds."""


class Limp(Controller):
    """No control at all (a rag doll): the controller of last resort. Succeeds once the body
    lies still, so that a recovery can bid."""

    name = "limp"

    def __init__(self) -> None:
        self.still = 0.0
        self.elapsed = 0.0

    def precondition(self, sup: Supervisor) -> float | None:
        return 100.0

    def act(self, sup: Supervisor) -> None:
        self.elapsed += sup.world.dt
        slow = float(np.abs(sup.velocities()).max()) < 0.6
        self.still = self.still + sup.world.dt if slow and sup.lying() else 0.0

    def status(self, sup: Supervisor) -> Status:
        return "succeeded" if self.still > 0.3 else "nominal"


class Supervisor:
    """Hybrid control of one character (see the module doc). Get it with
    :func:`supervisor`."""

    def __init__(self, system: HybridSystem, character: Character) -> None:
        self.system = system
        self.character = character
        self.world = character.world
        meta = self.world.body_record(character.id).meta
        self.height = float(meta["height"])
        self.preset = str(meta.get("preset", "adult"))
        self.active: Controller = MotorControl()
        self.goal: ClipPlayer | None = None
        self.goal_action: Action | None = None
        self.recovery: ClipPlayer | None = None
        self.passive: set[str] = set()
        self.last_active_contact = -math.inf
        self.last_shin_contact = -math.inf
        self.driven = False
        self.settle: LinkSettle | None = None

    # ------------------------------------------------------------------ the character's state
    @property
    def nodes(self) -> slice:
        return self.character.nodes

    def positions(self) -> np.ndarray:
        return self.world.node_pos[self.nodes]

    def velocities(self) -> np.ndarray:
        w = self.world
        return (w.node_pos[self.nodes] - w.node_prev[self.nodes]) / w.dt

    def masses(self) -> np.ndarray:
        inv = self.world.node_inv_mass[self.nodes]
        return 1.0 / np.where(inv > 0, inv, 1.0)

    @property
    def scale(self) -> float:
        return self.height / 1.75

    @property
    def leg(self) -> float:
        return float(self.character.motor_table["leg"][self.character.motor_row])

    @property
    def arm_length(self) -> float:
        return self.character.arm_length

    def tilt_deg(self) -> float:
        """Angle of the torso (pelvis frame's up) from vertical, degrees."""
        up = pelvis_frame(self.character).up
        return math.degrees(math.acos(min(max(float(up[1]), -1.0), 1.0)))

    def supported(self) -> bool:
        """A foot is on the ground: it touched a ground plane last tick, or lies within
        :data:`GROUND_SLACK` of one (the physics grounds only the nodes it moves itself, so
        a foot that a clip drove last tick has no contact to report)."""
        feet = np.array([L_FOOT, R_FOOT]) + self.nodes.start
        w = self.world
        if (w.node_flags[feet] & flags.GROUNDED).any():
            return True
        planes = w.planes
        gap = w.node_pos[feet] @ planes["normal"].T - planes["offset"] \
            - w.nodes["radius"][feet, None]
        return bool((gap < GROUND_SLACK).any())

    def hips_height(self) -> float:
        p = self.positions()
        return float(0.5 * (p[L_HIP, 1] + p[R_HIP, 1]))

    def lying(self) -> bool:
        """The hips are down near the ground (below 40 % of the leg's length)."""
        return self.hips_height() < 0.4 * self.leg

    def seated(self) -> bool:
        """Sitting up: hips low (under 40 % of the leg), torso within 30 degrees of vertical."""
        return self.lying() and self.tilt_deg() < 30.0

    def falling(self) -> bool:
        """Tipping over: torso over 45 degrees from vertical or hips below 60 % of the leg,
        knocked off its feet (:meth:`knocked`) or tripped (:meth:`tripped`), and not yet lying
        down."""
        return not self.lying() and (self.tilt_deg() > 45.0 or self.hips_height() < 0.6 * self.leg
                                     or self.knocked() or self.tripped())

    def tripped(self) -> bool:
        """Tripped while tracking a clip (:attr:`Tracking.tripped`): a lower leg caught on
        something, the body goes on over it."""
        return isinstance(self.active, Tracking) and self.active.tripped

    def knocked(self) -> bool:
        """Hit in the last :data:`KNOCK_SECONDS` by another character with a blow of
        :data:`KNOCKDOWN` joules or more (a kick, a punch): no stance holds against that, the
        body goes with it. (Walking into a heavy ball is a trip, not a blow.)"""
        name, since = self.character.name, self.world.time - KNOCK_SECONDS
        for event in reversed(self.world.pain_events):
            if event.t < since:
                return False
            if event.body == name and event.energy >= KNOCKDOWN and any(
                    c.name == event.source for c in self.world.characters):
                return True
        return False

    # ------------------------------------------------------------------ control outputs
    def drive(self, pose: np.ndarray) -> None:
        """Kinematic: the nodes reach ``pose`` (16, 3) next tick with its velocity."""
        idx = np.arange(self.nodes.start, self.nodes.stop)
        drive_nodes(self.world, idx, pose)
        self.driven = True

    def release(self) -> None:
        """End kinematic driving: the nodes move on with the velocity they have.

        That is the clip's: each set-point move of :meth:`drive` left ``node_prev`` at the
        pose before, so ``(node_pos - node_prev) / dt`` is the clip's velocity over the last
        tick, exactly. The figure's rigid links then settle from the pose's lengths to their
        own (:class:`~twig.hybrid.blend.LinkSettle`) instead of snapping back in one tick.
        """
        if self.driven:
            release_nodes(self.world, np.arange(self.nodes.start, self.nodes.stop))
            self.driven = False
            self.settle_links()

    def settle_links(self) -> None:
        """Start the rigid links of the figure settling from their lengths now (a settling
        still under way keeps the rest lengths it settles to). Runs after twig's motor
        system in each tick (its hook comes first), so that it has the last word on the
        shoulder braces that respiration actuates."""
        w = self.world
        ends = w.link_nodes
        mine = ((ends >= self.nodes.start) & (ends < self.nodes.stop)).all(axis=1) \
            & (w.link_min == w.link_max)
        rows = np.flatnonzero(mine)
        ids = w.links["id"][rows]
        old = self.settle
        rest = old.rest if old is not None and np.array_equal(old.ids, ids) else w.link_min[rows]
        self.settle = LinkSettle(w, ids, rest)

    def push(self, acc: np.ndarray) -> None:
        """Dynamic: add accelerations (16, 3), m/s^2, to the nodes this tick."""
        self.world.nodes["acc"][self.nodes] += acc

    # ------------------------------------------------------------------ what touches it
    def active_contact(self) -> tuple[str | None, bool]:
        """The name of an object active for this character that touched it last tick, and
        whether one touched a lower leg (a volume on a foot node: the shin): what a walker
        trips on."""
        c = self.world.contacts
        me = self.character.id
        rows = c.involving(me)
        if not len(rows):
            return None, False
        mine_a = c.body_a[rows] == me
        others = np.where(mine_a, c.body_b[rows], c.body_a[rows])
        mine = np.where(mine_a, c.volume_a[rows], c.volume_b[rows])
        passive = self.passive | (self.active.passive if isinstance(self.active, ClipPlayer)
                                  else frozenset())
        feet = np.array([L_FOOT, R_FOOT]) + self.nodes.start
        w, name, shin = self.world, None, False
        for other, volume in zip(others.tolist(), mine.tolist(), strict=True):
            if other == me or not w.has_body(other):
                continue
            what = w.body_record(other).name
            if what in passive:
                continue
            name = name or what
            row = np.flatnonzero(w.volumes["id"] == volume)
            shin = shin or bool(np.isin(w.volumes["nodes"][row], feet).any())
        return name, shin

    def incoming(self) -> str | None:
        """Something flying at the head: closing faster than 2 m/s, passing within 30 cm
        (adult) in the next 0.35 s, and not passive to the character or to the clip it plays
        (a kicker does not flinch from the partner its kick knocks over). Returns its name."""
        w = self.world
        head = self.nodes.start
        fast = self.system.fast
        others = fast[w.node_body[fast] != self.character.id]
        if not len(others):
            return None
        r = w.node_pos[others] - w.node_pos[head]
        u = (w.node_pos[others] - w.node_prev[others]) / w.dt \
            - (w.node_pos[head] - w.node_prev[head]) / w.dt
        uu = np.einsum("ij,ij->i", u, u)
        tau = -np.einsum("ij,ij->i", r, u) / np.maximum(uu, 1e-12)
        miss = np.linalg.norm(r + u * tau[:, None], axis=1)
        hit = (uu > 4.0) & (tau > 0.0) & (tau < 0.35) & (miss < 0.3 * self.scale)
        a = self.active
        player = a.player if isinstance(a, Tracking) else a
        passive = self.passive | (player.passive if isinstance(player, ClipPlayer)
                                  else frozenset())
        for k in np.flatnonzero(hit).tolist():
            name = w.body_record(int(w.node_body[others[k]])).name
            if name not in passive:
                return name
        return None

    # ------------------------------------------------------------------ arbitration
    def tick(self) -> None:
        """One arbitration and one act (see the module doc)."""
        a = self.active
        hit, shin = self.active_contact()
        if hit is not None:
            self.last_active_contact = self.world.time
        if shin:
            self.last_shin_contact = self.world.time
        nxt, why = None, ""
        player = a.player if isinstance(a, Tracking) else a if isinstance(a, ClipPlayer) \
            else None
        if player is not None and not isinstance(a, GuardReflex):
            flying = self.incoming()
            if flying is not None:
                nxt, why = GuardReflex(player), f"{flying} flies at the head"
        if nxt is None and isinstance(a, ClipPlayer) and hit is not None:
            nxt, why = Tracking(a), f"contact with {hit}"
        if nxt is None:
            status = a.status(self)
            if status != "nominal":
                nxt, why = self.choose(a, status), f"{a.name} {status}"
            elif not a.kinematic:
                nxt, why = self.bid(a), "similar to the clip"
        if nxt is not None and nxt is not a:
            self.switch(nxt, why)
        if self.settle is not None and not self.settle.step(self.world):
            self.settle = None
        self.active.act(self)
        self.check_goal()

    def bid(self, active: Controller) -> ClipPlayer | None:
        """The user's clip, if it bids for control now (dynamic controllers only)."""
        if self.goal is None or isinstance(active, FallReflex | Limp):
            return None
        if isinstance(active, Tracking):
            quiet = self.world.time - self.last_active_contact
            if active.elapsed < RETURN_AFTER or quiet < RETURN_AFTER:
                return None
        if not self.character.upright:
            return None
        return self.goal if self.goal.precondition(self) is not None else None

    def choose(self, ended: Controller, status: Status) -> Controller:
        """Who takes over from ``ended``: the pool's controller whose pre-condition holds
        at the least cost (DANCE 2.8: post-conditions within pre-conditions)."""
        if ended is self.recovery and status == "succeeded" and self._goal_running():
            return self.goal  # back to what the user asked for (kinematic to kinematic)
        pool: list[Controller] = [FallReflex(), MotorControl(), Limp()]
        if isinstance(ended, Limp | FallReflex) and status == "succeeded":
            recovery = self.recovery_player(ended.elapsed + 1.0)
            if recovery is not None:
                return recovery
        if self._goal_running() and ended is not self.goal:
            pool.append(self.goal)
        costs = [(c.precondition(self), k) for k, c in enumerate(pool)]
        best = min((cost, k) for cost, k in costs if cost is not None)
        return pool[best[1]]

    def recovery_player(self, since: float) -> ClipPlayer | None:
        """The fall-recovery clip from its start (lying to standing), if the library has it;
        what touched the body in the last ``since`` seconds (the fall) is passive to it."""
        from twig.hybrid.library import library_clip

        if self.recovery is None:
            self.recovery = ClipPlayer(library_clip("fall-recovery"), from_start=True)
        self.recovery.played = 0.0
        # What the body fell against and lies by is part of getting up from there (DANCE
        # 2.6): a heavy ball tripped over, touched last as the body rolled off it.
        self.recovery.passive = frozenset(self.world.touched(self.character, within=since))
        return self.recovery

    def _goal_running(self) -> bool:
        return self.goal is not None and self.goal.played < self.goal.length

    def switch(self, new: Controller, why: str) -> None:
        """Hand the character from the active controller to ``new``, with the blend the pair
        of kinds calls for, and report it."""
        old = self.active
        if isinstance(old, MotorControl) and not isinstance(new, MotorControl):
            self.character.go_limp()
        old.stop(self)
        if new.kinematic:
            new.start(self)
            if old.kinematic:
                new.fade = (old, WINDOW_SECONDS)
            else:
                now = self.positions()
                new.offset = OffsetBlend(now - new.target(),
                                         self.velocities() - new.target_velocity(self.world.dt),
                                         heights=now[:, 1])
        else:
            self.release()
            new.start(self)
        self.active = new
        kinds = "->".join("kinematic" if c.kinematic else "dynamic" for c in (old, new))
        self.world.events.emit("controller", agent=self.character.name, controller=new.name,
                               transition=kinds, reason=why)

    # ------------------------------------------------------------------ user instructions
    def play(self, player: ClipPlayer, action: Action) -> Action:
        """Play ``player`` now (user instruction): blended in from whatever has control."""
        self.end_goal(f"replaced by {action.name}", hand_over=False)
        self.goal, self.goal_action = player, action
        self.switch(player, "user instruction")
        return action

    def end_goal(self, reason: str, succeeded: bool = False, hand_over: bool = True) -> None:
        """Forget the user's clip (its action ends) and, if it had the character and
        ``hand_over``, hand over to the best other controller."""
        if self.goal_action is not None:
            if succeeded:
                self.goal_action.succeed()
            else:
                self.goal_action.fail(reason)
        goal, self.goal, self.goal_action = self.goal, None, None
        tracked = isinstance(self.active, Tracking) and self.active.player is goal
        if hand_over and goal is not None and (self.active is goal or tracked):
            self.switch(self.choose(goal, "succeeded"), reason)

    def check_goal(self) -> None:
        """End the user's clip once it has played its length, kinematically or tracked (a
        clip whose end comes while tracking, such as one touching a prop the character
        holds, ends there: it could never bid back, having nothing left to play)."""
        a = self.active
        playing = a is self.goal or (isinstance(a, Tracking) and a.player is self.goal)
        if self.goal is not None and self.goal.played >= self.goal.length and playing:
            self.end_goal(f"{self.goal.name} played", succeeded=True)


class HybridSystem:
    """Every supervisor of one world (``twig.hybrid.system(world)``), run at the start of
    each tick."""

    def __init__(self, world: PhysicsWorld) -> None:
        self.world = world
        self.supervisors: dict[int, Supervisor] = {}
        self.fast = np.zeros(0, dtype=np.int64)
        world.stages.add("hybrid", self.tick)

    def tick(self) -> None:
        w = self.world
        speed2 = np.einsum("ij,ij->i", w.node_pos - w.node_prev, w.node_pos - w.node_prev)
        # Nodes moving faster than 2 m/s: the only ones that can fly at a head.
        self.fast = np.flatnonzero((speed2 > (2.0 * w.dt) ** 2) & (w.node_inv_mass > 0))
        for body_id, sup in list(self.supervisors.items()):
            if not self.world.has_body(body_id):
                del self.supervisors[body_id]
                continue
            sup.tick()


def system(world: PhysicsWorld) -> HybridSystem:
    """The world's hybrid system (made on first use)."""
    return world.hybrid


def supervisor(character: Character) -> Supervisor:
    """The supervisor of ``character`` (made on first use, with twig's motor control in
    charge)."""
    sys = system(character.world)
    sup = sys.supervisors.get(character.id)
    if sup is None:
        sup = sys.supervisors[character.id] = Supervisor(sys, character)
    return sup
