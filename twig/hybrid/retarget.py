"""Retargeting BVH motion to twig's 16-node humanoid: a joint map, then joint positions or
bone directions, then the floor.

Each humanoid node (but the pelvis) is taken from one joint of the file, by the naming
convention the file follows (:mod:`twig.hybrid.skeletons`: twig's, CMU's, 3ds Max's, Mixamo's,
MotionBuilder's, SmartBody's, Poser's...), or from a map the user gives. The clip is scaled by
the character's leg length over the file's rest leg length (``OFFSET`` values summed down the
hierarchy), which also converts the file's units.

A file whose rest skeleton is the character's build pose, scaled (twig's own files, of any
height and preset: the builds are proportional), is played as it is: every node at its
joint's position times that scale, so links stretched in the recording stay stretched and
the nodes are where the file has them. The pelvis node, which only twig's skeleton has as a
joint (Spine sits on it), comes from the joint that sits on it at rest, if any.

Any other skeleton (other proportions, another rest pose, joints elsewhere on the body) is
rebuilt bone by bone from the hips: each bone keeps the *direction* the file's joints give it
and takes its *length* from the character, and the root's path is scaled. Its pelvis node is
placed where the humanoid's pelvis bracing holds it relative to the hips and the spine, and
the clip is moved up or down so that its feet, when down, are at the character's standing
foot height (the file's floor and the humanoid's ankle height differ).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from twig.bodies.humanoid import NODE_NAMES, add_humanoid
from twig.export.rotations import basis, unit
from twig.hybrid.bvh import Bvh, joint_transforms, rest_positions
from twig.hybrid.skeletons import (
    RetargetError,
    Retargeting,
    match_joints,
    point_names,
    rest_pose_of,
    unit_of,
)
from twig.physics import PhysicsWorld

__all__ = ["BONES", "SAME_BUILD", "RetargetError", "Retargeting", "braced_pelvis",
           "pelvis_offset", "rebuild", "rest_nodes", "retarget", "retargeting"]

BONES = (("hips", "chest"), ("chest", "neck"), ("neck", "head"),
         ("neck", "l_shoulder"), ("l_shoulder", "l_elbow"), ("l_elbow", "l_hand"),
         ("neck", "r_shoulder"), ("r_shoulder", "r_elbow"), ("r_elbow", "r_hand"),
         ("l_hip", "l_knee"), ("l_knee", "l_foot"), ("r_hip", "r_knee"), ("r_knee", "r_foot"))
"""The bones rebuilt from the hips outward (parents before children); ``hips`` is the point
halfway between the hip nodes, and the hip nodes lie on the file's hip line."""


def rest_nodes(height: float = 1.75, preset: str = "adult") -> np.ndarray:
    """(16, 3) standing build pose (metres, facing +z, feet at the origin) of a humanoid."""
    scratch = PhysicsWorld(ground=False)
    body = add_humanoid(scratch, "rest", (0.0, 0.0, 0.0), preset=preset, height=height)
    return scratch.node_pos[body.nodes].copy()


_I = {n: i for i, n in enumerate(NODE_NAMES)}


def _hips(p: np.ndarray) -> np.ndarray:
    return 0.5 * (p[..., _I["l_hip"], :] + p[..., _I["r_hip"], :])


def pelvis_offset(rest: np.ndarray) -> np.ndarray:
    """The pelvis node's coordinates (3,) in the hips frame of a build pose ``rest`` (16, 3):
    axes along the spine (hips to chest), across the hips, and their cross product."""
    frame = basis(rest[_I["chest"]] - _hips(rest), rest[_I["l_hip"]] - rest[_I["r_hip"]])
    return frame.T @ (rest[_I["pelvis"]] - _hips(rest))


