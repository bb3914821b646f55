"""Controllers as black boxes (DANCE section 2.1): kinematic clip playback, dynamic tracking,
protective reflexes and twig's own motor control.

Each controller answers the supervisor's two questions: :meth:`Controller.precondition` ("can
you take the character from here?": a cost, lower is better, or None) and
:meth:`Controller.status` ("operating nominally, succeeded or failed?"); while it has the
character, :meth:`Controller.act` writes this tick's control.

Kinematic controllers drive every node along a pose (set-point moves that arrive next tick
with the pose's true velocity); dynamic ones leave the nodes to the physics and push them with
accelerations (Cartesian forces, as twig's motor layer does, in place of DANCE's joint
torques). The character's own motor control is off (a limp row in the motor table) while a
hybrid controller other than :class:`MotorControl` has it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

import numpy as np

from twig.bodies.frames import pelvis_frame
from twig.hybrid.blend import OffsetBlend, finished, hold_lengths, smoothstep, turned
from twig.hybrid.clip import Clip
from twig.hybrid.retarget import braced_pelvis, rebuild
from twig.hybrid.similarity import heading, root, yaw_matrix
from twig.motor.state import SIT

if TYPE_CHECKING:
    from twig.hybrid.supervisor import Supervisor

Status = Literal["nominal", "succeeded", "failed"]
GRAVITY = np.array([0.0, 9.81, 0.0])

PELVIS, L_SHOULDER, L_ELBOW, L_HAND, R_SHOULDER, R_ELBOW, R_HAND = 3, 4, 5, 6, 7, 8, 9
FEET, HIPS, TRUNK = [12, 15], [10, 13], [2, 3, 10, 13]


class Controller:
    """The interface every controller answers (DANCE 2.1); see the module doc."""

    kinematic = False
    name = "controller"

    def precondition(self, sup: Supervisor) -> float | None:
        """Cost of taking the character from its state now (lower is better), or None."""
        return None

    def start(self, sup: Supervisor) -> None:
        """Take the character (the previous controller has let go)."""

    def act(self, sup: Supervisor) -> None:
        """Write this tick's control."""

    def status(self, sup: Supervisor) -> Status:
        return "nominal"

    def stop(self, sup: Supervisor) -> None:
        """Let go of the character."""


class MotorControl(Controller):
    """Twig's procedural control (Horswill VII: posture, gait, arms): the dynamic controller
    a character falls back to whenever it stands, or sits upright on the ground (a clip that
    ends seated); pre-condition: one of those."""

    name = "motor"

    def precondition(self, sup: Supervisor) -> float | None:
        return 1.0 if sup.character.upright or sup.seated() else None

    def start(self, sup: Supervisor) -> None:
        who = sup.character
        table, row = who.motor_table, who.motor_row
        seated = not who.upright
        who.stand()
        table["heading"][row] = who.heading  # hold the facing it has now
        if seated:  # sit where it is (Horswill VII.B: the pelvis held at its seat)
            table["seat"][row] = who.hips
            table["mode"][row] = SIT

    def status(self, sup: Supervisor) -> Status:
        who = sup.character
        busy = bool(who.actions)  # sitting down, standing up: the motor layer's own business
        return "nominal" if busy or who.upright or sup.seated() else "failed"


