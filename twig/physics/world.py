"""The physics world: structure-of-arrays state, the tick, and edits between ticks.

Nodes are point masses (Horswill 2009, section V); links, hinges and angle limits are constraints
between them solved by projection (section VI.B; Jakobsen 2001); static planes (the ground y = 0,
Jakobsen's box) collide with nodes and apply friction. Bodies are handles over node ranges.
Everything is float64 in metres, kilograms and seconds, with y up.
"""

from __future__ import annotations

import hashlib
import time as _time
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from twig.errors import PhysicsError, UnknownNameError
from twig.events import EventBus
from twig.physics.collision.broad import PAIRS
from twig.physics.collision.system import CollisionMixin
from twig.physics.columns import Columns
from twig.physics.constraint_edits import ConstraintEdits
from twig.physics.control import NodeControl
from twig.physics.groups import TABLES, Control, Model, State
from twig.physics.handles import Body, BodyRecord
from twig.physics.records import ArraysStruct
from twig.physics.snapshot import Snapshot, put_back, take_snapshot
from twig.physics.stages import AFTER_PHYSICS, BEFORE_PHYSICS, Profile, Stages
from twig.physics.tables import (
    ANGLE_COLUMNS,
    DEFAULT_DAMP_AIR,
    DEFAULT_DAMP_GROUND,
    HINGE_COLUMNS,
    LINK_COLUMNS,
    NODE_COLUMNS,
    PLANE_COLUMNS,
)
from twig.physics.tick import array_args, physics_tick, setting_args
from twig.physics.validate import as_points, as_positive, as_scalar_or_array

__all__ = ["DEFAULT_DAMP_AIR", "DEFAULT_DAMP_GROUND", "PhysicsWorld", "Snapshot"]


