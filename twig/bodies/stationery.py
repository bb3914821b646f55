"""The writing scene's props (Horswill 2009, section VIII.A and Figs. 4 and 7): a clipboard with
a ``front`` chart and a pen with a ``tip``.

The pen's motor (later) reads the clipboard's ``front`` chart and drives the pen's ``tip`` to a
point on it, lifting it along the chart's y axis between strokes; a character holds either by a
link from its hand to one of their nodes (the clipboard's corners, the pen's ``top``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from twig.bodies.props import add_box_prop, as_finite, as_friction, yaw_axes
from twig.errors import PhysicsError
from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_points, as_positive

CLIPBOARD_NODES = ("bottom_left", "bottom_right", "top", "clip")
"""The clipboard's frame nodes: near its bottom corners and at the middle of its top edge (all
at the back), and inside the clip (x is the board's right, z its top, seen from the front)."""


def add_clipboard(world: PhysicsWorld, name: str, position: ArrayLike, *,
                  size: ArrayLike = (0.23, 0.02, 0.32), mass: float = 0.4, yaw: float = 0.0,
                  velocity: ArrayLike = (0.0, 0.0, 0.0), friction: float = 0.6) -> Body:
    """A clipboard: a board of ``size`` (width x, thickness y, length z; metres) centred at
    ``position``, lying front up, turned ``yaw`` radians about +y, with a clip on the front at
    its top end (1.5 times as tall as the board is thick); ``mass`` in kg.

    Chart ``front``: on the front face below the clip, origin at the middle of that writing
    area, y out of the face, x across the board, z towards the clip; extent half the width and
    half the area's length. A hand can hold the clipboard by its ``clip`` node or a corner.

    Why the clip is a node: four frame nodes inside a thin board are nearly coplanar, and such
    a frame's links barely resist one node moving out of its plane (only at second order), so a
    board pulled at one node folds and turns inside out. The clip stands out of the board, so
    the frame is a tetrahedron with a right-angled corner under the clip.
    """
    hx, hy, hz = 0.5 * as_points(size, f"{name}: size").reshape(3)
    if min(hx, hy, hz) <= 0:
        raise PhysicsError(f"{name}: size must be positive on every axis, got "
                           f"{[2 * hx, 2 * hy, 2 * hz]}")
    centre = as_points(position, f"{name}: position").reshape(3)
    axes = yaw_axes(as_finite(yaw, f"{name}: yaw"))
    board = ((0.0, 0.0, 0.0), (hx, hy, hz))
    clip = ((0.0, 2.5 * hy, 0.9 * hz), (0.4 * hx, 1.5 * hy, 0.1 * hz))
    frame = np.array([[-0.9 * hx, -0.9 * hy, -0.9 * hz], [0.9 * hx, -0.9 * hy, -0.9 * hz],
                      [0.0, -0.9 * hy, 0.9 * hz], [0.0, 3.85 * hy, 0.9 * hz]])
    return add_box_prop(world, name, "clipboard", centre, axes, frame, [board, clip],
                        mass=as_positive(mass, f"{name}: mass"),
                        friction=as_friction(friction, f"{name}: friction"),
                        velocity=as_points(velocity, f"{name}: velocity").reshape(3),
                        charts=[("front", (0.0, hy, -0.1 * hz), (hx, 0.9 * hz))],
                        node_names=CLIPBOARD_NODES)


def add_pen(world: PhysicsWorld, name: str, position: ArrayLike, *, length: float = 0.14,
            direction: ArrayLike = (1.0, 0.0, 0.0), mass: float = 0.02, radius: float = 0.005,
            velocity: ArrayLike = (0.0, 0.0, 0.0)) -> Body:
    """A pen: a thin stick of ``length`` metres centred at ``position``, its ``tip`` node
    towards ``direction`` and its ``top`` node at the other end, with a capsule of ``radius``
    metres; ``mass`` in kg."""
    length = as_positive(length, f"{name}: length")
    radius = as_positive(radius, f"{name}: radius")
    mass = as_positive(mass, f"{name}: mass")
    axis = as_points(direction, f"{name}: direction").reshape(3)
    norm = float(np.linalg.norm(axis))
    if norm == 0.0:
        raise PhysicsError(f"{name}: direction must be non-zero")
    centre = as_points(position, f"{name}: position").reshape(3)
    ends = centre + np.outer([0.5, -0.5], axis / norm) * length
    body = world.add_body(name, "pen", ends, mass=mass / 2, node_names=("tip", "top"),
                          radius=radius,
                          velocity=as_points(velocity, f"{name}: velocity").reshape(3))
    world.add_link(body.node("tip"), body.node("top"), body=body)
    world.add_capsule(body.node("tip"), body.node("top"), radius, body=body)
    return body
