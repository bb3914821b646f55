"""The physics world: structure-of-arrays state, the tick, and edits between ticks.

Nodes are point masses (Horswill 2009, section V); links, hinges and angle limits are constraints
between them solved by projection (section VI.B; Jakobsen 2001); static planes (the ground y = 0,
Jakobsen's box) collide with nodes and apply friction. Bodies are handles over node ranges.
Everything is float64 in metres, kilograms and seconds, with y up.
"""

from __future__ import annotations

import hashlib
import math
import time as _time
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from twig.errors import PhysicsError, UnknownNameError
from twig.events import EventBus
from twig.physics.collision.broad import PAIRS
from twig.physics.collision.system import CollisionMixin
from twig.physics.columns import Columns
from twig.physics.constraints import LINK_SQRT_APPROX
from twig.physics.control import NodeControl
from twig.physics.handles import Body, BodyRecord, Link
from twig.physics.ordering import link_order
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
from twig.physics.validate import as_indices, as_points, as_positive, as_scalar_or_array

__all__ = ["DEFAULT_DAMP_AIR", "DEFAULT_DAMP_GROUND", "PhysicsWorld", "Snapshot"]


class PhysicsWorld(NodeControl, CollisionMixin):
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

    Arrays ``node_<quantity>`` and ``link_<quantity>`` are live views of the state: read them
    freely, change state through methods so that invariants hold. ``events`` is the world's
    :class:`~twig.events.EventBus` (pain and contact events from here, more from the layers
    above). ``stages`` holds what the layers above run in each stage of the tick
    (:mod:`~twig.physics.stages`), ``profile`` what each stage of the last tick cost.
    """

    OWN_STATE = frozenset({
        "nodes", "links", "hinges", "angles", "planes", "volumes", "body_state", "_bodies",
        "_counters", "tick", "rng", "_contacts", "_contacts_at", "_touches", "pain_events"})
    """Attributes :meth:`snapshot` copies itself."""
    CACHES = frozenset({
        "_solver", "_solver_slot", "_solver_version", "_args_key", "_args", "_col_version",
        "_col", "_col_force", "broad_stats", "profile", "_pair_vol", "_pair_key", "_pair_seen",
        "_block_key", "_block_start", "_pair_i", "_pair_b", "_pair_f", "_pair_active",
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
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.tick = 0
        self.nodes = Columns(NODE_COLUMNS)
        self.links = Columns(LINK_COLUMNS)
        self.hinges = Columns(HINGE_COLUMNS)
        self.angles = Columns(ANGLE_COLUMNS)
        self.planes = Columns(PLANE_COLUMNS)
        self._bodies: dict[int, BodyRecord] = {}
        self._counters = {"body": 0, "link": 0, "node": 0, "topology": 0}
        self._solver: tuple = ()
        self._solver_slot = np.zeros(0, dtype=np.int64)
        self._solver_version = -1
        self._args_key: tuple = ()
        self._args: ArraysStruct | None = None
        self.stages = Stages()
        self.profile = Profile()
        self.events = EventBus(lambda: self.time)
        self._init_collision()
        if ground:
            self.add_plane((0.0, 1.0, 0.0), (0.0, 0.0, 0.0), friction=ground_friction)

    # ------------------------------------------------------------------ state views
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
        if any(rec.name == name for rec in self._bodies.values()):
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
        body_id = self._counters["body"]
        uid0 = self._counters["node"]
        start = len(self.nodes)
        self.nodes.append(n, {
            "pos": pos, "prev": pos - vel * self.dt, "inv_mass": 1.0 / mass_arr,
            "radius": radius_arr, "body": body_id, "lock_pos": pos, "move_target": pos,
            "uid": np.arange(uid0, uid0 + n), **damp,
        })
        self._counters["body"] += 1
        self._counters["node"] += n
        self._bodies[body_id] = BodyRecord(body_id, name, type, start, n, names, dict(meta or {}))
        self.body_state.append(1, {"id": body_id})
        self._touch()
        return Body(self, body_id)

    def body(self, name: str) -> Body:
        """The body called ``name``."""
        for rec in self._bodies.values():
            if rec.name == name:
                return Body(self, rec.id)
        known = ", ".join(rec.name for rec in self._bodies.values()) or "none"
        raise UnknownNameError(f"no body called {name!r} (bodies: {known})")

    @property
    def bodies(self) -> list[Body]:
        """All bodies, in creation order."""
        return [Body(self, i) for i in self._bodies]

    def body_record(self, body_id: int) -> BodyRecord:
        """The bookkeeping of body ``body_id`` (name, type, node range, ``meta`` of its
        builder); UnknownNameError once it has been removed."""
        try:
            return self._bodies[body_id]
        except KeyError:
            raise UnknownNameError(f"body #{body_id} has been removed") from None

    def has_body(self, body_id: int) -> bool:
        """Whether body ``body_id`` is still in the world."""
        return body_id in self._bodies

    def node_index(self, name: str) -> int:
        """Global index of ``"body/node"`` (e.g. ``"kid/l_hand"``)."""
        body, sep, node = name.rpartition("/")
        if not sep:
            raise UnknownNameError(f"node names look like 'body/node', got {name!r}")
        return self.body(body).node(node)

    def node_names(self) -> list[str]:
        """``"body/node"`` for every node, in array order."""
        return [f"{rec.name}/{n}" for rec in self._bodies.values() for n in rec.node_names]

    def remove_body(self, body: Body | str) -> None:
        """Remove a body with its nodes and every link, hinge and angle limit touching them."""
        rec = self.body_record(body.id if isinstance(body, Body) else self.body(body).id)
        keep = np.ones(len(self.nodes), dtype=bool)
        keep[rec.start:rec.start + rec.count] = False
        self._remove_nodes(keep)
        self.body_state.keep(self.body_state["id"] != rec.id)
        del self._bodies[rec.id]
        for other in self._bodies.values():
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
                table["nodes"][:] = new_index[table["nodes"]]
        ref = self.nodes["damp_ref"]
        has_ref = ref >= 0
        ref[has_ref] = new_index[ref[has_ref]]
        self.nodes.keep(keep)
        self._touch()

    # ------------------------------------------------------------------ constraints
    def _check_nodes(self, idx: np.ndarray, what: str) -> np.ndarray:
        n = len(self.nodes)
        if ((idx < 0) | (idx >= n)).any():
            raise PhysicsError(f"{what}: node index out of range 0..{n - 1}: {idx.tolist()}")
        return idx

    def add_link(self, a: int, b: int, *, rest: float | None = None, min: float | None = None,
                 max: float | None = None, stiffness: float = 1.0, sqrt_approx: bool = False,
                 grab: bool = False, visible: bool = True, body: Body | None = None) -> Link:
        """Add a distance constraint between nodes ``a`` and ``b`` (Horswill eq. 3).

        Kinds: rigid (``rest``, default the current distance); inequality (``min`` and/or
        ``max``, Jakobsen's anti-crossing sticks); zero-length grab (``grab=True``: the nodes are
        held together, Horswill VI.C); soft (``stiffness`` < 1: that fraction of the error is
        repaired per tick). ``sqrt_approx`` uses Jakobsen's square-root approximation (rigid only).
        """
        a_i, b_i = self._check_nodes(as_indices([a, b], "link nodes"), "link")
        if a_i == b_i:
            raise PhysicsError(f"a link needs two different nodes, got {a_i} twice")
        if not 0.0 < stiffness <= 1.0:
            raise PhysicsError(f"link stiffness must lie in (0, 1], got {stiffness!r}")
        current = float(np.linalg.norm(self.node_pos[a_i] - self.node_pos[b_i]))
        if grab:
            lo = hi = 0.0
        elif min is not None or max is not None:
            lo = 0.0 if min is None else float(min)
            hi = math.inf if max is None else float(max)
            if not (0.0 <= lo <= hi) or math.isnan(lo) or math.isnan(hi) or lo == math.inf:
                raise PhysicsError(f"inequality link needs 0 <= min <= max, got {min}, {max}")
        else:
            lo = hi = current if rest is None else float(rest)
            if not (math.isfinite(lo) and lo > 0.0):
                raise PhysicsError(
                    f"rigid link {a_i}-{b_i} needs a positive finite rest length, got {lo!r} "
                    "(zero-length links are grabs: pass grab=True)")
        if sqrt_approx and (lo != hi or lo == 0.0):
            raise PhysicsError("sqrt_approx applies to rigid links of positive length only")
        link_id = self._counters["link"]
        self._counters["link"] += 1
        self.links.append(1, {
            "nodes": [a_i, b_i], "min": lo, "max": hi, "stiffness": stiffness,
            "mode": LINK_SQRT_APPROX if sqrt_approx else 0, "visible": visible and not grab,
            "body": -1 if body is None else body.id, "id": link_id,
        })
        self._touch()
        return Link(self, link_id)

    def add_links(self, pairs: ArrayLike, *, max: ArrayLike | None = None,
                  body: Body | None = None, visible: bool = True,
                  sqrt_approx: bool = False) -> np.ndarray:
        """Add many links at once (vectorised: cloth, ropes, tethers); returns their ids.

        ``pairs`` is (L, 2) int node indices. Without ``max`` the links are rigid with rest
        lengths equal to the current distances; with ``max`` ((L,) metres) they are inequality
        links that only stop the nodes separating farther than that.
        """
        idx = self._check_nodes(as_indices(pairs, "link pairs").reshape(-1, 2), "links")
        if (idx[:, 0] == idx[:, 1]).any():
            same = idx[idx[:, 0] == idx[:, 1]][0].tolist()
            raise PhysicsError(f"a link needs two different nodes, got {same}")
        if max is None:
            lo = hi = np.linalg.norm(self.node_pos[idx[:, 0]] - self.node_pos[idx[:, 1]], axis=1)
            if (lo <= 0).any():
                bad = idx[lo <= 0][0].tolist()
                raise PhysicsError(f"rigid link between coincident nodes {bad}: rest length is 0")
        else:
            hi = np.broadcast_to(np.asarray(max, dtype=np.float64), (len(idx),))
            lo = np.zeros(len(idx))
            if np.isnan(hi).any() or (hi < 0).any() or sqrt_approx:
                raise PhysicsError("inequality links need max >= 0 and no sqrt_approx")
        ids = np.arange(self._counters["link"], self._counters["link"] + len(idx))
        self._counters["link"] += len(idx)
        self.links.append(len(idx), {
            "nodes": idx, "min": lo, "max": hi, "visible": visible,
            "mode": LINK_SQRT_APPROX if sqrt_approx else 0,
            "body": -1 if body is None else body.id, "id": ids,
        })
        self._touch()
        return ids

    def _link_row(self, link_id: int, missing_ok: bool = False) -> int | None:
        rows = np.flatnonzero(self.links["id"] == link_id)
        if len(rows):
            return int(rows[0])
        if missing_ok:
            return None
        raise UnknownNameError(f"link #{link_id} has been removed")

    def remove_link(self, link: Link) -> None:
        """Remove one link (e.g. release a grab). Removing a removed link is an error."""
        row = self._link_row(link.id)
        keep = np.ones(len(self.links), dtype=bool)
        keep[row] = False
        self.links.keep(keep)
        self._touch()

    def remove_links(self, link_ids: ArrayLike) -> None:
        """Remove the links with these ids that are still there (a body removed since may have
        taken some with it)."""
        gone = np.isin(self.links["id"], np.asarray(link_ids, dtype=np.int64))
        if gone.any():
            self.links.keep(~gone)
            self._touch()

    def add_hinge(self, root: int, joint: int, end: int, forward: Sequence[int], *,
                  plane: bool = True, bend_min: float = -math.inf,
                  body: Body | None = None) -> None:
        """Knee-style joint limits on the chain ``root - joint - end``.

        With ``plane`` (Horswill eq. 4-5), ``joint`` is kept in the plane through ``root`` and
        ``end`` that contains the forward vector ``(p[f1] - p[f0]) x (p[f3] - p[f2])`` for
        ``forward = (f0, f1, f2, f3)``. With a finite ``bend_min`` (metres), the joint may not
        bend to the back of that vector: its offset from the root-end line along forward stays
        at least ``bend_min`` (0: straight is the limit; anti-hyperextension).
        """
        idx = self._check_nodes(as_indices([root, joint, end, *forward], "hinge"), "hinge")
        if len(idx) != 7:
            raise PhysicsError(f"hinge forward needs 4 nodes, got {len(forward)}")
        if math.isnan(bend_min) or bend_min == math.inf:
            raise PhysicsError(f"hinge bend_min must be a number or -inf, got {bend_min!r}")
        self.hinges.append(1, {"nodes": idx, "plane": plane, "bend_min": bend_min,
                               "body": -1 if body is None else body.id})
        self._touch()

    def add_angle_limit(self, a: int, b: int, c: int, min_angle: float = 0.0,
                        max_angle: float = math.pi, body: Body | None = None) -> None:
        """Keep the angle at ``b`` between ``a - b`` and ``c - b`` in [min_angle, max_angle] rad.

        A dot-product constraint (Jakobsen section 5) enforced on the ``a``-``c`` distance.
        """
        idx = self._check_nodes(as_indices([a, b, c], "angle limit"), "angle limit")
        if len(set(idx.tolist())) != 3:
            raise PhysicsError(f"angle limit needs three different nodes, got {idx.tolist()}")
        if not 0.0 <= min_angle <= max_angle <= math.pi:
            raise PhysicsError(
                f"angle limit needs 0 <= min_angle <= max_angle <= pi, got {min_angle}, "
                f"{max_angle}")
        self.angles.append(1, {"nodes": idx, "cos": [math.cos(max_angle), math.cos(min_angle)],
                               "body": -1 if body is None else body.id})
        self._touch()

    def add_plane(self, normal: ArrayLike, point: ArrayLike, friction: float = 1.0) -> int:
        """Add a static half-space boundary; nodes stay on the side ``normal`` points to.

        Six inward planes make Jakobsen's box (constraint C1). Returns the plane index.
        """
        n = as_points(normal, "plane normal").reshape(3)
        norm = np.linalg.norm(n)
        if norm == 0:
            raise PhysicsError("plane normal must be non-zero")
        if not (math.isfinite(friction) and friction >= 0):
            raise PhysicsError(f"plane friction must be finite and >= 0, got {friction!r}")
        n = n / norm
        p = as_points(point, "plane point").reshape(3)
        self.planes.append(1, {"normal": n, "offset": float(n @ p), "friction": friction})
        return len(self.planes) - 1

    def add_box_bounds(self, lower: ArrayLike, upper: ArrayLike, friction: float = 1.0) -> None:
        """Keep every node inside the axis-aligned box [lower, upper] (Jakobsen C1)."""
        lo = as_points(lower, "box lower").reshape(3)
        hi = as_points(upper, "box upper").reshape(3)
        if not (lo < hi).all():
            raise PhysicsError(f"box needs lower < upper on every axis, got {lo}, {hi}")
        for axis in range(3):
            e = np.zeros(3)
            e[axis] = 1.0
            self.add_plane(e, lo, friction)
            self.add_plane(-e, hi, friction)

    def link_errors(self, body: Body | None = None) -> np.ndarray:
        """Relative length error ``|len - rest| / rest`` of rigid links (of ``body`` if given)."""
        lo, hi = self.link_min, self.link_max
        sel = (lo == hi) & (lo > 0)
        if body is not None:
            sel &= self.links["body"] == body.id
        nodes = self.link_nodes[sel]
        length = np.linalg.norm(self.node_pos[nodes[:, 0]] - self.node_pos[nodes[:, 1]], axis=1)
        return np.abs(length - lo[sel]) / lo[sel]

    # ------------------------------------------------------------------ the tick
    def _touch(self) -> None:
        self._counters["topology"] += 1

    @property
    def topology_version(self) -> int:
        """Increments whenever nodes or constraints are added or removed."""
        return self._counters["topology"]

    def _solver_links(self) -> tuple:
        """Link columns permuted into solver order (exact links first, then square-root
        approximated ones, each by colour) and the exact count; rebuilt on topology changes.

        Node indices are unsigned so the kernel skips negative-index wrapping.
        """
        if self._solver_version != self._counters["topology"]:
            links = self.links
            order = link_order(links["nodes"], len(self.nodes))
            approx = (links["mode"][order] & LINK_SQRT_APPROX) > 0
            order = order[np.argsort(approx, kind="stable")]
            stiffness = links["stiffness"][order]
            # Soft links repair a fraction s per tick: 1 - (1 - s)^(1/K) per iteration.
            stiffness = 1.0 - (1.0 - stiffness) ** (1.0 / self.iterations)
            self._solver = (links["nodes"][order].astype(np.uint32), links["min"][order],
                            links["max"][order], stiffness, int((~approx).sum()))
            self._solver_slot = np.empty(len(order), dtype=np.int64)
            self._solver_slot[order] = np.arange(len(order))
            self._solver_version = self._counters["topology"]
        return self._solver

    def link_rows(self, link_ids: ArrayLike) -> np.ndarray:
        """Rows in the link table of the links with these permanent ids (int64 array)."""
        ids = np.atleast_1d(np.asarray(link_ids, dtype=np.int64))
        table = self.links["id"]
        rows = np.searchsorted(table, ids)  # ids only grow, and removal keeps order
        found = rows < len(table)
        found[found] = table[rows[found]] == ids[found]
        if not found.all():
            raise UnknownNameError(f"some of links {ids.tolist()} have been removed")
        return rows

    def set_link_rest(self, rows: np.ndarray, rest: ArrayLike) -> None:
        """Change the rest length (m) of rigid links at table ``rows`` (see :meth:`link_rows`)
        without a topology change: actuated links, such as breathing shoulders.

        Cheap enough to call every tick for many links (no solver rebuild).
        """
        r = np.broadcast_to(np.asarray(rest, dtype=np.float64), np.shape(rows))
        if not (np.isfinite(r).all() and (r > 0).all()):
            raise PhysicsError(f"link rest lengths must be positive and finite, got {rest!r}")
        lo, hi = self.links["min"], self.links["max"]
        if (lo[rows] != hi[rows]).any():
            raise PhysicsError("set_link_rest applies to rigid links only")
        lo[rows] = r
        hi[rows] = r
        if self._solver_version == self._counters["topology"]:
            slots = self._solver_slot[rows]
            self._solver[1][slots] = r
            self._solver[2][slots] = r

    def set_link_max(self, rows: np.ndarray, most: ArrayLike) -> None:
        """Change how far (m) inequality links at table ``rows`` let their nodes part, without
        a topology change: a grip closing (:mod:`twig.motor.grips`). A maximum of 0 with a
        minimum of 0 holds the nodes together, as a zero-length grab link does."""
        m = np.broadcast_to(np.asarray(most, dtype=np.float64), np.shape(rows))
        lo, hi = self.links["min"], self.links["max"]
        if np.isnan(m).any() or (m < lo[rows]).any():
            raise PhysicsError(f"link maxima must be at least the links' minima, got {most!r}")
        hi[rows] = m
        if self._solver_version == self._counters["topology"]:
            self._solver[2][self._solver_slot[rows]] = m

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
        key = (self._counters["topology"], self.planes.version, self.body_state.version,
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
            self._col_force = True
            n_pairs, n_contacts, n_pain = physics_tick(self._tick_args(), setting_args(self))
        self._col_force = False
        self._sense(n_contacts, n_pain)
        self.tick += 1

    # ------------------------------------------------------------------ determinism
    def _state_tables(self) -> dict[str, Columns]:
        """Every table of state a snapshot must copy (layers above add theirs)."""
        return {name: getattr(self, name) for name in
                ("nodes", "links", "hinges", "angles", "planes", "volumes", "body_state")}

    def snapshot(self) -> Snapshot:
        """A copy of the physics state; :meth:`restore` of it gives the same future (for a
        world without the layers above; ``twig.World.snapshot`` keeps theirs too)."""
        return take_snapshot(self)

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

