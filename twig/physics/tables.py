"""The physics tables' columns (one declaration per column: dtype, per-row shape, default).

The world keeps one :class:`~twig.physics.columns.Columns` table per entity: nodes, links,
hinges, angle limits and static planes (collision volumes and bodies' collision state are in
``collision/system.py``). Each column is declared in the group it belongs to (model, state or
control: :mod:`twig.physics.groups`). docs/architecture.md, "State", gives each column's unit
and meaning.
"""

from __future__ import annotations

import math

import numpy as np

from twig.physics.columns import control, model, state

DEFAULT_DAMP_AIR = 0.002
"""Per-tick damping factor ``d`` of eq. 2 in the air: about 11 % of velocity lost per second."""
DEFAULT_DAMP_GROUND = 0.1
"""Per-tick damping in contact with the ground (Horswill VI.A: "large when in contact")."""

NODE_COLUMNS = {
    "pos": state(np.float64, (3,)),
    "prev": state(np.float64, (3,)),
    "acc": control(np.float64, (3,)),
    "inv_mass": model(np.float64, (), 1.0),
    "damp_air": model(np.float64, (), DEFAULT_DAMP_AIR),
    "damp_ground": model(np.float64, (), DEFAULT_DAMP_GROUND),
    "damp_ref": control(np.int32, (), -1),
    "damp_rel": control(np.float64, ()),
    "radius": model(np.float64, ()),
    "ground_normal": state(np.float64, (3,)),
    "flags": state(np.uint8, ()),
    "body": model(np.int32, (), -1),
    "lock_pos": state(np.float64, (3,)),
    "move_target": control(np.float64, (3,)),
    "move_time": state(np.float64, ()),
    "rest_anchor": state(np.float64, (3,)),
    "friction_hold": state(np.float64, (3,)),
    "uid": model(np.int64, ()),
}
"""Node columns. Control: ``acc`` (the tick consumes it), ``move_target`` and the damping
toward another node (``damp_ref``, ``damp_rel``: a carrying hand's). ``flags`` is state: the
tick sets GROUNDED, ASLEEP and clears MOVING; the node control methods set LOCKED and MOVING in
the same byte. ``move_time`` is state: the tick counts a set-point move's time down."""
LINK_COLUMNS = {
    "nodes": model(np.int32, (2,)),
    "min": model(np.float64, ()),
    "max": model(np.float64, ()),
    "stiffness": model(np.float64, (), 1.0),
    "mode": model(np.uint8, ()),
    "visible": model(np.bool_, (), True),
    "body": model(np.int32, (), -1),
    "id": model(np.int64, ()),
}
HINGE_COLUMNS = {
    "nodes": model(np.int32, (7,)),
    "plane": model(np.bool_, (), True),
    "bend_min": model(np.float64, (), -math.inf),
    "body": model(np.int32, (), -1),
}
ANGLE_COLUMNS = {
    "nodes": model(np.int32, (3,)),
    "cos": model(np.float64, (2,)),
    "body": model(np.int32, (), -1),
}
PLANE_COLUMNS = {
    "normal": model(np.float64, (3,)),
    "offset": model(np.float64, ()),
    "friction": model(np.float64, (), 1.0),
}
