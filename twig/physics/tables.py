"""The physics tables' columns (one declaration per column: dtype, per-row shape, default).

The world keeps one :class:`~twig.physics.columns.Columns` table per entity: nodes, links,
hinges, angle limits and static planes (collision volumes and bodies' collision state are in
``collision/system.py``). docs/architecture.md, "State", gives each column's unit and meaning.
"""

from __future__ import annotations

import math

import numpy as np

from twig.physics.columns import Column

DEFAULT_DAMP_AIR = 0.002
"""Per-tick damping factor ``d`` of eq. 2 in the air: about 11 % of velocity lost per second."""
DEFAULT_DAMP_GROUND = 0.1
"""Per-tick damping in contact with the ground (Horswill VI.A: "large when in contact")."""

NODE_COLUMNS = {
    "pos": Column(np.float64, (3,)),
    "prev": Column(np.float64, (3,)),
    "acc": Column(np.float64, (3,)),
    "inv_mass": Column(np.float64, (), 1.0),
    "damp_air": Column(np.float64, (), DEFAULT_DAMP_AIR),
    "damp_ground": Column(np.float64, (), DEFAULT_DAMP_GROUND),
    "damp_ref": Column(np.int32, (), -1),
    "damp_rel": Column(np.float64, ()),
    "radius": Column(np.float64, ()),
    "ground_normal": Column(np.float64, (3,)),
    "flags": Column(np.uint8, ()),
    "body": Column(np.int32, (), -1),
    "lock_pos": Column(np.float64, (3,)),
    "move_target": Column(np.float64, (3,)),
    "move_time": Column(np.float64, ()),
    "rest_anchor": Column(np.float64, (3,)),
    "friction_hold": Column(np.float64, (3,)),
    "uid": Column(np.int64, ()),
}
LINK_COLUMNS = {
    "nodes": Column(np.int32, (2,)),
    "min": Column(np.float64, ()),
    "max": Column(np.float64, ()),
    "stiffness": Column(np.float64, (), 1.0),
    "mode": Column(np.uint8, ()),
    "visible": Column(np.bool_, (), True),
    "body": Column(np.int32, (), -1),
    "id": Column(np.int64, ()),
}
HINGE_COLUMNS = {
    "nodes": Column(np.int32, (7,)),
    "plane": Column(np.bool_, (), True),
    "bend_min": Column(np.float64, (), -math.inf),
    "body": Column(np.int32, (), -1),
}
ANGLE_COLUMNS = {
    "nodes": Column(np.int32, (3,)),
    "cos": Column(np.float64, (2,)),
    "body": Column(np.int32, (), -1),
}
PLANE_COLUMNS = {
    "normal": Column(np.float64, (3,)),
    "offset": Column(np.float64, ()),
    "friction": Column(np.float64, (), 1.0),
}
