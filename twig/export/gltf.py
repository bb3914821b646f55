"""glTF 2.0 scenes of a recording: skinned humanoids and animated props, in one file.

Each humanoid is a skinned mesh of capsules (one per capsule volume, with the world's radii)
on the skeleton of :mod:`twig.export.skeleton`, animated by joint translations and rotations:
the same joints, names and motion as its BVH, every joint on its node (each capsule is rigid
on its joint, at its link's rest length). Props are meshes moved by node
animation: a sphere per ball, an oriented box per box volume (posed from its four frame nodes,
Jakobsen 2001 section 5), a capsule per capsule volume (sticks, ropes, tetrahedra); a cloth is
a sheet skinned to one joint per node. Bodies without volumes get thin capsules on their
visible links. A body that exists for only part of the recording is scaled to zero (STEP
keyframes) while it does not. Metres, y up, +z forward; times start at 0.
"""

from __future__ import annotations

from collections.abc import Callable
from os import PathLike
from pathlib import Path

import numpy as np

from twig.export.files import (
    ExportError,
    alive,
    as_path,
    humanoid_nodes,
    humanoid_skeleton,
    write_files,
)
from twig.export.gltf_document import Document
from twig.export.meshes import Mesh, box, capsule, grid
from twig.export.recording import RecordedBody, RecordedVolume, Recording
from twig.export.rotations import basis, carried_twist, continuous, quaternions, unit
from twig.export.skeleton import (
    JOINT_NAMES,
    LINK_PIECES,
    NODE_JOINT,
    POINTS,
    Skeleton,
    points,
    pose,
)
from twig.view.palette import body_colors, linear

COLOURS = {"ball": (0.85, 0.2, 0.15, 1.0), "cloth": (0.3, 0.45, 0.8, 1.0),
           "rope": (0.55, 0.4, 0.25, 1.0)}
"""Base colour per prop type (RGBA, linear); other types are grey. Each humanoid has its own
material in its viewer colour (:func:`twig.view.palette.character_color`)."""
GREY = (0.6, 0.6, 0.62, 1.0)
LINK_RADIUS = 0.01
"""Radius of the capsules drawn on the visible links of bodies without volumes, metres."""


def write_gltf(recording: Recording, path: str | PathLike) -> Path:
    """Write the whole recorded scene, animated, to a ``.glb`` (or ``.gltf``) file.

    A ``.gltf`` file is JSON with its buffer embedded (base64); ``.glb`` is the binary form.
    Returns the path written.

    Raises
    ------
    ExportError
        The recording has no body, or the file cannot be written (nothing is left behind).
    """
    target = as_path(path, ".glb", ".gltf")
    arrays = recording.arrays()
    if not recording.bodies:
        raise ExportError("the recording has no body to export")
    t = arrays["t"]
    doc = Document(t - t[0])
    colours = body_colors([body.type for body in recording.bodies])
    for body, colour in zip(recording.bodies, colours, strict=True):
        frames = alive(arrays["pos"][:, np.asarray(body.columns)])
        if len(frames) == 0:
            continue
        pos = arrays["pos"]
        group = doc.node(body.name)
        if len(frames) < len(t):
            pos = _held(pos, frames)
            present = np.zeros((len(t), 3))
            present[frames] = 1.0
            doc.animate(group, "scale", present, step=True)
        if body.type == "humanoid":
            _humanoid(doc, group, body, pos, recording.dt, (*linear(colour), 1.0))
        else:
            _PROPS.get(body.type, _volumes)(doc, group, body, pos, arrays)
    return write_files({target: doc.encode(binary=target.suffix.lower() == ".glb")})[0]


