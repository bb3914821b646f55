"""A joint skeleton for the 16-node humanoid, posed from node positions.

Horswill 2009, section X: "it would be straightforward to compute bone transformations for a
rigged mesh from the character's node positions". The skeleton is rooted between the hips and
named as motion-capture tools expect (Hips, Spine, Chest, Neck, Head, LeftShoulder, LeftArm,
LeftForeArm, LeftHand, LeftUpLeg, LeftLeg, LeftFoot and the Right side). Its rest pose is the
humanoid's standing build pose facing +z. Every joint sits on a node, except Hips, which sits
between the hip nodes so that the hip line carries its bones exactly; Spine sits on the pelvis
node (the sacrum, above the hips), so that a file carries all 16 nodes, and the collar joints
(LeftShoulder, RightShoulder) sit on the neck node. The pelvis bracing holds the pelvis node
still in the frame of Hips (the hip line, turned towards the pelvis node), so even a rigid
skeleton has it within the braces' stretch.

Each bone's orientation is read off the nodes with cross products and normalisations
(Jakobsen 2001, section 6): the bone axis is its link, exactly, and the twist about it comes
from the body (the hip line for the pelvis, the shoulder line for the chest) or, for limbs,
from the plane of the limb where the elbow or knee bends, turning from one bend to the next
while the limb is nearly straight, so that limbs do not flip or spin. Each joint's offset from
its parent is read off the nodes too, so that a skeleton whose offsets may change (BVH
position channels, glTF translations) puts every joint on its point however the links
stretch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from twig.bodies.humanoid import NODE_NAMES, add_humanoid
from twig.export.rotations import basis, carried_twist, settled_twist, unit
from twig.physics import PhysicsWorld

POINTS = (*NODE_NAMES, "hips")
"""The points joints sit on: the 16 nodes, then ``hips``, halfway between the hip nodes."""
_N = {name: i for i, name in enumerate(POINTS)}

JOINTS = (
    # name, parent, the point it sits on, bone axis (from, to), twist
    ("Hips", None, "hips", ("r_hip", "l_hip"), ("hips", "pelvis")),
    ("Spine", "Hips", "pelvis", ("pelvis", "chest"), ("r_hip", "l_hip")),
    ("Chest", "Spine", "chest", ("chest", "neck"), ("r_shoulder", "l_shoulder")),
    ("Neck", "Chest", "neck", ("neck", "head"), "neck"),
    ("Head", "Neck", "head", ("neck", "head"), "neck"),
    ("LeftShoulder", "Chest", "neck", ("neck", "l_shoulder"), ("chest", "neck")),
    ("LeftArm", "LeftShoulder", "l_shoulder", ("l_shoulder", "l_elbow"), "l_arm"),
    ("LeftForeArm", "LeftArm", "l_elbow", ("l_elbow", "l_hand"), "l_arm"),
    ("LeftHand", "LeftForeArm", "l_hand", ("l_elbow", "l_hand"), "l_arm"),
    ("RightShoulder", "Chest", "neck", ("neck", "r_shoulder"), ("chest", "neck")),
    ("RightArm", "RightShoulder", "r_shoulder", ("r_shoulder", "r_elbow"), "r_arm"),
    ("RightForeArm", "RightArm", "r_elbow", ("r_elbow", "r_hand"), "r_arm"),
    ("RightHand", "RightForeArm", "r_hand", ("r_elbow", "r_hand"), "r_arm"),
    ("LeftUpLeg", "Hips", "l_hip", ("l_hip", "l_knee"), "l_leg"),
    ("LeftLeg", "LeftUpLeg", "l_knee", ("l_knee", "l_foot"), "l_leg"),
    ("LeftFoot", "LeftLeg", "l_foot", ("l_knee", "l_foot"), "l_leg"),
    ("RightUpLeg", "Hips", "r_hip", ("r_hip", "r_knee"), "r_leg"),
    ("RightLeg", "RightUpLeg", "r_knee", ("r_knee", "r_foot"), "r_leg"),
    ("RightFoot", "RightLeg", "r_foot", ("r_knee", "r_foot"), "r_leg"),
)
"""The joint hierarchy, depth first. Each joint's first child lies along its bone axis, so
a rotation that carries the axis exactly puts the child on its point up to the link's stretch.
A twist given as a pair of points is a body direction; a name is a chain of :data:`CHAINS`
(hand, foot and head keep their parent bone's orientation)."""

JOINT_NAMES = tuple(j[0] for j in JOINTS)

CHAINS = {
    # chain: (bone from, bone to, end of the bend or None, parent joint, body reference)
    "neck": ("neck", "head", None, "Chest", ("r_shoulder", "l_shoulder")),
    "l_arm": ("l_shoulder", "l_elbow", "l_hand", "LeftShoulder", ("r_shoulder", "l_shoulder")),
    "r_arm": ("r_shoulder", "r_elbow", "r_hand", "RightShoulder", ("r_shoulder", "l_shoulder")),
    "l_leg": ("l_hip", "l_knee", "l_foot", "Hips", ("r_hip", "l_hip")),
    "r_leg": ("r_hip", "r_knee", "r_foot", "Hips", ("r_hip", "l_hip")),
}
"""Bones whose twist is carried over time: the limbs bend like a hinge at the elbow or knee
and their twist follows the plane of the bend; the neck is a ball joint whose twist is only
carried along with the chest."""

BEND_BLEND = 0.03
"""In choosing the sign of a limb's bend normal: below a bend of about 10 degrees (sin^2 =
0.03) the twist it is compared with comes more from the previous frame than from the plane
of its bend, which vanishes when the limb is straight."""

TWIST_SETTLE = 0.01
"""Seconds a fully bent limb's twist takes to follow the plane of its bend (1/sin(bend)
times longer for a limb bent less), see :func:`chain_twists`."""

FRAME_TIME = 1.0 / 60.0
"""Seconds between frames unless told otherwise: twig's tick, at which a world records."""

END_SITES = {"Head": (0.0, 0.065, 0.0), "LeftHand": "hand", "RightHand": "hand",
             "LeftFoot": (0.0, -0.02, 0.11), "RightFoot": (0.0, -0.02, 0.11)}
"""End-site offsets as fractions of height in the rest frame (+z forward): the top of the
head, the toes; ``"hand"`` continues the forearm by a hand length (0.1 of height)."""

LINK_PIECES = {
    ("pelvis", "chest"): (("pelvis", "chest", "Spine"),),
    ("chest", "neck"): (("chest", "neck", "Chest"),),
    ("neck", "head"): (("neck", "head", "Neck"),),
    ("l_shoulder", "r_shoulder"): (("neck", "l_shoulder", "LeftShoulder"),
                                   ("neck", "r_shoulder", "RightShoulder")),
    ("l_hip", "r_hip"): (("l_hip", "r_hip", "Hips"),),
    ("l_shoulder", "l_elbow"): (("l_shoulder", "l_elbow", "LeftArm"),),
    ("l_elbow", "l_hand"): (("l_elbow", "l_hand", "LeftForeArm"),),
    ("r_shoulder", "r_elbow"): (("r_shoulder", "r_elbow", "RightArm"),),
    ("r_elbow", "r_hand"): (("r_elbow", "r_hand", "RightForeArm"),),
    ("l_hip", "l_knee"): (("l_hip", "l_knee", "LeftUpLeg"),),
    ("l_knee", "l_foot"): (("l_knee", "l_foot", "LeftLeg"),),
    ("r_hip", "r_knee"): (("r_hip", "r_knee", "RightUpLeg"),),
    ("r_knee", "r_foot"): (("r_knee", "r_foot", "RightLeg"),),
}
"""How a skinned mesh draws each visible link's capsule: as pieces (from point, to point,
joint) that each lie along their joint's bone, so they follow it exactly (the shoulder line
is two collar bones from the neck)."""

NODE_JOINT = {j[2]: j[0] for j in reversed(JOINTS)}
"""The joint that carries a volume on a single node (the first joint sitting on it)."""


@dataclass(frozen=True)
class Skeleton:
    """A humanoid's joints in its rest pose (metres, y up, facing +z, feet at the origin).

    ``nodes`` (16, 3) the rest positions of the humanoid's nodes; ``parents`` (J,) index of
    each joint's parent (-1 for Hips); ``rest`` (J, 3) joint positions; ``offsets`` (J, 3)
    position relative to the parent (the root's is zero); ``rest_frames`` (J, 3, 3) the bone
    frames of the rest pose; ``end_sites`` joint index -> (3,) offset of the bone's tip, for
    joints without children.
    """

    nodes: np.ndarray
    parents: np.ndarray
    rest: np.ndarray
    offsets: np.ndarray
    rest_frames: np.ndarray
    end_sites: dict[int, np.ndarray]

    names = JOINT_NAMES


@dataclass(frozen=True)
class Pose:
    """A skeleton posed over F frames.

    ``world`` and ``local`` (F, J, 3, 3) joint rotations in the world and relative to the
    parent; ``offsets`` (F, J, 3) metres, each joint's position relative to its parent in the
    parent's rotated frame (``R_parent^T (p - p_parent)``; the root's: its world position),
    which is the skeleton's rest offset wherever the links between the joints' points hold
    their rest lengths.
    """

    world: np.ndarray
    local: np.ndarray
    offsets: np.ndarray

    @property
    def root(self) -> np.ndarray:
        """(F, 3) the Hips position, metres."""
        return self.offsets[:, 0]


def _parents() -> np.ndarray:
    index = {name: i for i, name in enumerate(JOINT_NAMES)}
    return np.array([-1 if j[1] is None else index[j[1]] for j in JOINTS])


def points(nodes: np.ndarray) -> np.ndarray:
    """(F, 17, 3) positions of :data:`POINTS` from humanoid nodes (F, 16, 3)."""
    hips = 0.5 * (nodes[:, _N["l_hip"]] + nodes[:, _N["r_hip"]])
    return np.concatenate([nodes, hips[:, None]], axis=1)


def joint_positions(nodes: np.ndarray) -> np.ndarray:
    """(F, J, 3) where the joints sit on humanoid nodes (F, 16, 3), metres."""
    return points(nodes)[:, [_N[j[2]] for j in JOINTS]]


def rest_skeleton(height: float, preset: str = "adult") -> Skeleton:
    """The skeleton of a humanoid built with ``height`` (m) and ``preset``, from a fresh build
    of its standing pose (so it stays the pose :func:`twig.bodies.humanoid.add_humanoid`
    makes)."""
    scratch = PhysicsWorld(ground=False)
    body = add_humanoid(scratch, "rest", (0.0, 0.0, 0.0), preset=preset, height=height)
    nodes = scratch.node_pos[body.nodes][None]
    parents = _parents()
    rest = joint_positions(nodes)[0]
    offsets = np.where((parents >= 0)[:, None], rest - rest[np.maximum(parents, 0)], 0.0)
    ends = {}
    for name, site in END_SITES.items():
        i = JOINT_NAMES.index(name)
        if site == "hand":
            forearm = rest[i] - rest[parents[i]]
            ends[i] = 0.1 * height * forearm / np.linalg.norm(forearm)
        else:
            ends[i] = np.array(site) * height
    frames = bone_frames(nodes)[0]
    return Skeleton(nodes[0], parents, rest, offsets, frames, ends)


def pose(skeleton: Skeleton, nodes: np.ndarray, frame_time: float = FRAME_TIME) -> Pose:
    """Pose ``skeleton`` on node positions ``nodes`` (F, 16, 3) in :data:`NODE_NAMES` order,
    sampled every ``frame_time`` seconds.

    World rotations take each rest bone frame to the current one (``R = B B_rest^T``), so a
    joint's children lie along its bone as they do at rest; the offsets place every joint on
    its point exactly, however much the links stretch.
    """
    frames = bone_frames(nodes, frame_time)
    world = frames @ np.swapaxes(skeleton.rest_frames, -1, -2)
    parents = np.maximum(skeleton.parents, 0)
    parent_world = world[:, parents]
    local = np.swapaxes(parent_world, -1, -2) @ world
    at = joint_positions(nodes)
    offsets = np.einsum("fjki,fjk->fji", parent_world, at - at[:, parents])
    is_root = skeleton.parents < 0
    local[:, is_root] = world[:, is_root]
    offsets[:, is_root] = at[:, is_root]
    return Pose(world, local, offsets)


RIGID_CHAIN = (("pelvis", "chest"), ("chest", "neck"), ("neck", "head"),
               ("neck", "l_shoulder"), ("l_shoulder", "l_elbow"), ("l_elbow", "l_hand"),
               ("neck", "r_shoulder"), ("r_shoulder", "r_elbow"), ("r_elbow", "r_hand"),
               ("l_hip", "l_knee"), ("l_knee", "l_foot"), ("r_hip", "r_knee"), ("r_knee", "r_foot"))
"""The links a rigid skeleton places from the pelvis and hips outward (parents first)."""


FIT_BONES = (*RIGID_CHAIN, ("l_hip", "r_hip"), ("pelvis", "l_hip"), ("pelvis", "r_hip"))
"""The node pairs a rigid skeleton keeps at their rest distance: :data:`RIGID_CHAIN` and the
triangle of the hips and the pelvis (the Hips joint's frame)."""

FIT_STEPS = 6
"""Gauss-Newton steps of :func:`fit_lengths` (each a 19 x 19 solve per frame)."""


def fit_lengths(rest: np.ndarray, nodes: np.ndarray, steps: int = FIT_STEPS) -> np.ndarray:
    """The node positions (F, 16, 3) nearest ``nodes`` (F, 16, 3), in the sum of squared
    distances, with the bones of :data:`FIT_BONES` at their lengths in ``rest`` (16, 3) and
    the point between the hips where it is: the rigid pose that shares a stretched link's
    error among all the joints (within a few micrometres after ``steps`` Gauss-Newton steps,
    vectorised over the frames).

    Each step linearises the constraints ``C(x) = 0`` at the current guess ``x`` (``J`` their
    gradients) and takes the point nearest ``nodes`` on the linearised set:
    ``y = p - J^T lambda`` with ``(J J^T) lambda = C(x) + J (p - x)`` (the projection onto
    the constraints of Jakobsen 2001, section 8, solved at once rather than by relaxation).
    """
    p = np.array(nodes, dtype=np.float64).reshape(len(nodes), -1)
    frames, n = len(p), p.shape[1]
    bones = [(_N[a], _N[b], float(np.linalg.norm(rest[_N[b]] - rest[_N[a]])))
             for a, b in FIT_BONES]
    m = len(bones) + 3
    hips = 0.5 * (p.reshape(frames, -1, 3)[:, _N["l_hip"]]
                  + p.reshape(frames, -1, 3)[:, _N["r_hip"]])
    jac = np.zeros((frames, m, n))
    for c in range(3):  # the hips centre is a linear constraint: its rows never change
        jac[:, len(bones) + c, 3 * _N["l_hip"] + c] = 0.5
        jac[:, len(bones) + c, 3 * _N["r_hip"] + c] = 0.5
    x = p.copy()
    for _ in range(steps):
        xs = x.reshape(frames, -1, 3)
        value = np.empty((frames, m))
        for k, (a, b, length) in enumerate(bones):
            d = xs[:, b] - xs[:, a]
            dist = np.maximum(np.linalg.norm(d, axis=-1), 1e-12)
            value[:, k] = dist - length
            jac[:, k, 3 * b:3 * b + 3] = d / dist[:, None]
            jac[:, k, 3 * a:3 * a + 3] = -d / dist[:, None]
        value[:, len(bones):] = 0.5 * (xs[:, _N["l_hip"]] + xs[:, _N["r_hip"]]) - hips
        rhs = value + np.einsum("fmn,fn->fm", jac, p - x)
        lam = np.linalg.solve(jac @ jac.transpose(0, 2, 1), rhs[..., None])[..., 0]
        x = p - np.einsum("fmn,fm->fn", jac, lam)
    return x.reshape(nodes.shape)


def rigid_nodes(skeleton: Skeleton, nodes: np.ndarray) -> np.ndarray:
    """Node positions (F, 16, 3) near ``nodes`` (F, 16, 3) that hold the skeleton's rest
    lengths exactly, for a skeleton with rotations only below its root. The nodes are first
    fitted to the rest lengths (:func:`fit_lengths`, the hips centre held where it is), which
    spreads a stretched link's error over all the joints; then, exactly, the hip nodes go on
    the fit's hip line at their rest spacing about the hips centre, the pelvis node at its
    rest place in the plane of the hip line and the pelvis, and each link from its placed
    parent *towards* its node at its rest length (:data:`RIGID_CHAIN`), which removes what
    the fit left (aiming from the placed parent, rather than keeping the link's direction,
    keeps that from adding up along a chain)."""
    p = points(fit_lengths(skeleton.nodes, nodes))
    rest = points(skeleton.nodes[None])[0]
    out = p.copy()
    hips = points(nodes)[:, _N["hips"]]
    across = unit(p[:, _N["l_hip"]] - p[:, _N["r_hip"]])
    rest_across = unit(rest[_N["l_hip"]] - rest[_N["r_hip"]])
    half = 0.5 * np.linalg.norm(rest[_N["l_hip"]] - rest[_N["r_hip"]])
    out[:, _N["l_hip"]] = hips + half * across
    out[:, _N["r_hip"]] = hips - half * across
    sacrum = rest[_N["pelvis"]] - rest[_N["hips"]]
    along = float(sacrum @ rest_across)
    off = float(np.linalg.norm(sacrum - along * rest_across))
    to = p[:, _N["pelvis"]] - hips
    out[:, _N["pelvis"]] = hips + along * across + off * unit(
        to - np.sum(to * across, axis=-1, keepdims=True) * across)
    for a, b in RIGID_CHAIN:
        length = np.linalg.norm(rest[_N[b]] - rest[_N[a]])
        out[:, _N[b]] = out[:, _N[a]] + length * unit(p[:, _N[b]] - out[:, _N[a]])
    return out[:, :len(NODE_NAMES)]


def _vec(p: np.ndarray, pair: tuple[str, str]) -> np.ndarray:
    return p[:, _N[pair[1]]] - p[:, _N[pair[0]]]


def bone_frames(nodes: np.ndarray, frame_time: float = FRAME_TIME) -> np.ndarray:
    """Bone frames (F, J, 3, 3) of humanoid node positions (F, 16, 3) sampled every
    ``frame_time`` seconds: columns are the bone axis, the twist direction and their cross
    product."""
    p = points(nodes)
    frames = np.empty((len(p), len(JOINTS), 3, 3))
    index = {name: i for i, name in enumerate(JOINT_NAMES)}
    for i, (_, _, _, axis, twist) in enumerate(JOINTS):
        if not isinstance(twist, str):
            frames[:, i] = basis(_vec(p, axis), _vec(p, twist))
    twists = chain_twists(p, {c: frames[:, index[CHAINS[c][3]]] for c in CHAINS},
                          frame_time)
    for i, (_, _, _, axis, twist) in enumerate(JOINTS):
        if isinstance(twist, str):
            frames[:, i] = basis(_vec(p, axis), twists[twist])
    return frames


def chain_twists(p: np.ndarray, parent_frames: dict[str, np.ndarray],
                 frame_time: float) -> dict[str, np.ndarray]:
    """Twist direction (F, 3) of each chain of :data:`CHAINS`, perpendicular to its upper
    bone, from the positions ``p`` (F, 17, 3) of :data:`POINTS` sampled every ``frame_time``
    seconds and the parent bones' frames.

    A hinged limb's twist is the normal of the plane of its bend. That plane is lost when the
    limb straightens and may come back turned (an arm swinging nearly straight bends its
    elbow a little sideways, then a little forwards), so the twist is settled over the whole
    track (:func:`~twig.export.rotations.settled_twist`): it lies in the bend's normal in
    proportion to how much the limb bends and turns from one bend to the next while the limb
    is nearly straight, taking about :data:`TWIST_SETTLE` / sin(bend) seconds, instead of
    swinging round in the two or three frames in which the bend comes back. The sign of each
    frame's normal is the one that agrees with the twist carried along from the previous
    frame by the parent bone (:func:`~twig.export.rotations.carried_twist`), so a limb that
    straightens or bends backwards does not flip. The neck, which does not bend, and a limb
    that never bends keep the body reference (the hip or shoulder line) carried along by
    the parent bone.
    """
    names = list(CHAINS)
    upper = np.stack([_vec(p, CHAINS[c][:2]) for c in names], axis=1)
    lower = np.stack([_vec(p, CHAINS[c][1:3]) if CHAINS[c][2] else _vec(p, CHAINS[c][:2])
                      for c in names], axis=1)
    bend = np.cross(upper, lower) / (np.linalg.norm(upper, axis=-1, keepdims=True)
                                     * np.linalg.norm(lower, axis=-1, keepdims=True))
    parent = np.stack([parent_frames[c] for c in names], axis=1)
    carried = parent[1:] @ np.swapaxes(parent[:-1], -1, -2)
    start = np.stack([_vec(p[:1], CHAINS[c][4])[0] for c in names])
    causal = carried_twist(upper, start, bend, carried, BEND_BLEND)
    sign = np.where(np.sum(bend * causal, axis=-1, keepdims=True) < 0.0, -1.0, 1.0)
    reference = carried_twist(upper, start, None, carried)
    out = settled_twist(upper, reference, sign * bend, (TWIST_SETTLE / frame_time) ** 2)
    return dict(zip(names, np.swapaxes(out, 0, 1), strict=True))
