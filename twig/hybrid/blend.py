"""Blends between controllers (DANCE sections 2.5 and 2.7): 0.5 s, no pop.

Dynamic to kinematic: "we blend the current state of the character to the new state dictated
by the kinematic controller. Blending occurs over a short period of time (.5 seconds) and can
be done either through linear interpolation of the difference between keyframes or via
splines." Here the difference between the character and the clip at the switch (position and
velocity, per node) decays to zero along a cubic Hermite spline: it starts with the character's
own position and velocity, so nothing jumps, and ends on the clip with zero slope.

Kinematic to kinematic: "we blend the motions over a window of 15 frames based on a 30 frames
per second sampling rate": both clips play through the window and the weight of the new one
rises smoothly (smoothstep) from 0 to 1.

Kinematic to dynamic (DANCE 2.6) keeps every node's velocity, but a clip's pose need not hold
the figure's links (:class:`LinkSettle`): they relax to their rest lengths over the same 0.5 s.
"""

from __future__ import annotations

import numpy as np

from twig.bodies.humanoid import BRACES, LINKS, NODE_NAMES
from twig.hybrid.retarget import BONES

BLEND_SECONDS = 0.5
"""Dynamic to kinematic blend, seconds (DANCE 2.5)."""
WINDOW_FRAMES, WINDOW_FPS = 15, 30.0
"""Kinematic to kinematic blend window: 15 frames at 30 frames per second (DANCE 2.7)."""
WINDOW_SECONDS = WINDOW_FRAMES / WINDOW_FPS


RIGID = np.array([(NODE_NAMES.index(a), NODE_NAMES.index(b))
                  for a, b in (*LINKS.values(), *BRACES.values())])
"""(L, 2) the humanoid's rigid links, bones and braces, as node indices (NODE_NAMES order)."""
HOLD_ITERATIONS = 12
"""Gauss-Seidel sweeps of :func:`hold_lengths`."""
_L_HIP, _R_HIP = NODE_NAMES.index("l_hip"), NODE_NAMES.index("r_hip")
_HIPS = len(NODE_NAMES)
"""Index of the hips' centre appended after the nodes (:func:`turned`)."""


def hold_lengths(pose: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``pose`` (16, 3), m, projected onto the lengths its rigid links (:data:`RIGID`, the
    braces as well as the bones) have in ``like`` (16, 3): equal-mass distance projections,
    Horswill eq. 3, :data:`HOLD_ITERATIONS` sweeps. A blend between poses turned far apart
    (a figure lying on its front blended into a clip that starts on its back) twists the
    shoulder girdle and stretched a chest-shoulder brace by 44 % though every bone held."""
    out = pose.copy()
    rest = np.linalg.norm(like[RIGID[:, 0]] - like[RIGID[:, 1]], axis=1)
    for _ in range(HOLD_ITERATIONS):
        for (a, b), length in zip(RIGID.tolist(), rest.tolist(), strict=True):
            d = out[b] - out[a]
            n = float(np.sqrt(d @ d))
            if n > 1e-12:
                fix = (0.5 * (n - length) / n) * d
                out[a] += fix
                out[b] -= fix
    return out


def slerp(a: np.ndarray, b: np.ndarray, w: float) -> np.ndarray:
    """Unit vectors (n, 3): the unit vectors ``a`` (n, 3) turned toward ``b`` (n, 3) by the
    fraction ``w`` of the angle between them, about their common normal (about any normal of
    ``a`` where they are opposite)."""
    cos = np.clip(np.einsum("ij,ij->i", a, b), -1.0, 1.0)
    angle = np.arccos(cos)
    axis = np.cross(a, b)
    n = np.linalg.norm(axis, axis=1)
    bent = n < 1e-9
    if bent.any():  # parallel or opposite: any normal of a (along x, else along z)
        other = np.where(np.abs(a[bent, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 0.0, 1.0]])
        axis[bent] = np.cross(a[bent], other)
        n[bent] = np.linalg.norm(axis[bent], axis=1)
    axis /= n[:, None]
    turn = w * angle
    c, s = np.cos(turn)[:, None], np.sin(turn)[:, None]
    return a * c + np.cross(axis, a) * s + axis * np.einsum("ij,ij->i", axis, a)[:, None] * (1 - c)


def turned(source: np.ndarray, target: np.ndarray, w: float) -> np.ndarray:
    """A pose (16, 3) whose hip line and bones (:data:`~twig.hybrid.retarget.BONES`) point
    the way ``source``'s (16, 3) do turned toward ``target``'s by the fraction ``w`` of the
    angle between them (:func:`slerp`), each a unit long from the hips' centre at the origin:
    directions for :func:`~twig.hybrid.retarget.rebuild`, which gives them their lengths.

    Blending the nodes' positions instead swings a limb that points opposite ways in the two
    poses through its joint: a fallen partner's forearm, blended into the recovery clip, flipped
    over its elbow in two ticks (the hand at 20 m/s) as the blended hand passed the elbow."""
    ends = [(_HIPS if a == "hips" else NODE_NAMES.index(a), NODE_NAMES.index(b))
            for a, b in BONES]
    pairs = [(NODE_NAMES.index("r_hip"), NODE_NAMES.index("l_hip")), *ends]

    def directions(pose: np.ndarray) -> np.ndarray:
        mid = 0.5 * (pose[_L_HIP] + pose[_R_HIP])
        at = np.vstack([pose, mid[None]])
        d = np.array([at[b] - at[a] for a, b in pairs])
        return d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)

    dirs = slerp(directions(source), directions(target), w)
    out = np.zeros((17, 3))
    out[_L_HIP], out[_R_HIP] = 0.5 * dirs[0], -0.5 * dirs[0]
    for (a, b), d in zip(ends, dirs[1:], strict=True):
        out[b] = out[a] + d
    return out[:16]


def finished(t: float, seconds: float) -> bool:
    """Whether a blend of ``seconds`` is over ``t`` s after it began. The tolerance absorbs
    the rounding of a clock that adds up ticks (30 ticks of 1/60 s make 0.49999999999999994)."""
    return t >= seconds * (1.0 - 1e-9)


def smoothstep(u: float) -> float:
    """``3u^2 - 2u^3`` for u clamped to [0, 1]: 0 to 1 with zero slope at both ends."""
    u = min(max(u, 0.0), 1.0)
    return u * u * (3.0 - 2.0 * u)


class OffsetBlend:
    """A per-node offset that decays from (``d0``, ``v0``) to zero over ``seconds``.

    ``d0`` (n, 3) metres and ``v0`` (n, 3) m/s are the character's position and velocity
    minus the clip's at the switch; :meth:`offset` is the cubic Hermite curve
    ``h(u) = H00(u) d0 + H10(u) T v0`` (T = ``seconds``), which has value ``d0`` and slope
    ``v0`` at the start and value and slope zero at the end.
    """

    def __init__(self, d0: np.ndarray, v0: np.ndarray, seconds: float = BLEND_SECONDS,
                 heights: np.ndarray | None = None) -> None:
        self.d0 = np.array(d0, dtype=np.float64)
        self.v0 = np.array(v0, dtype=np.float64)
        self.seconds = seconds
        self.heights = np.full(len(self.d0), -np.inf) if heights is None \
            else np.array(heights, dtype=np.float64)
        """(n,) the nodes' heights at the switch, m (a blend takes no node below both this
        and where the clip has it)."""

    def offset(self, t: float) -> np.ndarray:
        """The offset (n, 3) ``t`` seconds after the switch (zero from ``seconds`` on)."""
        return (1.0 - self.weight(t)) * self.start(t)

    def weight(self, t: float) -> float:
        """The clip's share ``1 - H00(u) = smoothstep(u)`` ``t`` seconds after the switch."""
        return smoothstep(t / self.seconds)

    def start(self, t: float) -> np.ndarray:
        """Where the character's side of the blend is (n, 3), relative to the clip, ``t``
        seconds after the switch: ``d0 + T u / (1 + 2 u) v0``, since ``H10 = H00 u / (1 + 2 u)``
        (so :meth:`offset` is ``H00`` times this: a blend of the two sides by
        :meth:`weight`)."""
        u = min(max(t / self.seconds, 0.0), 1.0)
        return self.d0 + (self.seconds * u / (1.0 + 2.0 * u)) * self.v0

    def done(self, t: float) -> bool:
        return finished(t, self.seconds)