def _held(pos: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """``pos`` (F, N, 3) with each frame outside ``frames`` replaced by the nearest inside."""
    k = np.clip(np.searchsorted(frames, np.arange(len(pos))), 0, len(frames) - 1)
    before = np.clip(k - 1, 0, len(frames) - 1)
    nearest = np.where(np.abs(frames[before] - np.arange(len(pos)))
                       < np.abs(frames[k] - np.arange(len(pos))), frames[before], frames[k])
    return pos[nearest]


def _humanoid(doc: Document, group: int, body: RecordedBody, pos: np.ndarray,
              frame_time: float, colour: tuple[float, float, float, float]) -> None:
    """A skinned capsule mesh on the humanoid skeleton, with joint translation and rotation
    keyframes (recorded every ``frame_time`` seconds): each joint on its node (named
    ``body:Joint``, so that two characters' joints never share a name), each capsule rigid
    on its joint, in the character's own ``colour``."""
    nodes = humanoid_nodes(pos, body)
    skeleton = humanoid_skeleton(body)
    posed = pose(skeleton, nodes, frame_time)
    joints: list[int] = []
    for j, name in enumerate(JOINT_NAMES):
        parent = group if skeleton.parents[j] < 0 else joints[skeleton.parents[j]]
        offset = skeleton.rest[j] if skeleton.parents[j] < 0 else skeleton.offsets[j]
        joints.append(doc.node(f"{body.name}:{name}", parent, translation=offset.tolist()))
    rotations = continuous(quaternions(posed.local))
    for j, node in enumerate(joints):
        doc.animate(node, "translation", posed.offsets[:, j])
        doc.animate(node, "rotation", rotations[:, j])
    skin = doc.skin(joints, skeleton.rest, joints[0], body.name)
    mesh, owner = capsule_skin(body, skeleton)
    weights = np.zeros((len(owner), 4))
    weights[:, 0] = 1.0
    joint_index = np.zeros((len(owner), 4), dtype=np.int64)
    joint_index[:, 0] = owner
    doc.node(f"{body.name}/mesh", mesh=doc.mesh(mesh, doc.material(colour, name=body.name),
                                                  body.name, (joint_index, weights)),
             skin=skin)


def _volumes(doc: Document, group: int, body: RecordedBody, pos: np.ndarray,
             arrays: dict[str, np.ndarray]) -> None:
    """One animated node per collision volume; thin capsules on visible links if none."""
    volumes = body.volumes or _link_capsules(body, arrays)
    colour = doc.material(COLOURS.get(body.type, GREY))
    for kind, tracks in _VOLUME_TRACKS.items():
        mine = [v for v in volumes if v.kind == kind]
        for k, (mesh, translation, rotation) in enumerate(tracks(mine, pos) if mine else ()):
            name = f"{body.name}/{kind}{k}"
            node = doc.node(name, group, mesh=doc.mesh(mesh, colour, name))
            doc.animate(node, "translation", translation)
            if rotation is not None:
                doc.animate(node, "rotation", rotation)


def _link_capsules(body: RecordedBody, arrays: dict[str, np.ndarray]) -> list[RecordedVolume]:
    mine = np.isin(arrays["link"], body.columns).all(axis=1) & arrays["link_visible"]
    return [RecordedVolume("capsule", np.array([a, b, b, b]), LINK_RADIUS, np.zeros((4, 4)))
            for a, b in arrays["link"][mine]]


Track = tuple[Mesh, np.ndarray, np.ndarray | None]
"""A prop part: its mesh in local coordinates, translation (F, 3), rotation (F, 4) or None."""


def _sphere_tracks(vols: list[RecordedVolume], pos: np.ndarray) -> list[Track]:
    return [(capsule(np.zeros(3), np.zeros(3), v.radius), pos[:, v.columns[0]], None)
            for v in vols]


def _capsule_tracks(vols: list[RecordedVolume], pos: np.ndarray) -> list[Track]:
    """Capsules along local +y between their two nodes, turned with the least twist."""
    a = pos[:, [int(v.columns[0]) for v in vols]]
    b = pos[:, [int(v.columns[1]) for v in vols]]
    axis = b - a  # (F, K, 3)
    half = 0.5 * np.linalg.norm(axis[0], axis=-1)
    helper = np.where((np.abs(unit(axis[0])[:, 1]) < 0.9)[:, None], (0.0, 1.0, 0.0),
                      (1.0, 0.0, 0.0))
    twist = carried_twist(axis, basis(axis[0], helper)[..., 1])
    frames = basis(axis, twist)  # columns: axis, twist, axis x twist
    rotation = continuous(quaternions(
        np.stack([frames[..., 1], frames[..., 0], -frames[..., 2]], axis=-1)))
    return [(capsule(np.array([0.0, -h, 0.0]), np.array([0.0, h, 0.0]), v.radius),
             0.5 * (a[:, k] + b[:, k]), rotation[:, k])
            for k, (v, h) in enumerate(zip(vols, half, strict=True))]


def _box_tracks(vols: list[RecordedVolume], pos: np.ndarray) -> list[Track]:
    """Oriented boxes: centre and half-axes from each box's four frame nodes."""
    return [_box_track(v, pos) for v in vols]


def _box_track(vol: RecordedVolume, pos: np.ndarray) -> Track:
    p = pos[:, vol.columns]  # (F, 4, 3)
    centre = np.einsum("k,fkc->fc", vol.coef[0], p)
    half_axes = np.einsum("ik,fkc->fci", vol.coef[1:], p)  # columns: axis i times half i
    half = np.linalg.norm(half_axes[0], axis=0)
    u, _, vt = np.linalg.svd(half_axes / half)
    rotation = u @ vt  # the nearest rotation (the frame is rigid up to the links' stretch)
    return box(half), centre, continuous(quaternions(rotation))


_VOLUME_TRACKS: dict[str, Callable[[list[RecordedVolume], np.ndarray], list[Track]]] = {
    "sphere": _sphere_tracks, "capsule": _capsule_tracks, "box": _box_tracks}
"""Volume kind -> its parts over the frames of node positions ``pos`` (F, N, 3)."""


def _cloth(doc: Document, group: int, body: RecordedBody, pos: np.ndarray,
           arrays: dict[str, np.ndarray]) -> None:
    """A cloth sheet skinned to one joint per node (translation keyframes)."""
    n = round(len(body.columns) ** 0.5)
    if n * n != len(body.columns):
        _volumes(doc, group, body, pos, arrays)
        return
    p = pos[:, np.asarray(body.columns)]
    rest = p[0]
    joints = [doc.node(f"{body.name}/{name}", group, translation=rest[k].tolist())
              for k, name in enumerate(body.node_names)]
    for k, node in enumerate(joints):
        doc.animate(node, "translation", p[:, k])
    sheet = grid(n, n, rest)
    weights = np.zeros((len(rest), 4))
    weights[:, 0] = 1.0
    joint_index = np.zeros((len(rest), 4), dtype=np.int64)
    joint_index[:, 0] = np.arange(len(rest))
    material = doc.material(COLOURS["cloth"], double_sided=True)
    skin = doc.skin(joints, rest, group, body.name)
    doc.node(f"{body.name}/mesh", mesh=doc.mesh(sheet, material, body.name,
                                                (joint_index, weights)), skin=skin)


_PROPS = {"cloth": _cloth}
"""Body type -> how it is drawn, where it is not one node per volume."""


def capsule_skin(body: RecordedBody, skeleton: Skeleton) -> tuple[Mesh, np.ndarray]:
    """A humanoid's capsules in the skeleton's rest pose (metres) and the joint (index into
    :data:`JOINT_NAMES`) each vertex is bound to: one capsule per capsule volume with the
    world's radii, split into pieces that each lie along one joint's bone
    (:data:`~twig.export.skeleton.LINK_PIECES`: the shoulder line is two collar bones)."""
    local = {int(c): body.node_names[i] for i, c in enumerate(body.columns)}
    rest = dict(zip(POINTS, points(skeleton.nodes[None])[0], strict=True))
    parts, owners = [], []
    for vol in body.volumes:
        if vol.kind == "box":
            continue
        a, b = local[int(vol.columns[0])], local[int(vol.columns[1])]
        pieces = (LINK_PIECES.get((a, b)) or LINK_PIECES.get((b, a))
                  or ((a, b, NODE_JOINT[a]),))
        for start, end, joint in pieces:
            parts.append(capsule(rest[start], rest[end], vol.radius))
            owners.append(np.full(len(parts[-1].positions), JOINT_NAMES.index(joint)))
    return Mesh.join(parts), np.concatenate(owners)
