"""Triangle meshes of the collision shapes the exporters draw: capsules, spheres, boxes, grids.

Horswill 2009, section VIII: "characters are currently drawn as collections of cylinders", one
rendering mesh per collision volume. Each function returns a :class:`Mesh`: float64 vertex
positions (V, 3) in metres, unit normals (V, 3) and triangle indices (T, 3), wound
counter-clockwise seen from outside.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from twig.export.rotations import basis, unit

SEGMENTS = 12
"""Vertices around a capsule or sphere."""
RINGS = 4
"""Latitude rings in each hemispherical cap of a capsule (a sphere has twice as many)."""


@dataclass(frozen=True)
class Mesh:
    """Vertex ``positions`` (V, 3), unit ``normals`` (V, 3), triangle ``indices`` (T, 3)."""

    positions: np.ndarray
    normals: np.ndarray
    indices: np.ndarray

    @staticmethod
    def join(meshes: list[Mesh]) -> Mesh:
        """One mesh of all ``meshes`` (their indices shifted to the joined vertex list)."""
        starts = np.cumsum([0] + [len(m.positions) for m in meshes])[:-1]
        return Mesh(np.concatenate([m.positions for m in meshes]),
                    np.concatenate([m.normals for m in meshes]),
                    np.concatenate([m.indices + s for m, s in zip(meshes, starts, strict=True)]))


def capsule(a: np.ndarray, b: np.ndarray, radius: float) -> Mesh:
    """A capsule of ``radius`` around the segment from ``a`` to ``b`` (a sphere if they meet).

    Latitude rings of a sphere split at its equator, the lower half centred on ``a`` and the
    upper on ``b``, closed by a vertex at each pole.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    axis = b - a
    split = np.linalg.norm(axis) > 1e-12
    if not split:
        axis = np.array([0.0, 1.0, 0.0])
    helper = np.array([1.0, 0.0, 0.0]) if abs(unit(axis)[0]) < 0.9 else np.array([0, 0, 1.0])
    frame = basis(axis, helper)  # columns: along the axis, then two across it
    step = np.pi / (2 * RINGS)
    low = -np.pi / 2 + step * np.arange(1, RINGS + 1)  # up to the equator
    high = step * np.arange(0 if split else 1, RINGS)  # from the equator (again) to the top
    lat = np.concatenate([low, high])
    lon = np.linspace(0.0, 2 * np.pi, SEGMENTS, endpoint=False)
    la, lo = np.meshgrid(lat, lon, indexing="ij")
    ring = np.stack([np.sin(la), np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo)], axis=-1)
    ring_centre = np.where(np.arange(len(lat)) < RINGS, 0.0, 1.0)[:, None, None] * (b - a) + a
    normals = np.concatenate([[-frame[:, 0]], ring.reshape(-1, 3) @ frame.T, [frame[:, 0]]])
    centres = np.concatenate([[a], np.broadcast_to(ring_centre, ring.shape).reshape(-1, 3), [b]])
    n_ring = len(lat) * SEGMENTS
    around = np.arange(SEGMENTS)
    nxt = (around + 1) % SEGMENTS
    bottom = np.stack([np.zeros(SEGMENTS, dtype=int), 1 + nxt, 1 + around], axis=1)
    top_row = 1 + n_ring - SEGMENTS
    top = np.stack([np.full(SEGMENTS, n_ring + 1), top_row + around, top_row + nxt], axis=1)
    bands = 1 + _grid_triangles(len(lat), SEGMENTS, wrap=True)[:, ::-1]
    return Mesh(centres + radius * normals, normals, np.concatenate([bottom, bands, top]))


def box(half: np.ndarray) -> Mesh:
    """An axis-aligned box of half extents ``half`` (3,) centred at the origin: 24 vertices
    (four per face, flat normals), 12 triangles."""
    half = np.asarray(half, dtype=np.float64)
    positions, normals = [], []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            n = np.zeros(3)
            n[axis] = sign
            u = np.zeros(3)
            u[(axis + 1) % 3] = 1.0
            v = np.cross(n, u)
            corners = [n + s * u + r * v for s, r in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            positions.extend(np.array(corners) * half)
            normals.extend([n] * 4)
    quads = np.arange(24).reshape(6, 4)
    indices = np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])
    return Mesh(np.array(positions), np.array(normals), indices)


def grid(rows: int, cols: int, positions: np.ndarray) -> Mesh:
    """A sheet over a ``rows x cols`` grid of points (node ``r * cols + c``), two triangles
    per cell, normals from the triangles around each point (the first side faces up for a
    grid laid out like :func:`twig.bodies.cloth.add_cloth`)."""
    indices = _grid_triangles(rows, cols, wrap=False)
    tri = positions[indices]
    face = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    normals = np.zeros_like(positions)
    for k in range(3):
        np.add.at(normals, indices[:, k], face)
    normals = unit(normals)
    normals[np.linalg.norm(normals, axis=-1) == 0] = (0.0, 1.0, 0.0)
    return Mesh(np.asarray(positions, dtype=np.float64), normals, indices)


def _grid_triangles(rows: int, cols: int, wrap: bool) -> np.ndarray:
    """Two triangles per cell of a ``rows x cols`` vertex grid (columns wrap around if
    ``wrap``); vertex ``(r, c)`` is ``r * cols + c``."""
    r, c = np.meshgrid(np.arange(rows - 1), np.arange(cols if wrap else cols - 1),
                       indexing="ij")
    r, c = r.ravel(), c.ravel()
    c1 = (c + 1) % cols
    v00, v01 = r * cols + c, r * cols + c1
    v10, v11 = (r + 1) * cols + c, (r + 1) * cols + c1
    return np.concatenate([np.stack([v00, v10, v11], 1), np.stack([v00, v11, v01], 1)])
