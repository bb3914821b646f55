"""Cloth: a grid of particles with structural and shear sticks (Jakobsen 2001, section 4)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from twig.bodies.tethers import add_tethers
from twig.errors import PhysicsError
from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_points, as_positive

CORNERS = ("near-left", "near-right", "far-left", "far-right")


def cloth_links(n: int, shear: bool = True) -> np.ndarray:
    """(L, 2) local node pairs of an ``n x n`` grid: structural (rows, columns) then shear.

    Node ``(row, col)`` is local index ``row * n + col``.
    """
    idx = np.arange(n * n).reshape(n, n)
    parts = [np.stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()], axis=1),
             np.stack([idx[:-1, :].ravel(), idx[1:, :].ravel()], axis=1)]
    if shear:
        parts.append(np.stack([idx[:-1, :-1].ravel(), idx[1:, 1:].ravel()], axis=1))
        parts.append(np.stack([idx[:-1, 1:].ravel(), idx[1:, :-1].ravel()], axis=1))
    return np.concatenate(parts).astype(np.int32)


MAX_RESOLUTION = 256
"""Most nodes per side of a cloth (65,536 nodes): checked before anything is allocated."""


def add_cloth(world: PhysicsWorld, name: str, position: ArrayLike, *, size: float = 1.0,
              resolution: int = 16, mass: float = 0.5, shear: bool = True,
              pinned: tuple[str, ...] = ("far-left", "far-right"), sqrt_approx: bool = False,
              tethers: bool = False, damping: float = 0.01, radius: float = 0.0) -> Body:
    """A square cloth of ``resolution x resolution`` nodes lying flat, centred at ``position``.

    Rows run along +z ("near" is -z), columns along +x. ``pinned`` names corners held in place
    (from :data:`CORNERS`); the rest falls and hangs from them. ``sqrt_approx`` uses Jakobsen's
    square-root approximation on every stick. ``tethers`` adds inequality links from every node
    to each pinned corner (see :mod:`twig.bodies.tethers`) so the cloth cannot overstretch.
    ``damping`` is the per-tick air damping (eq. 2): cloth meets far more drag than its mass
    would suggest.
    """
    if not isinstance(resolution, int) or not 2 <= resolution <= MAX_RESOLUTION:
        raise PhysicsError(f"{name}: resolution must be an integer from 2 to {MAX_RESOLUTION}, "
                           f"got {resolution!r}")
    unknown = set(pinned) - set(CORNERS)
    if unknown:
        raise PhysicsError(f"{name}: unknown corners {sorted(unknown)}; use {', '.join(CORNERS)}")
    size = as_positive(size, f"{name}: size")
    centre = as_points(position, f"{name}: position").reshape(3)
    n = resolution
    u = np.linspace(-size / 2, size / 2, n)
    zz, xx = np.meshgrid(u, u, indexing="ij")
    pts = np.stack([xx.ravel(), np.zeros(n * n), zz.ravel()], axis=1) + centre
    body = world.add_body(name, "cloth", pts, mass=mass / (n * n), radius=radius, damp_air=damping,
                          node_names=[f"{r},{c}" for r in range(n) for c in range(n)])
    first = body.nodes.start
    world.add_links(cloth_links(n, shear) + first, body=body, sqrt_approx=sqrt_approx)
    corner_index = {"near-left": 0, "near-right": n - 1, "far-left": n * (n - 1),
                    "far-right": n * n - 1}
    anchors = np.array([first + corner_index[corner] for corner in pinned], dtype=np.int32)
    if len(anchors):
        world.pin(anchors)
    if tethers:
        add_tethers(world, body, anchors)
    return body
