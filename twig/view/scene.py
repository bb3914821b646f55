"""What to draw, as arrays: the layout of a world (topology) and its primitives (each frame).

A :class:`Layout` is built from the world when its topology changes (bodies, links or volumes
added or removed): which node pairs are drawn as capsules, which nodes carry spheres, which
volumes are boxes, which bodies are meshes, and every instance's colour. :func:`place` turns a
frame's node positions into instance transforms (position, ``wxyz`` rotation, per-axis scale)
for three unit shapes (:mod:`twig.view.shapes`), with NumPy only, so 100 characters cost the
same few array operations as one. The live viewer and the video renderer draw the same
primitives, so they look alike.

The look (Horswill 2009, section V and Fig. 3): every visible link is a capsule, as thick as
the collision capsule on it (or :data:`THIN_RADIUS` without one), with a sphere at each end as
large as its thickest capsule there; sphere volumes (balls) are spheres; box volumes are boxes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from twig.physics import Body, PhysicsWorld
from twig.physics.collision.narrow import BOX, CAPSULE
from twig.view.palette import CHARACTER_TYPES, body_colors
from twig.view.providers import MESHES
from twig.view.transforms import quat_from_matrix, quat_z_to

ColorOf = Callable[[np.ndarray], np.ndarray]

THIN_RADIUS = 0.012
"""Radius (m) of a visible link drawn without a collision capsule on it."""


@dataclass(frozen=True)
class PrimitiveSet:
    """Instances of the unit shapes, as indices into the world's node array.

    ``cyl_nodes`` (C, 2) and ``cyl_radius`` (C,) m: capsule bodies; ``sph_nodes`` (S,) and
    ``sph_radius`` (S,) m: spheres; ``box_nodes`` (X, 4) and ``box_coef`` (X, 4, 4): boxes as
    affine functions of four frame nodes (see ``twig.physics.collision.box_pairs.box_frame``).
    ``*_color`` are (n, 3) uint8 and ``*_body`` (n,) the owning body ids.
    """

    cyl_nodes: np.ndarray
    cyl_radius: np.ndarray
    cyl_color: np.ndarray
    cyl_body: np.ndarray
    sph_nodes: np.ndarray
    sph_radius: np.ndarray
    sph_color: np.ndarray
    sph_body: np.ndarray
    box_nodes: np.ndarray
    box_coef: np.ndarray
    box_color: np.ndarray
    box_body: np.ndarray


@dataclass(frozen=True)
class Primitives:
    """One frame's instance transforms of a :class:`PrimitiveSet` (float64, metres).

    ``*_pos`` (n, 3) centres, ``*_quat`` (n, 4) ``wxyz`` rotations of the unit shape,
    ``cyl_scale`` (C, 3) = (r, r, length), ``sph_scale`` (S,) = r, ``box_scale`` (X, 3) full
    extents.
    """

    cyl_pos: np.ndarray
    cyl_quat: np.ndarray
    cyl_scale: np.ndarray
    sph_pos: np.ndarray
    sph_scale: np.ndarray
    box_pos: np.ndarray
    box_quat: np.ndarray
    box_scale: np.ndarray


@dataclass(frozen=True)
class Layout:
    """The drawing plan of one topology version of a world.

    ``body_id``, ``body_name``, ``body_type``, ``body_color`` (B, 3) uint8 describe the bodies
    in creation order; ``look`` is what is drawn, ``volumes`` the collision volumes (for the
    volumes toggle); ``mesh_bodies`` the ids of bodies drawn by a mesh provider;
    ``characters`` the names of bodies drawn as characters.
    """

    version: int
    body_id: np.ndarray
    body_name: tuple[str, ...]
    body_type: tuple[str, ...]
    body_color: np.ndarray
    look: PrimitiveSet
    volumes: PrimitiveSet
    mesh_bodies: tuple[int, ...]
    characters: tuple[str, ...]

    def name_of(self, body_id: int) -> str:
        """Name of body ``body_id``."""
        return self.body_name[int(np.searchsorted(self.body_id, body_id))]


@dataclass(frozen=True)
class Mesh:
    """A body drawn as a triangle mesh this frame: its ``name``, ``vertices`` (V, 3) m,
    ``faces`` (F, 3) and ``color`` (8-bit RGB)."""

    name: str
    vertices: np.ndarray
    faces: np.ndarray
    color: tuple[int, int, int]


def build_layout(world: PhysicsWorld) -> Layout:
    """The :class:`Layout` of ``world``'s current topology (call on the world's thread)."""
    bodies = world.bodies
    ids = np.array([b.id for b in bodies], dtype=np.int64)
    types = [b.type for b in bodies]
    colors = body_colors(types)
    mesh_bodies = tuple(b.id for b in bodies if b.type in MESHES)

    def color_of(body_ids: np.ndarray) -> np.ndarray:
        return colors[np.searchsorted(ids, body_ids)]

    return Layout(
        version=world.topology_version, body_id=ids, body_name=tuple(b.name for b in bodies),
        body_type=tuple(types), body_color=colors,
        look=_look(world, mesh_bodies, color_of), volumes=_volume_set(world, color_of),
        mesh_bodies=mesh_bodies,
        characters=tuple(b.name for b in bodies if b.type in CHARACTER_TYPES))


def _capsule_volumes(world: PhysicsWorld) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of the volume table that are capsules (two nodes), spheres and boxes."""
    kind = world.volumes["kind"]
    nodes = world.volumes["nodes"]
    capsule = (kind == CAPSULE) & (nodes[:, 0] != nodes[:, 1])
    sphere = (kind == CAPSULE) & (nodes[:, 0] == nodes[:, 1])
    return (np.flatnonzero(capsule), np.flatnonzero(sphere), np.flatnonzero(kind == BOX))