class PhysicsWorld(ConstraintEdits, NodeControl, CollisionMixin):
    """Nodes, constraints, static planes and collision volumes, advanced by :meth:`step`.

    Parameters
    ----------
    seed
        Seed of ``self.rng`` (``numpy.random.Generator``), the source of every random choice.
    iterations
        Relaxation iterations K per tick (Jakobsen section 4; default 4).
    gravity
        m/s^2, shape (3,).
    ground
        Add the ground plane y = 0 with ``ground_friction``.
    ground_friction
        Jakobsen friction coefficient of the ground (dimensionless, >= 0).
    dt
        Tick length in seconds; Verlet needs it fixed (default 1/60).

    ``model``, ``state`` and ``control`` are what the world is, what changes as it runs, and
    the set-points for its next tick (:mod:`~twig.physics.groups`); the tables ``nodes``,
    ``links``, ``hinges``, ``angles``, ``planes``, ``volumes`` and ``body_state`` hold the
    three's columns. Arrays ``node_<quantity>`` and ``link_<quantity>`` are live views of the
    tables: read them freely, change them through methods so that invariants hold (and the
    model's stamps follow its changes). ``events`` is the world's
    :class:`~twig.events.EventBus` (pain and contact events from here, more from the layers
    above). ``stages`` holds what the layers above run in each stage of the tick
    (:mod:`~twig.physics.stages`), ``profile`` what each stage of the last tick cost.
    """

    OWN_STATE = frozenset({
        "nodes", "links", "hinges", "angles", "planes", "volumes", "body_state", "model",
        "state", "control"})
    """Attributes :meth:`snapshot` copies itself."""
    CACHES = frozenset({
        "_solver", "_solver_slot", "_solver_version", "_args_key", "_args", "_col_version",
        "_col", "rebuild_pairs", "broad_stats", "profile", "_pair_vol", "_pair_key",
        "_pair_seen", "_block_key", "_block_start", "_pair_i", "_pair_b", "_pair_f", "_pair_active",
        "_hit_row", "_hit_ids", "_pain_hits", "_pain_level"})
    """Attributes derived from the state or scratch buffers of the tick: no snapshot keeps
    them (a restore rebuilds what it needs). Every other attribute, including those the layers
    above set, is state that ``twig.World.snapshot`` keeps."""

    def __init__(self, seed: int = 0, iterations: int = 4,
                 gravity: ArrayLike = (0.0, -9.81, 0.0), ground: bool = True,
                 ground_friction: float = 1.0, dt: float = 1.0 / 60.0) -> None:
        if not isinstance(iterations, int) or iterations < 1:
            raise PhysicsError(f"iterations must be a positive integer, got {iterations!r}")
        self.dt = as_positive(dt, "dt")
        self.iterations = iterations
        self.gravity = as_points(gravity, "gravity").reshape(3)
        self.seed = seed
        self.nodes = Columns(NODE_COLUMNS)
        self.links = Columns(LINK_COLUMNS)
        self.hinges = Columns(HINGE_COLUMNS)
        self.angles = Columns(ANGLE_COLUMNS)
        self.planes = Columns(PLANE_COLUMNS)
        self._init_collision()
        tables = self.tables()
        self.model = Model(tables)
        self.state = State(tables, seed)
        self.control = Control(tables)
        self._init_constraints()
        self._args_key: tuple = ()
        self._args: ArraysStruct | None = None
        self.stages = Stages()
        self.profile = Profile()
        self.events = EventBus(lambda: self.time)
        if ground:
            self.add_plane((0.0, 1.0, 0.0), (0.0, 0.0, 0.0), friction=ground_friction)

    # ------------------------------------------------------------------ state views
    def tables(self) -> dict[str, Columns]:
        """The world's tables by name: the storage of the model's, the state's and the
        control's columns."""
        return {name: getattr(self, name) for name in TABLES}

    @property
    def tick(self) -> int:
        """Ticks run so far (``state.tick``)."""
        return self.state.tick

    @property
    def rng(self) -> np.random.Generator:
        """The world's random generator (``state.rng``), the source of every random choice."""
        return self.state.rng

    @property
    def time(self) -> float:
        """Simulated seconds since the world was made."""
        return self.tick * self.dt

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)

    @property
    def n_links(self) -> int:
        return len(self.links)

    node_pos = property(lambda self: self.nodes["pos"], doc="(N, 3) float64 positions, m.")
    node_prev = property(lambda self: self.nodes["prev"], doc="(N, 3) positions a tick ago, m.")
    node_inv_mass = property(lambda self: self.nodes["inv_mass"], doc="(N,) 1/kg; 0 = static.")
    node_flags = property(lambda self: self.nodes["flags"], doc="(N,) uint8 physics.flags bits.")
    node_body = property(lambda self: self.nodes["body"], doc="(N,) int32 owning body id.")
    link_nodes = property(lambda self: self.links["nodes"], doc="(L, 2) int32 node indices.")
    link_min = property(lambda self: self.links["min"], doc="(L,) minimum length, m.")
    link_max = property(lambda self: self.links["max"], doc="(L,) maximum length, m.")
    link_visible = property(lambda self: self.links["visible"], doc="(L,) bool drawn or not.")

    @property
    def node_vel(self) -> np.ndarray:
        """(N, 3) velocity over the last tick, m/s (a new array)."""
        return (self.node_pos - self.node_prev) / self.dt

    # ------------------------------------------------------------------ bodies
    def add_body(self, name: str, type: str, positions: ArrayLike, *,
                 mass: ArrayLike = 1.0, node_names: Sequence[str] | None = None,
                 radius: ArrayLike = 0.0, damp_air: ArrayLike = DEFAULT_DAMP_AIR,
                 damp_ground: ArrayLike = DEFAULT_DAMP_GROUND,
                 velocity: ArrayLike = (0.0, 0.0, 0.0), meta: dict | None = None) -> Body:
        """Add a body of nodes; builders then add its links with :meth:`add_link`.

        Parameters
        ----------
        name
            Unique body name.
        type
            What it is (``"stick"``, ``"cloth"``, ``"humanoid"``...), recorded per node.
        positions
            (n, 3) metres, finite.
        mass
            kg per node (scalar or (n,)); ``math.inf`` makes a static node (inverse mass 0).
        node_names
            n unique names; default ``"0"``, ``"1"``...
        radius
            Collision radius of each node against static planes, metres.
        damp_air, damp_ground
            Damping factor d of eq. 2 per tick, in [0, 1).
        velocity
            Initial velocity, m/s, (3,) or (n, 3).
        """
        if not isinstance(name, str) or not name:
            raise PhysicsError(f"body name must be a non-empty string, got {name!r}")
        if any(rec.name == name for rec in self.model.body_records.values()):
            raise PhysicsError(f"a body called {name!r} already exists")
        pos = as_points(positions, f"{name}: positions")
        n = len(pos)
        mass_arr = as_scalar_or_array(mass, n, f"{name}: mass")
        if np.isnan(mass_arr).any() or (mass_arr <= 0).any():
            raise PhysicsError(f"{name}: masses must be positive (inf for static), got {mass!r}")
        names = tuple(node_names) if node_names is not None else tuple(str(i) for i in range(n))
        if len(names) != n or len(set(names)) != n:
            raise PhysicsError(f"{name}: need {n} unique node names, got {list(names)!r}")
        radius_arr = as_scalar_or_array(radius, n, f"{name}: radius")
        if (radius_arr < 0).any() or not np.isfinite(radius_arr).all():
            raise PhysicsError(f"{name}: radius must be finite and >= 0, got {radius!r}")
        damp = {}
        for key, value in (("damp_air", damp_air), ("damp_ground", damp_ground)):
            damp[key] = as_scalar_or_array(value, n, f"{name}: {key}")
            if not ((damp[key] >= 0) & (damp[key] < 1)).all():
                raise PhysicsError(f"{name}: {key} must lie in [0, 1), got {value!r}")
        vel = np.broadcast_to(as_points(velocity, f"{name}: velocity"), (n, 3))
        counters = self.model.counters
        body_id = counters["body"]
        uid0 = counters["node"]
        start = len(self.nodes)
        self.nodes.append(n, {
            "pos": pos, "prev": pos - vel * self.dt, "inv_mass": 1.0 / mass_arr,
            "radius": radius_arr, "body": body_id, "lock_pos": pos, "move_target": pos,
            "uid": np.arange(uid0, uid0 + n), **damp,
        })
        counters["body"] += 1
        counters["node"] += n
        self.model.body_records[body_id] = BodyRecord(body_id, name, type, start, n, names,
                                                      dict(meta or {}))
        self.body_state.append(1, {"id": body_id})
        self._touch()
        return Body(self, body_id)

    def body(self, name: str) -> Body:
        """The body called ``name``."""
        records = self.model.body_records
        for rec in records.values():
            if rec.name == name:
                return Body(self, rec.id)
        known = ", ".join(rec.name for rec in records.values()) or "none"
        raise UnknownNameError(f"no body called {name!r} (bodies: {known})")

    @property
    def bodies(self) -> list[Body]:
        """All bodies, in creation order."""
        return [Body(self, i) for i in self.model.body_records]

    def body_record(self, body_id: int) -> BodyRecord:
        """The bookkeeping of body ``body_id`` (name, type, node range, ``meta`` of its
        builder); UnknownNameError once it has been removed."""
        try:
            return self.model.body_records[body_id]
        except KeyError:
            raise UnknownNameError(f"body #{body_id} has been removed") from None

    def has_body(self, body_id: int) -> bool:
        """Whether body ``body_id`` is still in the world."""
        return body_id in self.model.body_records

    def node_index(self, name: str) -> int:
        """Global index of ``"body/node"`` (e.g. ``"kid/l_hand"``)."""
        body, sep, node = name.rpartition("/")
        if not sep:
            raise UnknownNameError(f"node names look like 'body/node', got {name!r}")
        return self.body(body).node(node)

    def node_names(self) -> list[str]:
        """``"body/node"`` for every node, in array order."""
        return [f"{rec.name}/{n}" for rec in self.model.body_records.values()
                for n in rec.node_names]

    def remove_body(self, body: Body | str) -> None:
        """Remove a body with its nodes and every link, hinge and angle limit touching them."""
        rec = self.body_record(body.id if isinstance(body, Body) else self.body(body).id)
        keep = np.ones(len(self.nodes), dtype=bool)
        keep[rec.start:rec.start + rec.count] = False
        self._remove_nodes(keep)
        self.body_state.keep(self.body_state["id"] != rec.id)
        records = self.model.body_records
        del records[rec.id]
        for other in records.values():
            if other.start > rec.start:
                other.start -= rec.count
        self.events.emit("removed", object=rec.name, kind=rec.type, id=rec.id)

    def _remove_nodes(self, keep: np.ndarray) -> None:
        new_index = np.cumsum(keep) - 1
        new_index[~keep] = -1
        for table in (self.links, self.hinges, self.angles, self.volumes):
            if len(table):
                refs = table["nodes"]
                table.keep(keep[refs].all(axis=1))
                table.edit("nodes")[:] = new_index[table["nodes"]]
        ref = self.nodes["damp_ref"]
        has_ref = ref >= 0
        ref[has_ref] = new_index[ref[has_ref]]
        self.nodes.keep(keep)
        self._touch()

    # ------------------------------------------------------------------ the tick
    def __getstate__(self) -> dict:
        """The world's attributes for pickling (``World.save``), without the tick kernel's
        structure of arrays: it lives in compiled code, and the unpickled world makes its own
        on its first tick."""
        state = dict(vars(self))
        state["_args"], state["_args_key"] = None, ()
        return state

    def _tick_args(self) -> ArraysStruct:
        """The tick kernel's arrays (:func:`~twig.physics.tick.array_args`), taken again only
        when a table or buffer changed (a step reads dozens of columns: about 10 microseconds
        of Python otherwise)."""
        key = (self.model.counters["topology"], self.planes.version, self.body_state.version,
               len(self._pair_vol))
        if self._args_key != key:
            self._args = array_args(self)
            self._args_key = key
        return self._args

    def step(self, n: int = 1) -> None:
        """Advance ``n`` ticks, each running the stages of :mod:`~twig.physics.stages` in
        order: the layers' stages before physics, then one kernel call (broad phase, integrate
        (eq. 2), project (K iterations), friction, sleep, contacts, pain), tactile memory and
        events, the tick count, then the ``record`` stage. Each stage's wall time goes into
        :attr:`profile`."""
        stages, profile, clock = self.stages, self.profile, _time.perf_counter
        for _ in range(n):
            start = clock()
            stages.run(BEFORE_PHYSICS, profile)
            t0 = clock()
            self._physics_tick()
            spent = clock() - t0
            profile.last["physics"] = spent
            profile.total["physics"] += spent
            stages.run(AFTER_PHYSICS, profile)
            spent = clock() - start
            profile.last["step"] = spent
            profile.total["step"] += spent
            profile.ticks += 1

    def _physics_tick(self) -> None:
        """The physics stage: the tick kernel, then contacts and pain; the tick count."""
        n_pairs, n_contacts, n_pain = physics_tick(self._tick_args(), setting_args(self))
        if n_contacts < 0:
            # More candidate pairs than buffer rows: nothing moved; grow and list again.
            self._grow_pairs(2 * n_pairs)
            self.broad_stats[PAIRS] = 0
            self.rebuild_pairs = True
            n_pairs, n_contacts, n_pain = physics_tick(self._tick_args(), setting_args(self))
        self.rebuild_pairs = False
        self._sense(n_contacts, n_pain)
        self.state.tick += 1

    # ------------------------------------------------------------------ determinism
    def snapshot(self) -> Snapshot:
        """A copy of the physics state and control, and the model as it is (shared with the
        last snapshot where unchanged); :meth:`restore` of it gives the same future (for a
        world without the layers above; ``twig.World.snapshot`` keeps theirs too)."""
        return take_snapshot(self)

    def forget_derived(self) -> None:
        """Drop what is derived from the model (the links in solver order, the kernel's
        arrays, the collision arrays): they are rebuilt at the next tick (a restore)."""
        self._solver_version = -1
        self._args_key = ()
        self._col_version = -1

    def restore(self, snap: Snapshot) -> None:
        """Return to a :meth:`snapshot` (bodies removed since then come back)."""
        put_back(self, snap)

    def state_hash(self) -> str:
        """Hex digest of the dynamic state (positions, previous positions, friction's hold,
        flags, the rolling spheres' spin, tick)."""
        h = hashlib.blake2b(digest_size=16)
        for arr in (self.node_pos, self.node_prev, self.nodes["friction_hold"], self.node_flags,
                    self.link_nodes, self.volumes["spin"]):
            h.update(np.ascontiguousarray(arr).tobytes())
        h.update(self.tick.to_bytes(8, "little"))
        return h.hexdigest()