def rebuild(source: np.ndarray, rest: np.ndarray, root: np.ndarray) -> np.ndarray:
    """Humanoid nodes (F, 16, 3) with the bone directions of ``source`` (F, 16, 3; its pelvis
    ignored), the bone lengths of the build pose ``rest`` (16, 3) and the hips at ``root``
    (F, 3), metres."""
    out = np.empty_like(source)
    across = unit(source[:, _I["l_hip"]] - source[:, _I["r_hip"]])
    half = 0.5 * np.linalg.norm(rest[_I["l_hip"]] - rest[_I["r_hip"]])
    out[:, _I["l_hip"]] = root + half * across
    out[:, _I["r_hip"]] = root - half * across
    src_pts = {"hips": _hips(source)}
    pts = {"hips": root}
    rest_pts = {"hips": _hips(rest)}
    for a, b in BONES:
        pa = pts[a] if a in pts else out[:, _I[a]]
        sa = src_pts[a] if a in src_pts else source[:, _I[a]]
        ra = rest_pts[a] if a in rest_pts else rest[_I[a]]
        length = np.linalg.norm(rest[_I[b]] - ra)
        out[:, _I[b]] = pa + length * unit(source[:, _I[b]] - sa)
    out[:, _I["pelvis"]] = braced_pelvis(out, rest)
    return out