class ClipPlayer(Controller):
    """Plays a clip kinematically, its root and facing aligned to where the character is
    (DANCE 2.3).

    Parameters
    ----------
    clip
        The motion (fitted to the character's build when it starts).
    threshold
        The similarity (eq. 1, metres) under which it bids for control.
    passive
        Names of objects whose contact is part of this motion (the ball a kick hits): they
        do not switch the character to physics (DANCE 2.6). The ground is always passive.
    loops
        Times to play it (0: until stopped); ``seconds`` > 0 plays that long instead.
    from_start
        Start at the first frame rather than the one most like the character's pose.
    """

    kinematic = True

    def __init__(self, clip: Clip, threshold: float = 0.25, passive: tuple[str, ...] = (),
                 loops: int = 1, seconds: float = 0.0, from_start: bool = False) -> None:
        self.source = clip
        self.clip = clip
        self.name = f"clip {clip.name}"
        self.threshold = threshold
        self.passive = frozenset(passive)
        self.length = seconds if seconds > 0 else (loops * clip.duration if loops else math.inf)
        self.from_start = from_start
        self.t = 0.0          # clip time, s
        self.played = 0.0     # seconds of this motion played (kinematically or tracked)
        self.turn = 0.0       # clip space -> world: rotate by turn about +y, then add shift
        self.shift = np.zeros(3)
        self.offset: OffsetBlend | None = None
        self.fade: tuple[ClipPlayer, float] | None = None  # (old player, fade clock)
        self.blend_t = 0.0

    def fitted(self, sup: Supervisor) -> Clip:
        if self.clip is self.source:
            self.clip = self.source.fit(sup.height, sup.preset)
        return self.clip

    def match(self, sup: Supervisor) -> tuple[int, float]:
        """The clip frame most like the character now, and its similarity (eq. 1)."""
        return self.fitted(sup).best_frame(sup.positions(), sup.velocities())

    def precondition(self, sup: Supervisor) -> float | None:
        if self.played >= self.length:
            return None
        _, s = self.match(sup)
        return s if s < self.threshold else None

    def align(self, sup: Supervisor, frame: int) -> None:
        """Map the clip so that ``frame``'s root and facing are the character's now: the
        facing of the hips, or, lying, of the trunk if that puts the clip's nodes nearer the
        character's (a body lying on its front, turned to a clip lying on its back by the
        hips, had the clip's head on the far side of the hips: the blend swung it through
        them, 1 m in a frame)."""
        clip = self.fitted(sup)
        pose = clip.nodes[frame]
        now = sup.positions()
        turns = [float(heading(now) - heading(pose))]
        if _trunk(now)[1] < 0.5 and _trunk(pose)[1] < 0.5:  # both lying
            turns.append(float(_trunk_heading(now) - _trunk_heading(pose)))
        self.turn = min(turns, key=lambda turn: _misfit(now, pose, turn))
        self.shift = root(now) - yaw_matrix(self.turn) @ root(pose)
        self.t = frame / clip.fps

    def start(self, sup: Supervisor) -> None:
        frame = 0 if self.from_start else self.match(sup)[0]
        self.align(sup, frame)
        self.blend_t = 0.0

    def target(self, t: float | None = None) -> np.ndarray:
        """Where the clip puts the nodes (16, 3) at clip time ``t`` (default now), world."""
        p = self.clip.pose(self.t if t is None else t)
        return p @ yaw_matrix(self.turn).T + self.shift

    def target_velocity(self, dt: float) -> np.ndarray:
        return (self.target(self.t + dt) - self.target(self.t - dt)) / (2.0 * dt)

    def advance(self, dt: float) -> None:
        self.t += dt
        self.played += dt

    def pose_now(self, dt: float) -> np.ndarray:
        """This tick's pose: the clip, through any blend still running. A blend turns each
        bone (and the hip line) from its direction on the side blended from toward the
        clip's, by the blend's weight (:func:`~twig.hybrid.blend.turned`), and builds the
        pose from the blended hips outward at the clip's bone lengths
        (:func:`~twig.hybrid.retarget.rebuild`), every rigid link, braces included, then held
        at its length in the clip (:func:`~twig.hybrid.blend.hold_lengths`); no node is
        blended below both the height it started from and the clip's. (Mixing the nodes'
        positions shortened a limb turning between the two poses, and one pointing opposite
        ways in them swung through its joint.) The pelvis keeps its offset from where the
        bracing holds it on the side blended from, fading with the blend: the braced torso is
        flat, so a simulated figure's pelvis sways 1-2 cm forward and back at its links'
        lengths, and re-bracing it at once was a jump of up to 0.9 m/s on the first tick."""
        clip = self.target()
        p = clip
        if self.offset is not None:
            blend, t = self.offset, self.blend_t
            root = _hips(clip + blend.offset(t))
            side = clip + blend.start(t)
            p = rebuild(turned(side, clip, blend.weight(t))[None], clip, root[None])[0]
            p[PELVIS] += (1.0 - blend.weight(t)) * (side[PELVIS]
                                                    - braced_pelvis(side[None], clip)[0])
            p[:, 1] = np.maximum(p[:, 1], np.minimum(clip[:, 1], blend.heights))
            if blend.done(t):
                self.offset = None
        if self.fade is not None:
            old, seconds = self.fade
            old.advance(dt)
            w = smoothstep(self.blend_t / seconds)
            was = old.pose_now(dt)
            root = (1.0 - w) * _hips(was) + w * _hips(p)
            p = rebuild(turned(was, p, w)[None], clip, root[None])[0]
            if finished(self.blend_t, seconds):
                self.fade = None
        if p is clip:
            return p
        return hold_lengths(p, clip)

    def act(self, sup: Supervisor) -> None:
        dt = sup.world.dt
        self.advance(dt)
        self.blend_t += dt
        sup.drive(self.pose_now(dt))

    def status(self, sup: Supervisor) -> Status:
        return "succeeded" if self.played >= self.length else "nominal"


