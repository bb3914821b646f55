"""Props with collision volumes: the ball, box props (blocks, the 16-ton weight, and the frame
every box-shaped prop is built on) and the rag doll.

Horswill 2009, section V: objects are nodes plus collision volumes attached to them; a box prop
is a rigid frame of four nodes (Jakobsen's tetrahedron, section 5) carrying oriented boxes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from twig.bodies.charts import add_chart
from twig.bodies.humanoid import add_humanoid
from twig.errors import PhysicsError
from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_nonnegative, as_points, as_positive
from twig.physics.world import DEFAULT_DAMP_AIR, DEFAULT_DAMP_GROUND

_TETRA = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], dtype=float)
"""Alternate corners of a cube: the frame nodes of a block, scaled inside its box."""
FRAME_NODES = ("f0", "f1", "f2", "f3")
"""Default names of a box prop's frame nodes (see :func:`add_frame`)."""
_STILL = np.zeros(3)


def add_ball(world: PhysicsWorld, name: str, position: ArrayLike, *, radius: float = 0.11,
             mass: float = 0.45, velocity: ArrayLike = (0.0, 0.0, 0.0),
             friction: float = 0.6, inertia: float = 2.0 / 3.0,
             rolling_resistance: float = 0.06) -> Body:
    """A ball: one node with a sphere volume (a size-5 football by default: 11 cm, 0.45 kg)
    that rolls on the ground: ``inertia`` is ``k`` in its moment of inertia ``k m r^2`` (2/3, a
    hollow ball; 2/5 a solid one; 0 makes it slide like a block) and ``rolling_resistance``
    slows it by that many g (0.06, grass: rolling at 4 m/s it stops after 10.3 m, and sent
    along the ground at 4 m/s without spin after 4.4 m) in place of the ground damping other
    nodes get (a rolling ball is damped as in the air); see
    :mod:`~twig.physics.collision.rolling`."""
    radius = as_positive(radius, f"{name}: radius")
    inertia = as_nonnegative(inertia, f"{name}: inertia")
    rolling_resistance = as_nonnegative(rolling_resistance, f"{name}: rolling_resistance")
    body = world.add_body(name, "ball", as_points(position, f"{name}: position").reshape(1, 3),
                          mass=as_positive(mass, f"{name}: mass"), node_names=("center",),
                          radius=radius, velocity=as_points(velocity, f"{name}: velocity"),
                          damp_ground=DEFAULT_DAMP_AIR if inertia > 0 else DEFAULT_DAMP_GROUND)
    world.add_sphere(body.nodes.start, radius, body=body, friction=friction, inertia=inertia,
                     rolling_resistance=rolling_resistance)
    return body


def as_finite(value: float, what: str) -> float:
    """A finite number (an angle, a coordinate), or a PhysicsError naming ``what``."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise PhysicsError(f"{what}: expected a number, got {value!r}") from None
    if not math.isfinite(x):
        raise PhysicsError(f"{what}: expected a finite number, got {value!r}")
    return x


def as_friction(value: float, what: str) -> float:
    """A friction coefficient: a finite number >= 0."""
    x = as_finite(value, what)
    if x < 0:
        raise PhysicsError(f"{what}: expected a friction coefficient >= 0, got {value!r}")
    return x


def yaw_axes(yaw: float) -> np.ndarray:
    """(3, 3) rows: a prop's x, y, z axes in world coordinates after turning it ``yaw``
    radians about +y (z, its front, points along (sin yaw, 0, cos yaw); ``x = y cross z``)."""
    c, s = np.cos(yaw), np.sin(yaw)
    return np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])


def tetra_frame(centre: ArrayLike, half: ArrayLike, spread: float = 0.5) -> np.ndarray:
    """(4, 3) frame node positions at alternate corners of the box (``centre``, ``half``
    extents; metres) scaled by ``spread`` about its centre: a regular tetrahedron in a cube."""
    return np.asarray(centre, dtype=float) + spread * _TETRA * np.asarray(half, dtype=float)


def add_frame(world: PhysicsWorld, name: str, type: str, points: np.ndarray, *, mass: float,
              velocity: np.ndarray = _STILL, node_names: tuple[str, ...] = FRAME_NODES,
              meta: dict | None = None) -> Body:
    """The rigid frame of a box prop (Jakobsen 2001, section 5): four nodes at ``points``
    ((4, 3), metres, not coplanar) joined by six invisible rigid links, sharing ``mass`` (kg)
    equally. Callers validate their input first, so that nothing is added when it is bad.
    """
    body = world.add_body(name, type, points, mass=mass / 4, node_names=node_names,
                          velocity=velocity, meta=meta)
    i = body.nodes.start
    world.add_links([[i + a, i + b] for a in range(4) for b in range(a + 1, 4)], body=body,
                    visible=False)
    return body


LocalBox = tuple[tuple[float, float, float], tuple[float, float, float]]
"""A box in a prop's own frame: (centre, half extents), metres."""