def braced_pelvis(nodes: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """(F, 3) where the pelvis bracing holds the pelvis node of a build pose ``rest``
    (16, 3) relative to the hips and the chest of ``nodes`` (F, 16, 3), metres (the
    :func:`pelvis_offset` in their hips frame)."""
    root = _hips(nodes)
    frame = basis(nodes[:, _I["chest"]] - root, nodes[:, _I["l_hip"]] - nodes[:, _I["r_hip"]])
    return root + frame @ pelvis_offset(rest)


SAME_BUILD = 1e-3
"""Largest distance, as a fraction of the character's leg length, between a joint of the
file's rest skeleton (scaled, from the hips) and its node in the character's build pose for
the file to count as the character's skeleton and be played at its joint positions."""


def retarget(bvh: Bvh, height: float = 1.75, preset: str = "adult",
             joint_map: Mapping[str, str] | None = None, floor: float | None = None
             ) -> np.ndarray:
    """Node positions (F, 16, 3) in metres of a humanoid of ``height`` and ``preset``
    playing ``bvh`` (:func:`retargeting` without its report)."""
    return retargeting(bvh, height, preset, joint_map, floor)[0]


def retargeting(bvh: Bvh, height: float = 1.75, preset: str = "adult",
                joint_map: Mapping[str, str] | None = None, floor: float | None = None
                ) -> tuple[np.ndarray, Retargeting]:
    """Node positions (F, 16, 3) in metres of a humanoid of ``height`` and ``preset``
    playing ``bvh``, and how the file was read.

    Parameters
    ----------
    joint_map
        Node -> joint name (or ``"joint/End Site"``) for nodes the file's naming convention
        misses or gets wrong (see :func:`twig.hybrid.skeletons.match_joints`).
    floor
        Metres taken off every height of the clip (after scaling). By default a file of
        another skeleton is fitted: its feet, when down (the 5th percentile of the lower
        foot's height), at the character's standing foot height, which also keeps a root
        without position channels on the ground; twig's own skeleton keeps its heights
        (floor 0).

    Lengths, the root's path included, are scaled by the character's leg length over the
    file's rest leg length (or its first frame's, for a file whose offsets are all zero).
    A file whose rest skeleton is the character's build pose scaled (within
    :data:`SAME_BUILD`) keeps its joint positions; any other is rebuilt with the character's
    bone lengths (see the module's notes). The clip faces the way the file does.
    """
    convention, found = match_joints(bvh, joint_map)
    joints, at_rest = _points(bvh)
    source, source_rest = _as_nodes(joints, found), _as_nodes(at_rest[None], found)
    rest = rest_nodes(height, preset)
    # A file whose offsets are all zero (positions in channels only): its first frame's legs.
    leg = float(_leg(source_rest)[0]) or float(_leg(source[:1])[0])
    scale = float(_leg(rest[None])[0]) / max(leg, 1e-12)
    same = _same_build(source_rest[0] * scale, rest)
    if same:
        nodes = source * scale
        pelvis = _pelvis_joint(at_rest[:len(bvh.names)] * scale, source_rest[0] * scale, rest)
        nodes[:, _I["pelvis"]] = braced_pelvis(nodes, rest) if pelvis is None \
            else joints[:, pelvis] * scale
    else:
        nodes = rebuild(source, rest, _hips(source) * scale)
    if floor is None:
        feet = nodes[:, [_I["l_foot"], _I["r_foot"]], 1].min(axis=1)
        floor = 0.0 if same else float(np.percentile(feet, 5)) - float(rest[_I["l_foot"], 1])
    nodes[..., 1] -= floor
    up = _hips(source_rest[0]) - 0.5 * (source_rest[0, _I["l_foot"]] + source_rest[0, _I["r_foot"]])
    name, metres = unit_of(leg)
    report = Retargeting(
        bvh.source, convention, {n: point_names(bvh)[j] for n, j in found.items()}, name,
        metres, rest_pose_of(source_rest[0, _I["l_shoulder"]], source_rest[0, _I["l_elbow"]], up),
        "position" in " ".join(bvh.channels[int(np.flatnonzero(bvh.parents < 0)[0])]).lower(),
        "joint positions" if same else "rebuilt", float(floor))
    return nodes, report


def _points(bvh: Bvh) -> tuple[np.ndarray, np.ndarray]:
    """Every point of :func:`~twig.hybrid.skeletons.point_names` per frame (F, P, 3) and
    at rest (P, 3), in the file's units: the joints, then their End Sites."""
    pos, rot = joint_transforms(bvh)
    rest = rest_positions(bvh)
    if not bvh.end_sites:
        return pos, rest
    index = np.array(list(bvh.end_sites), dtype=np.int64)
    offsets = np.array([bvh.end_sites[j] for j in index])
    ends = pos[:, index] + np.einsum("fkij,kj->fki", rot[:, index], offsets)
    return np.concatenate([pos, ends], axis=1), np.concatenate([rest, rest[index] + offsets])


def _as_nodes(joints: np.ndarray, found: Mapping[str, int]) -> np.ndarray:
    """(F, 16, 3) the mapped joints of ``joints`` (F, J, 3) in node order (the pelvis zero)."""
    out = np.zeros((len(joints), len(NODE_NAMES), 3))
    for node, j in found.items():
        out[:, _I[node]] = joints[:, j]
    return out


def _same_build(source: np.ndarray, rest: np.ndarray) -> bool:
    """Whether the mapped nodes of ``source`` (16, 3), from the hips, are those of the build
    pose ``rest`` (16, 3) within :data:`SAME_BUILD` of its leg length (the pelvis aside)."""
    gap = (source - _hips(source)) - (rest - _hips(rest))
    return float(np.linalg.norm(np.delete(gap, _I["pelvis"], axis=0), axis=-1).max()) \
        <= SAME_BUILD * _leg(rest[None])[0]


def _pelvis_joint(at_rest: np.ndarray, source: np.ndarray, rest: np.ndarray) -> int | None:
    """The joint of a rest skeleton ``at_rest`` (J, 3) that sits, within
    :data:`SAME_BUILD`, where the build pose ``rest`` (16, 3) has its pelvis node relative to
    the hips, the hips being those of the mapped nodes ``source`` (16, 3); None if none does
    (metres)."""
    pelvis = _hips(source) + rest[_I["pelvis"]] - _hips(rest)
    gap = np.linalg.norm(at_rest - pelvis, axis=-1)
    j = int(np.argmin(gap))
    return j if gap[j] <= SAME_BUILD * _leg(rest[None])[0] else None


def _leg(p: np.ndarray) -> np.ndarray:
    """Mean hip-knee-foot chain length (F,) of the two legs in node positions (F, 16, 3)."""
    total = 0.0
    for s in "lr":
        total = total + np.linalg.norm(p[:, _I[f"{s}_knee"]] - p[:, _I[f"{s}_hip"]], axis=-1) \
            + np.linalg.norm(p[:, _I[f"{s}_foot"]] - p[:, _I[f"{s}_knee"]], axis=-1)
    return 0.5 * total
