"""Furniture: a chair to sit on and a table to put things on (Horswill 2009, sections V and
VIII.A).

Each is a rigid box prop (:func:`~twig.bodies.props.add_box_prop`): a four-node frame inside
the legs carrying a box per part (seat or top, four legs, a chair's back), with a chart on the
surface a character uses: the chair's ``seat``, the table's ``top``. Positions are the point
on the floor under the piece's centre; ``facing`` turns it about +y (0: a chair's sitter faces
+z, its back is at -z).
"""

from __future__ import annotations

from numpy.typing import ArrayLike

from twig.bodies.props import (
    LocalBox,
    add_box_prop,
    as_finite,
    as_friction,
    tetra_frame,
    yaw_axes,
)
from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_points, as_positive


def _legs(half_x: float, half_z: float, leg: float, height: float) -> list[LocalBox]:
    """Four square legs of side ``leg`` at the corners of a ``2 half_x`` by ``2 half_z``
    footprint, from the floor up to ``height`` (m)."""
    x, z = half_x - leg / 2, half_z - leg / 2
    return [((sx * x, height / 2, sz * z), (leg / 2, height / 2, leg / 2))
            for sx in (-1, 1) for sz in (-1, 1)]


def add_chair(world: PhysicsWorld, name: str, position: ArrayLike, *, seat_height: float = 0.45,
              width: float = 0.45, back_height: float = 0.45, mass: float = 5.0,
              facing: float = 0.0, friction: float = 0.8) -> Body:
    """A chair: a square seat of side ``width`` whose top is ``seat_height`` above its feet,
    four legs, and a back rising ``back_height`` above the seat (metres); ``mass`` in kg.

    Chart ``seat``: origin at the centre of the seat's top, y up out of the seat, z towards
    the front (where a sitter's knees go), extent half the width each way.
    """
    h = as_positive(seat_height, f"{name}: seat_height")
    w = as_positive(width, f"{name}: width")
    b = as_positive(back_height, f"{name}: back_height")
    base = as_points(position, f"{name}: position").reshape(3)
    mass = as_positive(mass, f"{name}: mass")
    seat = 0.1 * min(w, h)  # thickness of the seat and of the back
    boxes = [((0.0, h - seat / 2, 0.0), (w / 2, seat / 2, w / 2)),
             *_legs(w / 2, w / 2, 0.1 * w, h - seat),
             ((0.0, h + b / 2, seat / 2 - w / 2), (w / 2, b / 2, seat / 2))]
    axes = yaw_axes(as_finite(facing, f"{name}: facing"))
    friction = as_friction(friction, f"{name}: friction")
    # The frame fills the legs' block (seat and legs make its convex hull), not the back.
    return add_box_prop(world, name, "chair", base, axes,
                        tetra_frame((0.0, h / 2, 0.0), (w / 2, h / 2, w / 2)), boxes,
                        mass=mass, friction=friction,
                        charts=[("seat", (0.0, h, 0.0), (w / 2, w / 2))], meta={"seat_height": h})


def add_table(world: PhysicsWorld, name: str, position: ArrayLike, *, height: float = 0.75,
              width: float = 1.2, depth: float = 0.8, mass: float = 20.0, facing: float = 0.0,
              friction: float = 0.8) -> Body:
    """A table: a top ``width`` (along x) by ``depth`` (along z) whose upper face is
    ``height`` above its feet, on four legs (metres); ``mass`` in kg.

    Chart ``top``: origin at the centre of the upper face, y up, extent half the width and
    half the depth.
    """
    h = as_positive(height, f"{name}: height")
    wx = as_positive(width, f"{name}: width") / 2
    wz = as_positive(depth, f"{name}: depth") / 2
    base = as_points(position, f"{name}: position").reshape(3)
    mass = as_positive(mass, f"{name}: mass")
    top = 0.05 * min(h, 2 * wx, 2 * wz)
    boxes = [((0.0, h - top / 2, 0.0), (wx, top / 2, wz)),
             *_legs(wx, wz, 0.12 * min(wx, wz), h - top)]
    axes = yaw_axes(as_finite(facing, f"{name}: facing"))
    friction = as_friction(friction, f"{name}: friction")
    return add_box_prop(world, name, "table", base, axes,
                        tetra_frame((0.0, h / 2, 0.0), (wx, h / 2, wz)), boxes, mass=mass,
                        friction=friction, charts=[("top", (0.0, h, 0.0), (wx, wz))],
                        meta={"height": h})