class Tracking(Controller):
    """Dynamic tracking of a clip (DANCE 2.6.1): the nodes are free and pushed toward the
    clip's pose, so that small interaction forces perturb the motion instead of switching it
    off; the motion's clock runs on.

    The push is a spring and damper per node toward the clip (``K``, ``D``). While balanced
    (a foot on the ground, the torso within ``UPRIGHT_DEG`` of vertical) it tracks the clip
    where it is, its net part limited like the support a pair of feet can give (weight, and
    up to ``A_SUPPORT`` horizontally). Out of balance only the clip's shape is tracked, turned
    onto the body as it lies (no net force, no net torque: muscles alone cannot right a
    falling body), so a trip or a hard push makes the character fall (status ``failed``) and
    a small one is absorbed.

    A walker whose shin an active object touched (in the last ``CAUGHT_SECONDS``) and whose
    swinging foot (the clip moves it faster than ``SWING`` m/s per adult metre) is then held
    ``CAUGHT`` metres (per adult metre) off where the clip puts it, relative to its trunk, has
    *tripped* (:attr:`tripped`; only while the clip stands): the foot that
    should land ahead to catch the body is caught, and the status is ``failed`` at once. (Tracked
    on, the stiff walking shape propped the walker on its knees against the ball it tripped on,
    squatting there for 1.4 s before it fell.)
    """

    kinematic = False
    K, D = 120.0, 22.0          # 1/s^2, 1/s
    A_SUPPORT = 2.0             # m/s^2
    UPRIGHT_DEG = 15.0
    CAUGHT = 0.1                # m per adult m
    CAUGHT_SECONDS = 0.25       # s
    STANDING = 0.8              # of the leg's length
    SWING = 0.5                 # m/s per adult m

    def __init__(self, player: ClipPlayer) -> None:
        self.player = player
        self.name = f"tracking {player.clip.name}"
        self.elapsed = 0.0
        self.tripped = False

    def start(self, sup: Supervisor) -> None:
        self.elapsed = 0.0
        self.tripped = False
        self.player.offset = self.player.fade = None

    def act(self, sup: Supervisor) -> None:
        sup.push(self.accelerations(sup))

    def accelerations(self, sup: Supervisor) -> np.ndarray:
        """Advance the clip one tick and return the push (16, 3), m/s^2."""
        dt = sup.world.dt
        self.elapsed += dt
        p = self.player
        pos, vel, mass = sup.positions(), sup.velocities(), sup.masses()
        # The nodes are where the clip was at its clock's time (they were driven or tracked
        # to it last tick): compare them with the clip then, so that on the first tick after a
        # hand-over there is nothing to correct and every node goes on as it was moving.
        target, target_vel = p.target(), p.target_velocity(dt)
        p.advance(dt)
        if not self.tripped and sup.world.time - sup.last_shin_contact < self.CAUGHT_SECONDS \
                and target[HIPS, 1].mean() > self.STANDING * sup.leg:
            self.tripped = _feet_off(target, pos, mass, target_vel,
                                     self.SWING * sup.scale) > self.CAUGHT * sup.scale
        balanced = sup.supported() and sup.tilt_deg() < self.UPRIGHT_DEG
        if not balanced:  # only the pose's shape: the clip turned onto the body as it is
            target = _onto(target, pos, mass)
            target_vel = np.broadcast_to(_mean(vel, mass), vel.shape)
        acc = self.K * (target - pos) + self.D * (target_vel - vel)
        net = _mean(acc, mass)
        if not balanced:
            return acc - net
        h = math.hypot(net[0], net[2])
        scale = min(1.0, self.A_SUPPORT / h) if h > 0 else 1.0
        support = np.array([net[0] * scale, min(max(net[1] + GRAVITY[1], 0.0),
                                                2.0 * GRAVITY[1]), net[2] * scale])
        return acc - net + support

    def status(self, sup: Supervisor) -> Status:
        down = sup.lying() and self.elapsed > 1.0  # pinned down: let the body settle
        return "failed" if sup.falling() or down else "nominal"


