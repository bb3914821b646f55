"""Rigid props with collision volumes: the ball and box-shaped blocks (the 16-ton weight).

Horswill 2009, section V: objects are nodes plus collision volumes attached to them; a box prop
is a rigid frame of four nodes (Jakobsen's tetrahedron, section 5) carrying an oriented box.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from twig.errors import PhysicsError
from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_points, as_positive

_TETRA = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], dtype=float)
"""Alternate corners of a cube: the frame nodes of a block, scaled inside its box."""


def add_ball(world: PhysicsWorld, name: str, position: ArrayLike, *, radius: float = 0.11,
             mass: float = 0.45, velocity: ArrayLike = (0.0, 0.0, 0.0),
             friction: float = 0.6) -> Body:
    """A ball: one node with a sphere volume (a size-5 football by default: 11 cm, 0.45 kg)."""
    radius = as_positive(radius, f"{name}: radius")
    body = world.add_body(name, "ball", as_points(position, f"{name}: position").reshape(1, 3),
                          mass=as_positive(mass, f"{name}: mass"), node_names=("center",),
                          radius=radius, velocity=as_points(velocity, f"{name}: velocity"))
    world.add_sphere(body.nodes.start, radius, body=body, friction=friction)
    return body


def add_block(world: PhysicsWorld, name: str, position: ArrayLike, *,
              size: ArrayLike = (0.5, 0.5, 0.5), mass: float = 10.0, yaw: float = 0.0,
              velocity: ArrayLike = (0.0, 0.0, 0.0), friction: float = 0.8,
              type: str = "block") -> Body:
    """A rigid box of ``size`` (m, full extents x, y, z) centred at ``position``, turned by
    ``yaw`` radians about +y. Four frame nodes at alternate corners of the box scaled by one
    half, joined by six rigid links, carry the box volume and share ``mass`` (kg)."""
    half = 0.5 * as_points(size, f"{name}: size").reshape(3)
    if (half <= 0).any():
        raise PhysicsError(f"{name}: size must be positive on every axis, got "
                           f"{(2 * half).tolist()}")
    centre = as_points(position, f"{name}: position").reshape(3)
    c, s = np.cos(yaw), np.sin(yaw)
    axes = np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])
    frame = centre + (0.5 * _TETRA * half) @ axes
    body = world.add_body(name, type, frame, mass=as_positive(mass, f"{name}: mass") / 4,
                          node_names=("f0", "f1", "f2", "f3"),
                          velocity=as_points(velocity, f"{name}: velocity").reshape(3))
    i = body.nodes.start
    world.add_links([[i + a, i + b] for a in range(4) for b in range(a + 1, 4)], body=body,
                    visible=False)
    world.add_box(range(i, i + 4), centre, half, axes, body=body, friction=friction)
    return body


def add_weight(world: PhysicsWorld, name: str, position: ArrayLike, *,
               size: ArrayLike = (1.2, 0.8, 1.0), mass: float = 16000.0, yaw: float = 0.0,
               velocity: ArrayLike = (0.0, 0.0, 0.0)) -> Body:
    """The 16-ton weight of Horswill's Fig. 5 (after Monty Python): a heavy block."""
    return add_block(world, name, position, size=size, mass=mass, yaw=yaw, velocity=velocity,
                     type="weight")