def _look(world: PhysicsWorld, mesh_bodies: tuple[int, ...], color_of: ColorOf) -> PrimitiveSet:
    """Visible links as capsules with joint spheres, sphere volumes, box volumes."""
    n = world.n_nodes
    vols = world.volumes
    caps, spheres, boxes = _capsule_volumes(world)
    links = world.link_nodes.astype(np.int64)
    drawn = world.link_visible.copy()
    if mesh_bodies:
        drawn &= ~np.isin(world.node_body[links[:, 0]], mesh_bodies)
    links = links[drawn]
    # Radius of each link: that of a capsule on the same node pair, else THIN_RADIUS.
    cap_nodes = vols["nodes"][caps, :2].astype(np.int64)
    cap_key = np.minimum(cap_nodes[:, 0], cap_nodes[:, 1]) * n + cap_nodes.max(axis=1)
    order = np.argsort(cap_key)
    link_key = links.min(axis=1) * n + links.max(axis=1)
    at = np.clip(np.searchsorted(cap_key[order], link_key), 0, max(len(order) - 1, 0))
    radius = np.full(len(links), THIN_RADIUS)
    if len(order):
        hit = cap_key[order][at] == link_key
        radius[hit] = vols["radius"][caps][order][at][hit]
    joint_radius = np.zeros(n)
    np.maximum.at(joint_radius, links.ravel(), np.repeat(radius, 2))
    joints = np.flatnonzero(joint_radius > 0)
    sph_nodes = np.concatenate([joints, vols["nodes"][spheres, 0]]).astype(np.int64)
    sph_radius = np.concatenate([joint_radius[joints], vols["radius"][spheres]])
    return _primitive_set(world, color_of, links, radius, sph_nodes, sph_radius, boxes)


def _volume_set(world: PhysicsWorld, color_of: ColorOf) -> PrimitiveSet:
    """Every collision volume: capsules (with both end spheres), spheres and boxes."""
    vols = world.volumes
    caps, spheres, boxes = _capsule_volumes(world)
    cyl = vols["nodes"][caps, :2].astype(np.int64)
    sph_nodes = np.concatenate([cyl[:, 0], cyl[:, 1], vols["nodes"][spheres, 0]])
    sph_radius = np.concatenate([vols["radius"][caps], vols["radius"][caps],
                                 vols["radius"][spheres]])
    return _primitive_set(world, color_of, cyl, vols["radius"][caps], sph_nodes.astype(np.int64),
                          sph_radius, boxes)


def _primitive_set(world: PhysicsWorld, color_of: ColorOf, cyl: np.ndarray, cyl_radius: np.ndarray,
                   sph: np.ndarray, sph_radius: np.ndarray, boxes: np.ndarray) -> PrimitiveSet:
    body = world.node_body.astype(np.int64)
    vols = world.volumes
    box_nodes = vols["nodes"][boxes].astype(np.int64)
    cyl_body = body[cyl[:, 0]] if len(cyl) else np.zeros(0, dtype=np.int64)
    sph_body = body[sph]
    box_body = body[box_nodes[:, 0]] if len(boxes) else np.zeros(0, dtype=np.int64)
    return PrimitiveSet(
        cyl_nodes=cyl.reshape(-1, 2), cyl_radius=np.asarray(cyl_radius, dtype=np.float64),
        cyl_color=color_of(cyl_body), cyl_body=cyl_body,
        sph_nodes=sph, sph_radius=np.asarray(sph_radius, dtype=np.float64),
        sph_color=color_of(sph_body), sph_body=sph_body,
        box_nodes=box_nodes.reshape(-1, 4), box_coef=vols["coef"][boxes].copy(),
        box_color=color_of(box_body), box_body=box_body)


def place(spec: PrimitiveSet, pos: np.ndarray) -> Primitives:
    """Instance transforms of ``spec`` for node positions ``pos`` (N, 3) m."""
    a = pos[spec.cyl_nodes[:, 0]]
    b = pos[spec.cyl_nodes[:, 1]]
    axis = b - a
    length = np.linalg.norm(axis, axis=1)
    r = spec.cyl_radius
    frame = pos[spec.box_nodes]                                  # (X, 4, 3)
    centre = np.einsum("xk,xkj->xj", spec.box_coef[:, 0], frame)
    half = np.einsum("xrk,xkj->xrj", spec.box_coef[:, 1:], frame)  # half-axis vectors (rows)
    extent = np.linalg.norm(half, axis=2)
    rot = (half / np.maximum(extent, 1e-12)[:, :, None]).transpose(0, 2, 1)
    return Primitives(
        cyl_pos=0.5 * (a + b), cyl_quat=quat_z_to(axis),
        cyl_scale=np.stack([r, r, length], axis=1),
        sph_pos=pos[spec.sph_nodes], sph_scale=spec.sph_radius.copy(),
        box_pos=centre, box_quat=quat_from_matrix(rot), box_scale=2.0 * extent)


def frame_meshes(world: PhysicsWorld, layout: Layout) -> list[Mesh]:
    """The meshes of the bodies drawn by a mesh provider (cloth, mesh props)."""
    out = []
    for body_id in layout.mesh_bodies:
        row = int(np.searchsorted(layout.body_id, body_id))
        body = Body(world, body_id)
        vertices, faces = MESHES[body.type](world, body)
        out.append(Mesh(body.name, vertices, faces,
                        tuple(int(c) for c in layout.body_color[row])))
    return out