class LinkSettle:
    """A figure's rigid links relaxing from the lengths a clip gave them to their rest
    lengths, after a kinematic to dynamic switch (DANCE 2.6).

    A clip drives every node, so its pose need not hold the figure's links: the library's
    clips breathe (the shoulders rise on their braces, as twig's respiration makes them) and
    linear interpolation between frames shortens a swinging limb by a millimetre or two. The
    physics would snap each link back within the first tick, a velocity jump of (length
    error) / dt: about 0.3 m/s at the shoulders for the walk's 6 mm breath. Instead each link
    starts at its length in the pose and returns to ``rest`` along smoothstep over
    ``seconds``, so the pose settles with no jump in any node's velocity. A length that
    another system sets meanwhile (twig's respiration actuates the shoulder braces each tick
    once motor control is back) becomes the one settled to.

    Parameters
    ----------
    world
        The physics world (a :class:`~twig.physics.PhysicsWorld`).
    ids : (L,) int64
        Permanent ids of the rigid links (rows move when other bodies go).
    rest : (L,) float64
        Lengths to settle to, metres.
    seconds
        How long the settling takes, s.
    """

    def __init__(self, world, ids: np.ndarray, rest: np.ndarray,
                 seconds: float = BLEND_SECONDS) -> None:
        self.ids = np.asarray(ids, dtype=np.int64)
        self.rest = np.array(rest, dtype=np.float64)
        a, b = world.link_nodes[world.link_rows(self.ids)].T
        self.start = np.linalg.norm(world.node_pos[a] - world.node_pos[b], axis=1)
        self.seconds = seconds
        self.t = 0.0
        self.written: np.ndarray | None = None

    def step(self, world) -> bool:
        """Set this tick's rest lengths (the pose's own on the first tick); False once the
        links are back at ``rest``."""
        rows = world.link_rows(self.ids)
        if self.written is not None:
            now = world.link_min[rows]
            self.rest = np.where(now != self.written, now, self.rest)
        w = smoothstep(self.t / self.seconds)
        self.written = self.start + w * (self.rest - self.start)
        world.set_link_rest(rows, self.written)
        self.t += world.dt
        return w < 1.0
