"""The physics tick's arguments as six named records, each declared once.

:func:`~twig.physics.tick.physics_tick` takes the records below (box2d's step context,
MuJoCo's model and data): ``NamedTuple`` classes whose fields name, in order, the arrays and
numbers they carry. :func:`pack` fills a record from the world's tables by those names, and
the kernel unpacks it in the same order. A column added to the tick is a field added here
(and a name where the kernel unpacks it); the warm-up (:mod:`twig.warmup`) calls the stages
with the same records.

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

from twig.physics.hot import kernel

Model = Annotated[np.ndarray, "model"]
"""A field the tick only reads: the world's description (masses, damping, the constraints,
the volumes and what is derived from them) and the set-points commands leave between ticks
(MuJoCo's *mjModel*, where the other fields are its *mjData*: the state the tick changes, and
its scratch). :func:`pack` hands it to the kernel as a read-only view, so a kernel that wrote
one would not compile; the world's own array stays writable for the commands."""


class Nodes(NamedTuple):
    """The node table's columns the tick reads and writes (``world.nodes``), by their names."""

    pos: np.ndarray
    prev: np.ndarray
    acc: np.ndarray
    inv_mass: Model
    flags: np.ndarray
    damp_air: Model
    damp_ground: Model
    damp_ref: Model
    damp_rel: Model
    radius: Model
    ground_normal: np.ndarray
    lock_pos: np.ndarray
    move_target: Model
    move_time: np.ndarray
    rest_anchor: np.ndarray
    friction_hold: np.ndarray


class Constraints(NamedTuple):
    """Links in solver order (the ``n_exact`` exactly solved first; ``link_nodes`` (L, 2)
    uint32), knee hinges, angle limits and static planes."""

    link_nodes: Model
    link_min: Model
    link_max: Model
    link_stiffness: Model
    n_exact: int
    hinge_nodes: Model
    hinge_plane: Model
    hinge_bend: Model
    angle_nodes: Model
    angle_cos: Model
    plane_normal: Model
    plane_offset: Model
    plane_friction: Model


class Volumes(NamedTuple):
    """The volume table's columns (``world.volumes``), by their names."""

    kind: Model
    nodes: Model
    radius: Model
    coef: Model
    group: Model
    mask: Model
    friction: Model
    passive: Model
    id: Model
    body: Model
    inertia: Model
    rolling_resistance: Model
    spin: np.ndarray


class Collision(NamedTuple):
    """Arrays derived from the topology (rebuilt when it changes: the rolling spheres, the
    boxes (None in a world without any: the tick is then compiled without the box code), their
    frames, each body's volumes and self pairs, the linked pairs, the broad phase's grown
    boxes, each node's body row) and the body state the tick uses (sleep counters, pain)."""

    has_spheres: bool
    rollers: Model
    node_roller: Model
    boxes: Model | None
    box_c: np.ndarray
    box_u: np.ndarray
    box_h: np.ndarray
    corner_push: np.ndarray
    corner_plane: np.ndarray
    body_vols: Model
    body_vol_start: Model
    self_pairs: Model
    self_start: Model
    linked_keys: Model
    linked_bodies: Model
    build_lo: np.ndarray
    build_hi: np.ndarray
    body_lo: np.ndarray
    body_hi: np.ndarray
    node_row: Model
    body_start: Model
    body_count: Model
    can_sleep: Model
    still: np.ndarray
    pain: np.ndarray
    pain_threshold: Model
    pain_half_life: Model


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


def pack(record: type[NamedTuple], source: Mapping[str, Any]) -> tuple:
    """The values of ``record``'s fields taken from ``source`` by name, in field order, as the
    plain tuple a kernel takes; its :data:`Model` fields as read-only views."""
    values = _getter(record)(source)
    model = _model_fields(record)
    if not model:
        return values
    return tuple(_read_only(v) if k in model else v for k, v in enumerate(values))


@functools.cache
def _model_fields(record: type[NamedTuple]) -> frozenset[int]:
    """Positions of ``record``'s :data:`Model` fields."""
    hints = get_type_hints(record, include_extras=True)
    return frozenset(k for k, name in enumerate(record._fields)
                     if hints[name] == Model or hints[name] == Model | None)


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