def add_box_prop(world: PhysicsWorld, name: str, type: str, position: np.ndarray,
                 axes: np.ndarray, frame: np.ndarray, boxes: Sequence[LocalBox], *,
                 mass: float, friction: float, velocity: np.ndarray = _STILL,
                 charts: Sequence[tuple[str, tuple[float, float, float], tuple[float, float]]]
                 = (), node_names: tuple[str, ...] = FRAME_NODES,
                 meta: dict | None = None) -> Body:
    """A rigid prop of one or more boxes on a four-node frame, with charts on its surfaces.

    Everything is given in the prop's own frame: local point ``q`` is at world
    ``position + q @ axes`` (``axes`` rows are the prop's x, y, z). ``frame`` (4, 3) are the
    frame nodes (see :func:`add_frame`): put them inside the convex hull of ``boxes`` so that
    they never meet the ground before the boxes do, and make their tetrahedron as fat as the
    shape allows (a flat one bends out of its plane easily). ``charts`` are ``(name, origin,
    extent)`` with the chart axes along the prop's (y is the surface normal, see
    :mod:`twig.bodies.charts`). Input must be validated by the caller.
    """
    body = add_frame(world, name, type, position + frame @ axes, mass=mass, velocity=velocity,
                     node_names=node_names, meta=meta)
    nodes = range(body.nodes.start, body.nodes.stop)
    for centre, half in boxes:
        world.add_box(nodes, position + np.asarray(centre) @ axes, half, axes, body=body,
                      friction=friction)
    for chart_name, origin, extent in charts:
        add_chart(world, body, chart_name, nodes, position + np.asarray(origin) @ axes, axes,
                  extent)
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
    axes = yaw_axes(as_finite(yaw, f"{name}: yaw"))
    friction = as_friction(friction, f"{name}: friction")
    body = add_frame(world, name, type, centre + tetra_frame((0.0, 0.0, 0.0), half) @ axes,
                     mass=as_positive(mass, f"{name}: mass"),
                     velocity=as_points(velocity, f"{name}: velocity").reshape(3))
    world.add_box(range(body.nodes.start, body.nodes.stop), centre, half, axes, body=body,
                  friction=friction)
    return body


def add_weight(world: PhysicsWorld, name: str, position: ArrayLike, *,
               size: ArrayLike = (1.2, 0.8, 1.0), mass: float = 16000.0, yaw: float = 0.0,
               velocity: ArrayLike = (0.0, 0.0, 0.0)) -> Body:
    """The 16-ton weight of Horswill's Fig. 5 (after Monty Python): a heavy block."""
    return add_block(world, name, position, size=size, mass=mass, yaw=yaw, velocity=velocity,
                     type="weight")


def add_doll(world: PhysicsWorld, name: str, position: ArrayLike = (0.0, 0.0, 0.0), *,
             height: float = 0.45, mass: float = 0.4, facing: float = 0.0,
             lying: bool = False) -> Body:
    """A rag doll: a small passive humanoid (the one the child carries in the playground).

    The 16-node skeleton of :func:`~twig.bodies.humanoid.add_humanoid` with child proportions,
    ``height`` metres tall and ``mass`` kg (a stuffed toy, far lighter than a body of its
    size), recorded as type ``"doll"``. It feels no pain and nothing drives it: it flops.
    """
    body = add_humanoid(world, name, position, preset="child", height=height,
                        mass=mass, facing=facing, lying=lying,
                        body_type="doll")
    world.set_pain(body, threshold=math.inf)
    return body
