"""The physics tick's arguments as six named records, each declared once.

:func:`~twig.physics.tick.physics_tick` takes the records below (box2d's step context,
MuJoCo's model and data): ``NamedTuple`` classes whose fields name, in order, the arrays and
numbers they carry. :func:`pack` fills a record from the world's tables by those names, and
the kernel unpacks it in the same order. A column added to the tick is a field added here
(and a name where the kernel unpacks it); whether the kernel may write it comes from the
column's declaration (its group: the model reaches the kernel read-only, see
:mod:`twig.physics.groups`), and the warm-up (:mod:`twig.warmup`) calls the stages with the
same records.

The five records of arrays reach the kernel in one object, an :class:`ArraysStruct` (a Numba
structure holding them as plain tuples, made when a table changes), the settings as a plain
tuple built every tick. Numba's dispatcher types and unboxes every array of every call: the
~80 arrays as tuples cost about 10 microseconds a call, most of a small world's tick, and a
named tuple is typed in Python, about 1 microsecond per field; the structure is one object,
its arrays already unboxed. Shapes, dtypes and units are those of the tables the fields come
from (:mod:`twig.physics.tables`, :mod:`twig.physics.collision.system`); N nodes, L links, V
volumes, B bodies, P pair rows.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping
from typing import Annotated, Any, NamedTuple, get_type_hints

import numpy as np
from numba.core import types
from numba.experimental import structref

from twig.physics.columns import Columns
from twig.physics.hot import kernel

ReadOnly = Annotated[np.ndarray, "read-only"]
"""A field the kernel only reads though it is not a model column: a control set-point the
tick reads (``move_target``), or an array derived from the model (the links in solver order,
each body's volumes...). :func:`pack` hands it to the kernel as a read-only view, as it hands
every column of the model (:data:`~twig.physics.columns.MODEL`, declared with the column), so a
kernel that wrote one would not compile."""


class Nodes(NamedTuple):
    """The node table's columns the tick reads and writes (``world.nodes``), by their names:
    the model's read-only (masses, damping, radii), state and control writable but for the
    control the tick only reads."""

    pos: np.ndarray
    prev: np.ndarray
    acc: np.ndarray
    inv_mass: np.ndarray
    flags: np.ndarray
    damp_air: np.ndarray
    damp_ground: np.ndarray
    damp_ref: ReadOnly
    damp_rel: ReadOnly
    radius: np.ndarray
    ground_normal: np.ndarray
    lock_pos: np.ndarray
    move_target: ReadOnly
    move_time: np.ndarray
    rest_anchor: np.ndarray
    friction_hold: np.ndarray


class Constraints(NamedTuple):
    """Links in solver order (the ``n_exact`` exactly solved first; ``link_nodes`` (L, 2)
    uint32: copies, so read-only here), and the model's knee hinges, angle limits and static
    planes (``world.model``'s columns, read-only there)."""

    link_nodes: ReadOnly
    link_min: ReadOnly
    link_max: ReadOnly
    link_stiffness: ReadOnly
    n_exact: int
    link_visible: ReadOnly
    hinge_nodes: np.ndarray
    hinge_plane: np.ndarray
    hinge_bend: np.ndarray
    angle_nodes: np.ndarray
    angle_cos: np.ndarray
    plane_normal: np.ndarray
    plane_offset: np.ndarray
    plane_friction: np.ndarray


class Volumes(NamedTuple):
    """The volume table's columns (``world.volumes``), by their names: all model (read-only)
    but the rolling spheres' ``spin``."""

    kind: np.ndarray
    nodes: np.ndarray
    radius: np.ndarray
    coef: np.ndarray
    group: np.ndarray
    mask: np.ndarray
    friction: np.ndarray
    passive: np.ndarray
    id: np.ndarray
    body: np.ndarray
    inertia: np.ndarray
    rolling_resistance: np.ndarray
    spin: np.ndarray


class Collision(NamedTuple):
    """Arrays derived from the topology (rebuilt when it changes: the rolling spheres, the
    boxes (None in a world without any: the tick is then compiled without the box code), their
    frames, each body's volumes and self pairs, the linked pairs, the broad phase's grown
    boxes, each node's body row) and the body table's columns the tick uses (sleep counters
    and pain: state; pain thresholds and half-lives: model, read-only by their declaration)."""

    has_spheres: bool
    rollers: ReadOnly
    node_roller: ReadOnly
    boxes: ReadOnly | None
    box_c: np.ndarray
    box_u: np.ndarray
    box_h: np.ndarray
    corner_push: np.ndarray
    corner_plane: np.ndarray
    body_vols: ReadOnly
    body_vol_start: ReadOnly
    self_pairs: ReadOnly
    self_start: ReadOnly
    linked_keys: ReadOnly
    linked_bodies: ReadOnly
    build_lo: np.ndarray
    build_hi: np.ndarray
    body_lo: np.ndarray
    body_hi: np.ndarray
    node_row: ReadOnly
    body_start: ReadOnly
    body_count: ReadOnly
    can_sleep: ReadOnly
    still: np.ndarray
    pain: np.ndarray
    pain_threshold: np.ndarray
    pain_half_life: np.ndarray


class Pairs(NamedTuple):
    """The broad phase's candidate list and the contact rows (P rows each; their columns are
    declared in :mod:`twig.physics.collision.pair_table`), this tick's hits and pain, and the
    broad phase's counters."""

    pair_vol: np.ndarray
    pair_key: np.ndarray
    pair_seen: np.ndarray
    block_key: np.ndarray
    block_start: np.ndarray
    pair_i: np.ndarray
    pair_b: np.ndarray
    pair_f: np.ndarray
    active: np.ndarray
    hit_row: np.ndarray
    hit_ids: np.ndarray
    pain_hits: np.ndarray
    pain_level: np.ndarray
    broad_stats: np.ndarray


class Settings(NamedTuple):
    """Numbers users may change between ticks, in the units the kernels use."""

    margin: float
    """The broad phase's margin on each volume's grown box (m)."""
    lookahead: float
    """Ticks of each volume's last motion added to its grown box."""
    force: bool
    """Rebuild the pair list this tick."""
    use_grid: bool
    """Pair bodies through the uniform grid (else every pair of bodies)."""
    sleep_drift: float
    """Most a sleeping candidate may drift from where it came to rest (m)."""
    sleep_step: float
    """Most a node of a sleeping candidate may move in one tick (m)."""
    sleep_ticks: int
    """Still ticks before a body sleeps; <= 0 disables sleeping."""
    depenetration: float
    """How far contacts may separate a pair beyond its approach in one tick (m)."""
    static_slide: float
    """Largest slide of two bodies' capsules that static friction holds (m; 0: none)."""
    gravity: np.ndarray
    """Gravity (3,) (m/s^2)."""
    dt: float
    """The tick (s)."""
    iterations: int
    """Relaxation iterations per tick."""


RECORDS: tuple[type[NamedTuple], ...] = (Nodes, Constraints, Volumes, Collision, Pairs,
                                         Settings)
"""The records in the order :func:`~twig.physics.tick.physics_tick` unpacks them."""


class Arrays(NamedTuple):
    """The records of arrays, each a plain tuple (:func:`pack`), as
    :func:`~twig.physics.tick.physics_tick` reads them: ``arrays.nodes`` and so on, from this
    record in Python (the warm-up) and from its :class:`ArraysStruct` in compiled code."""

    nodes: tuple
    constraints: tuple
    volumes: tuple
    collision: tuple
    pairs: tuple


@structref.register
class ArraysType(types.StructRef):
    """Numba's type of an :class:`ArraysStruct`: one per kind of world (the tuples' types)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class ArraysStruct(structref.StructRefProxy):
    """:class:`Arrays` as one Numba structure (made by :func:`as_struct`)."""


structref.define_constructor(ArraysStruct, ArraysType, Arrays._fields)
structref.define_boxing(ArraysType, ArraysStruct)


@kernel
def _struct(nodes, constraints, volumes, collision, pairs):
    """The structure of the five records (compiled and cached like every kernel: a structure
    made in Python compiles its constructor in every process)."""
    return ArraysStruct(nodes, constraints, volumes, collision, pairs)


def as_struct(arrays: Arrays) -> ArraysStruct:
    """``arrays`` in one object for the tick kernel; the arrays are the same, not copies."""
    return _struct(*arrays)


def pack(record: type[NamedTuple], source: Columns | Mapping[str, Any]) -> tuple:
    """The values of ``record``'s fields taken from ``source`` by name, in field order, as the
    plain tuple a kernel takes: a table's columns as the table gives them (the model's
    read-only), and the :data:`ReadOnly` fields as read-only views."""
    values = _getter(record)(source)
    read_only = _read_only_fields(record)
    if not read_only:
        return values
    return tuple(_read_only(v) if k in read_only else v for k, v in enumerate(values))


@functools.cache
def _read_only_fields(record: type[NamedTuple]) -> frozenset[int]:
    """Positions of ``record``'s :data:`ReadOnly` fields."""
    hints = get_type_hints(record, include_extras=True)
    return frozenset(k for k, name in enumerate(record._fields)
                     if hints[name] == ReadOnly or hints[name] == ReadOnly | None)


def _read_only(value: Any) -> Any:
    """A read-only view of an array (the same memory); anything else as it is."""
    if not isinstance(value, np.ndarray):
        return value
    view = value.view()
    view.flags.writeable = False
    return view


@functools.cache
def _getter(record: type[NamedTuple]) -> operator.itemgetter:
    """Takes ``record``'s fields out of a mapping in one call (a kernel's records are packed
    every tick: the motor kernel's)."""
    return operator.itemgetter(*record._fields)
