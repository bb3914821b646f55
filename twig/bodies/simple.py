"""Jakobsen's test bodies: a stick, a rope of links, a tetrahedron rigid body.

Jakobsen 2001: section 3 (the stick, constraint C2), section 5 (a rigid body as four particles
and six sticks). Each builder returns the :class:`~twig.physics.Body` it added.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from twig.bodies.tethers import add_tethers
from twig.errors import PhysicsError
from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_points, as_positive


def _unit(v: ArrayLike, what: str) -> np.ndarray:
    u = as_points(v, what).reshape(3)
    norm = np.linalg.norm(u)
    if norm == 0:
        raise PhysicsError(f"{what}: direction must be non-zero")
    return u / norm


def add_stick(world: PhysicsWorld, name: str, position: ArrayLike, *, length: float = 1.0,
              direction: ArrayLike = (1.0, 0.0, 0.0), mass: float = 1.0,
              velocity: ArrayLike = (0.0, 0.0, 0.0), spin: float = 0.0,
              radius: float = 0.02) -> Body:
    """Two nodes joined by one rigid link of ``length`` metres, centred at ``position``.

    ``velocity`` (m/s) moves the centre; ``spin`` (rad/s) turns the stick about the axis
    perpendicular to it and to y (both ends get opposite tangential velocities).
    """
    length = as_positive(length, f"{name}: length")
    centre = as_points(position, f"{name}: position").reshape(3)
    axis = _unit(direction, f"{name}: direction")
    ends = centre + np.outer([-0.5, 0.5], axis) * length
    spin_axis = np.cross(axis, (0.0, 1.0, 0.0))
    if np.linalg.norm(spin_axis) < 1e-9:
        spin_axis = np.cross(axis, (1.0, 0.0, 0.0))
    spin_axis /= np.linalg.norm(spin_axis)
    tangential = np.cross(spin_axis * spin, ends - centre)
    vel = as_points(velocity, f"{name}: velocity").reshape(3) + tangential
    body = world.add_body(name, "stick", ends, mass=mass / 2, node_names=("a", "b"),
                          radius=radius, velocity=vel)
    world.add_links([[body.nodes.start, body.nodes.start + 1]], body=body)
    world.add_capsule(body.nodes.start, body.nodes.start + 1, radius, body=body)
    return body


MAX_SEGMENTS = 10_000
"""Most links of a rope: checked before anything is allocated."""


def add_rope(world: PhysicsWorld, name: str, start: ArrayLike, *, length: float = 2.0,
             segments: int = 10, direction: ArrayLike = (1.0, 0.0, 0.0), mass: float = 1.0,
             pinned: bool = True, tethers: bool = True, radius: float = 0.02) -> Body:
    """A chain of ``segments`` rigid links from ``start`` along ``direction``.

    With ``pinned`` the first node is pinned where it is; the rope swings from it, and with
    ``tethers`` (see :mod:`twig.bodies.tethers`) it cannot stretch beyond its length.
    """
    if not isinstance(segments, int) or not 1 <= segments <= MAX_SEGMENTS:
        raise PhysicsError(f"{name}: segments must be an integer from 1 to {MAX_SEGMENTS}, "
                           f"got {segments!r}")
    length = as_positive(length, f"{name}: length")
    p0 = as_points(start, f"{name}: start").reshape(3)
    axis = _unit(direction, f"{name}: direction")
    pts = p0 + np.outer(np.linspace(0.0, length, segments + 1), axis)
    body = world.add_body(name, "rope", pts, mass=mass / (segments + 1), radius=radius)
    first = body.nodes.start
    idx = np.arange(first, first + segments)
    world.add_links(np.stack([idx, idx + 1], axis=1), body=body)
    for i in idx:
        world.add_capsule(int(i), int(i) + 1, radius, body=body)
    if pinned:
        world.pin(first)
        if tethers:
            add_tethers(world, body, np.array([first]))
    return body


def add_tetrahedron(world: PhysicsWorld, name: str, position: ArrayLike, *, size: float = 0.5,
                    mass: float = 1.0, velocity: ArrayLike = (0.0, 0.0, 0.0),
                    tilt: float = 0.3, radius: float = 0.02) -> Body:
    """Jakobsen's rigid body: four nodes, six rigid links (4 x 3 - 6 = 6 degrees of freedom).

    A regular tetrahedron of edge ``size`` metres centred at ``position``, rotated by ``tilt``
    radians about z and x so that it lands on an edge or vertex rather than flat. Its edges
    are capsules of ``radius`` metres.
    """
    size = as_positive(size, f"{name}: size")
    centre = as_points(position, f"{name}: position").reshape(3)
    verts = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], dtype=float)
    verts *= size / (2.0 * np.sqrt(2.0))
    c, s = np.cos(tilt), np.sin(tilt)
    rot_z = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    rot_x = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    verts = verts @ (rot_x @ rot_z).T + centre
    body = world.add_body(name, "tetrahedron", verts, mass=mass / 4, radius=radius,
                          velocity=as_points(velocity, f"{name}: velocity").reshape(3))
    i = body.nodes.start
    pairs = [[i + a, i + b] for a in range(4) for b in range(a + 1, 4)]
    world.add_links(pairs, body=body)
    for a, b in pairs:
        world.add_capsule(a, b, radius, body=body)
    return body