def _hips(pos: np.ndarray) -> np.ndarray:
    """The point (3,) between the hip nodes of a pose (16, 3)."""
    return 0.5 * (pos[HIPS[0]] + pos[HIPS[1]])


def _trunk(pos: np.ndarray) -> np.ndarray:
    """The unit direction (3,) from the pelvis to the neck of a pose (16, 3)."""
    t = pos[1] - pos[3]
    return t / max(float(np.linalg.norm(t)), 1e-9)


def _trunk_heading(pos: np.ndarray) -> float:
    """The heading (rad about +y, 0 along +z) of a lying pose's trunk, pelvis to neck."""
    t = pos[1] - pos[3]
    return math.atan2(t[0], t[2])


def _misfit(now: np.ndarray, pose: np.ndarray, turn: float) -> float:
    """Sum of squared distances (m^2) between ``now`` and ``pose`` turned by ``turn`` about
    +y with the roots together."""
    r = yaw_matrix(turn)
    placed = (pose - root(pose)) @ r.T + root(now)
    return float(((placed - now) ** 2).sum())


def _mean(v: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """Mass-weighted mean (3,) of per-node vectors (16, 3)."""
    return (mass[:, None] * v).sum(axis=0) / mass.sum()


def _onto(pose: np.ndarray, body: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """``pose`` (16, 3) rotated and moved to fit ``body`` best (mass-weighted Kabsch): its
    shape where the body is, however the body is turned or tipped."""
    return _onto_nodes(pose, body, mass, slice(None))


def _onto_nodes(pose: np.ndarray, body: np.ndarray, mass: np.ndarray,
                fit: slice | list[int]) -> np.ndarray:
    """``pose`` (16, 3) rotated and moved so that its nodes ``fit`` (an index) fit the body's
    best (mass-weighted Kabsch)."""
    m = mass[fit]
    cp, cb = _mean(pose[fit], m), _mean(body[fit], m)
    h = ((pose[fit] - cp) * m[:, None]).T @ (body[fit] - cb)
    u, _, vt = np.linalg.svd(h)
    d = np.sign(np.linalg.det(vt.T @ u.T))
    rot = vt.T @ np.diag([1.0, 1.0, d]) @ u.T
    return (pose - cp) @ rot.T + cb


def _feet_off(pose: np.ndarray, body: np.ndarray, mass: np.ndarray, pose_vel: np.ndarray,
              swing: float) -> float:
    """How far (m) the body's swinging feet are from where ``pose`` (16, 3) puts them
    relative to its trunk (``pose`` fitted onto the body's chest, pelvis and hips): the most
    of the feet the clip moves faster than ``swing`` (m/s, ``pose_vel`` (16, 3)) across the
    ground, 0 if none. A planted foot cannot be caught: a prop dropped on the feet of a
    character waving on the spot is no trip."""
    fit = _onto_nodes(pose, body, mass, TRUNK)
    moving = np.hypot(pose_vel[FEET, 0], pose_vel[FEET, 2]) > swing
    off = np.linalg.norm(fit[FEET] - body[FEET], axis=1)
    return float(np.where(moving, off, 0.0).max())


def tipping(pos: np.ndarray) -> np.ndarray:
    """The horizontal unit direction (3,) a figure with nodes ``pos`` (16, 3) tips toward:
    from between its feet to its chest (forward if it is upright)."""
    way = pos[2] - 0.5 * (pos[12] + pos[15])
    way[1] = 0.0
    n = float(np.linalg.norm(way))
    if n < 1e-6:
        across = pos[10] - pos[13]
        way, n = np.array([-across[2], 0.0, across[0]]), float(np.hypot(across[0], across[2]))
    return way / max(n, 1e-9)


class FallReflex(Controller):
    """Protective reflex when falling (DANCE 2.6, Fig. 2): the body goes with the fall and
    the hands reach out toward the ground ahead, the way the body tips, to cushion it, until
    the body is down (held out on the ground, they propped the fallen walker up and kept it
    struggling for 4 s). Pre-condition: falling. Succeeds lying still on the ground."""

    kinematic = False
    name = "reflex fall"
    K, D = 400.0, 30.0

    def __init__(self) -> None:
        self.elapsed = 0.0
        self.still = 0.0

    def precondition(self, sup: Supervisor) -> float | None:
        return 0.0 if sup.falling() else None

    def start(self, sup: Supervisor) -> None:
        self.elapsed = self.still = 0.0

    def act(self, sup: Supervisor) -> None:
        dt = sup.world.dt
        self.elapsed += dt
        pos, vel = sup.positions(), sup.velocities()
        ahead = tipping(pos)
        reach = sup.arm_length
        radius = sup.world.nodes["radius"][sup.nodes]
        acc = np.zeros((16, 3))
        for shoulder, elbow, hand in ((L_SHOULDER, L_ELBOW, L_HAND),
                                      (R_SHOULDER, R_ELBOW, R_HAND)):
            if sup.lying():
                break  # down: the arms have done their work and go with the body
            goal = pos[shoulder] + 0.9 * reach * (0.6 * ahead + np.array([0.0, -0.8, 0.0]))
            goal[1] = max(goal[1], radius[hand])  # on the ground, not into it
            acc[hand] = self.K * (goal - pos[hand]) - self.D * vel[hand]
            mid = 0.5 * (pos[shoulder] + goal)
            acc[elbow] = 0.5 * (self.K * (mid - pos[elbow]) - self.D * vel[elbow])
        sup.push(acc)
        moving = float(np.abs(vel).max())
        self.still = self.still + dt if moving < 0.6 and sup.lying() else 0.0

    def status(self, sup: Supervisor) -> Status:
        return "succeeded" if self.still > 0.3 or self.elapsed > 5.0 else "nominal"


class GuardReflex(Tracking):
    """Protective reflex against something flying at the head (DANCE 2.6): it interrupts a
    kinematic controller; the body keeps tracking the clip dynamically while both hands come
    up in front of the face; succeeds after :data:`SECONDS`."""

    SECONDS = 0.6
    K_ARM, D_ARM = 500.0, 35.0

    def __init__(self, player: ClipPlayer) -> None:
        super().__init__(player)
        self.name = "reflex guard"

    def act(self, sup: Supervisor) -> None:
        acc = self.accelerations(sup)
        pos, vel = sup.positions(), sup.velocities()
        frame = pelvis_frame(sup.character)
        face = pos[0] + 0.25 * sup.scale * frame.forward
        for k, (elbow, hand) in enumerate(((L_ELBOW, L_HAND), (R_ELBOW, R_HAND))):
            side = (1 - 2 * k) * 0.08 * sup.scale * -frame.right
            goal = face + side
            acc[hand] = self.K_ARM * (goal - pos[hand]) - self.D_ARM * vel[hand]
            below = goal - np.array([0.0, 0.2 * sup.scale, 0.0]) - 0.1 * frame.forward
            acc[elbow] = 0.5 * (self.K_ARM * (below - pos[elbow]) - self.D_ARM * vel[elbow])
        sup.push(acc)

    def status(self, sup: Supervisor) -> Status:
        if sup.falling():
            return "failed"
        return "succeeded" if self.elapsed >= self.SECONDS else "nominal"
