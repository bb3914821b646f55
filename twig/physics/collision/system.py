"""The world's collision state and API: volumes, filters, contacts, touch, pain and sleep.

:class:`CollisionMixin` is part of :class:`twig.physics.PhysicsWorld`; it owns the volume table
and the per-body table, prepares the kernels' arrays when the topology changes, runs the broad
phase before each tick and turns the narrow phase's pair rows into contacts, tactile memory and
pain after it.
"""

from __future__ import annotations

import math
from collections import deque
from itertools import repeat
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from twig.errors import PhysicsError
from twig.physics.collision.broad import BLOCKS, PAIRS
from twig.physics.collision.contacts import Contacts, PainEvent, gather_contacts
from twig.physics.collision.narrow import BOX, CAPSULE
from twig.physics.collision.pair_table import (
    BODY_A,
    BODY_B,
    CANDIDATE,
    CANDIDATE_SEEN,
    DISTANCE,
    ENERGY,
    FLAGS,
    FLOATS,
    HIT_CONTACT,
    HIT_SIDE,
    HITS,
    NODES,
    PAIN_HITS,
    SEEN_TABLE,
)
from twig.physics.columns import Columns, model, state
from twig.physics.flags import ASLEEP
from twig.physics.validate import as_nonnegative, as_points, as_positive

if TYPE_CHECKING:
    from twig.physics.handles import Body

ALL_GROUPS = 0xFFFFFFFF
"""Default collision mask: collide with every group."""

VOLUME_COLUMNS = {
    "kind": model(np.uint8, ()),
    "nodes": model(np.int32, (4,)),
    "radius": model(np.float64, ()),
    "coef": model(np.float64, (4, 4)),
    "body": model(np.int32, (), -1),
    "group": model(np.uint32, (), 1),
    "mask": model(np.uint32, (), ALL_GROUPS),
    "friction": model(np.float64, (), 1.0),
    "passive": model(np.bool_, (), False),
    "id": model(np.int64, ()),
    "inertia": model(np.float64, (), 0.0),
    "rolling_resistance": model(np.float64, (), 0.0),
    "spin": state(np.float64, (3,), 0.0),
}
"""Volume table columns. ``inertia`` is ``k`` in a rolling sphere's moment of inertia ``k m r^2``
(0: the volume does not roll), ``rolling_resistance`` its rolling resistance coefficient and
``spin`` its angular velocity (rad/s); see :mod:`~twig.physics.collision.rolling`."""
BODY_COLUMNS = {
    "id": model(np.int64, ()),
    "pain": state(np.float64, ()),
    "pain_threshold": model(np.float64, (), math.inf),
    "pain_half_life": model(np.float64, (), 1.0),
    "self_collide": model(np.bool_, (), False),
    "can_sleep": model(np.bool_, (), True),
    "still": state(np.int32, ()),
}
"""Body table columns: pain (J of recent impacts) and the still-tick count toward sleep are
state, the rest the bodies' settings."""


class CollisionMixin:
    """Collision volumes on nodes and what comes of them (mixed into ``PhysicsWorld``).

    Settings (attributes, change them any time): ``sleeping`` (bool, default True),
    ``sleep_seconds`` (default 1.0), ``sleep_speed`` (m/s, default 0.03: a body sleeps once
    none of its nodes drifted more than ``sleep_speed * sleep_seconds`` over the last
    ``sleep_seconds``), ``sleep_jitter`` (m/s, default 0.1: nor moved faster than this in any
    tick of them; see :mod:`~twig.physics.collision.sleep`), ``touch_memory``
    (seconds of contacts kept for :meth:`touched`, default 2.0), ``broad_margin`` (m, default
    0.02), ``broad_lookahead`` (ticks of motion the cached pair list anticipates, 3; 0 with a
    margin of ``ACTIVE_GAP`` rebuilds it nearly every tick), ``broad_grid`` (True; False tests
    every pair of bodies) and
    ``max_depenetration_speed`` (m/s, default 1.2: overlapping volumes are pushed apart at most
    this much faster than they came together, so deep overlaps part gently instead of
    exploding; ``math.inf`` resolves any overlap in one tick), ``static_friction`` (True: two
    bodies' capsules at rest against each other grip, see
    :func:`~twig.physics.collision.response.contact_friction`; False leaves them velocity-level
    friction only, which lets each tick's gravity step slide, so a stick creeps down a gentle
    slope) and ``contact_event_energy`` (J, default 1.0: impacts at least this hard
    become ``contact`` events on ``world.events``).
    """

    def _init_collision(self) -> None:
        self.volumes = Columns(VOLUME_COLUMNS)
        self.body_state = Columns(BODY_COLUMNS)
        self.sleeping = True
        self.sleep_speed = 0.03
        self.sleep_seconds = 1.0
        self.sleep_jitter = 0.1
        self.touch_memory = 2.0
        self.broad_margin = 0.02
        self.broad_lookahead = 3.0
        self.broad_grid = True
        self.max_depenetration_speed = 1.2
        self.static_friction = True
        self.contact_event_energy = 1.0
        self._col_version = -1
        self._col: dict[str, np.ndarray] = {}
        self.broad_stats = np.zeros(6, dtype=np.int64)
        self._grow_pairs(64)
        self.rebuild_pairs = True
        """Whether the next tick rebuilds the cached pair list (set when the topology or a
        collision filter changes)."""

    def _grow_pairs(self, capacity: int) -> None:
        """(Re)allocate the per-candidate-pair buffers of the tick kernel for ``capacity``
        pairs (see :func:`twig.physics.tick.physics_tick`)."""
        self._pair_vol = CANDIDATE.zeros(capacity)
        self._pair_key = np.zeros(capacity, dtype=np.int64)
        self._pair_seen = SEEN_TABLE.zeros(capacity)
        self._block_key = np.zeros(capacity, dtype=np.int64)
        self._block_start = np.zeros(capacity + 1, dtype=np.int64)
        self.broad_stats[BLOCKS] = 0
        self._pair_i = NODES.zeros(capacity)
        self._pair_b = FLAGS.zeros(capacity)
        self._pair_f = FLOATS.zeros(capacity)
        self._pair_active = np.zeros(capacity, dtype=np.int64)
        self._hit_row = np.zeros(capacity, dtype=np.int64)
        self._hit_ids = HITS.zeros(capacity)
        self._pain_hits = PAIN_HITS.zeros(2 * capacity)
        self._pain_level = np.zeros(2 * capacity)

    def pair_buffers(self) -> dict[str, np.ndarray]:
        """The tick kernel's per-candidate-pair buffers, by the names of
        :class:`~twig.physics.records.Pairs`: the cached pair list (``pair_vol``, ``pair_key``)
        and the candidates' memory (``pair_seen``) are state, the rest the tick's scratch.
        They are replaced when they grow: ask again after a tick."""
        return {"pair_vol": self._pair_vol, "pair_key": self._pair_key,
                "pair_seen": self._pair_seen, "block_key": self._block_key,
                "block_start": self._block_start, "pair_i": self._pair_i,
                "pair_b": self._pair_b, "pair_f": self._pair_f, "active": self._pair_active,
                "hit_row": self._hit_row, "hit_ids": self._hit_ids,
                "pain_hits": self._pain_hits, "pain_level": self._pain_level,
                "broad_stats": self.broad_stats}

    # ------------------------------------------------------------------ adding volumes
    def _volume_body(self, nodes: list[int], body: Body | None) -> int:
        owners = {int(self.node_body[i]) for i in nodes}
        if body is not None:
            if owners != {body.id}:
                raise PhysicsError(f"volume nodes {nodes} do not all belong to body {body.name!r}")
            return body.id
        if len(owners) != 1:
            raise PhysicsError(f"volume nodes {nodes} belong to several bodies; pass body=")
        return owners.pop()

    def _append_volume(self, kind: int, nodes: list[int], radius: float, coef: np.ndarray,
                       body: Body | None, group: int, mask: int, friction: float,
                       passive: bool) -> int:
        idx = self._check_nodes(np.asarray(nodes, dtype=np.int64), "volume").tolist()
        body_id = self._volume_body(idx, body)
        if not (math.isfinite(friction) and friction >= 0):
            raise PhysicsError(f"volume friction must be finite and >= 0, got {friction!r}")
        for name, value in (("group", group), ("mask", mask)):
            if not (isinstance(value, int | np.integer) and 0 <= value <= ALL_GROUPS):
                raise PhysicsError(f"collision {name} must be a 32-bit mask, got {value!r}")
        vol_id = self.model.counters["volume"]
        self.model.counters["volume"] = vol_id + 1
        self.volumes.append(1, {"kind": kind, "nodes": idx, "radius": radius, "coef": coef,
                                "body": body_id, "group": group, "mask": mask,
                                "friction": friction, "passive": passive, "id": vol_id})
        if kind == CAPSULE:
            # Capsules meet static planes through their end nodes.
            r = self.nodes.edit("radius")
            r[idx] = np.maximum(r[idx], radius)
        self._touch()
        return vol_id

    def add_capsule(self, a: int, b: int, radius: float, *, body: Body | None = None,
                    group: int = 1, mask: int = ALL_GROUPS, friction: float = 1.0,
                    passive: bool = False) -> int:
        """A capsule (the paper's rounded cylinder) of ``radius`` metres on the segment between
        nodes ``a`` and ``b``; returns its volume id.

        ``group``/``mask`` are 32-bit masks: two volumes collide when each one's group meets
        the other's mask. A ``passive`` volume pushes others but is not moved by contacts (a
        kinematically driven body). ``friction`` is combined with the other volume's as the
        geometric mean. The end nodes' plane radius grows to ``radius``.
        """
        radius = as_positive(radius, "capsule radius")
        if a == b:
            raise PhysicsError("a capsule needs two different nodes (use add_sphere for one)")
        return self._append_volume(CAPSULE, [a, b, b, b], radius, np.zeros((4, 4)), body, group,
                                   mask, friction, passive)

    def add_sphere(self, node: int, radius: float, *, body: Body | None = None,
                   group: int = 1, mask: int = ALL_GROUPS, friction: float = 1.0,
                   passive: bool = False, inertia: float = 0.0,
                   rolling_resistance: float = 0.0) -> int:
        """A sphere of ``radius`` metres centred on ``node`` (the ball); see
        :meth:`add_capsule` for the options. Fast spheres are swept so they do not tunnel.

        With ``inertia`` > 0 the sphere rolls, on static planes and on other bodies' capsules
        and spheres: its moment of inertia is ``inertia * m * r^2`` (2/3 a hollow ball, 2/5 a
        solid one) and on a plane it meets ``rolling_resistance`` (a deceleration of that many
        g on level ground); only a sphere whose body is its one node can roll (see
        :mod:`~twig.physics.collision.rolling`).
        """
        radius = as_positive(radius, "sphere radius")
        inertia = as_nonnegative(inertia, "sphere inertia")
        rolling_resistance = as_nonnegative(rolling_resistance, "sphere rolling_resistance")
        node = int(self._check_nodes(np.array([node]), "sphere")[0])
        if inertia > 0 and int((self.node_body == self.node_body[node]).sum()) != 1:
            raise PhysicsError("a rolling sphere (inertia > 0) needs a body of one node, its "
                               f"centre; node {node} belongs to a body of several")
        vol_id = self._append_volume(CAPSULE, [node] * 4, radius, np.zeros((4, 4)), body, group,
                                     mask, friction, passive)
        self.volumes.edit("inertia")[-1] = inertia
        self.volumes.edit("rolling_resistance")[-1] = rolling_resistance
        return vol_id

    def spin(self, body: Body) -> np.ndarray:
        """Angular velocity (rad/s) of ``body``'s rolling sphere (a ball), a copy."""
        return self.volumes["spin"][self._rolling_volume(body)].copy()

    def set_spin(self, body: Body, omega: ArrayLike) -> None:
        """Set the angular velocity (rad/s) of ``body``'s rolling sphere: a ball thrown with
        backspin (``omega`` along the throw's left, ``v x up``) stops short when it lands.
        Wakes the ball (a sleeping one has no spin)."""
        self.volumes["spin"][self._rolling_volume(body)] = as_points(omega, "spin").reshape(3)
        self.wake(body)

    def _rolling_volume(self, body: Body) -> int:
        rows = np.flatnonzero((self.volumes["body"] == body.id) & (self.volumes["inertia"] > 0))
        if len(rows) == 0:
            raise PhysicsError(f"{body.name!r} has no rolling sphere (a ball has one)")
        return int(rows[0])

    def add_box(self, nodes: ArrayLike, center: ArrayLike, half_extents: ArrayLike,
                axes: ArrayLike | None = None, *, body: Body | None = None, group: int = 1,
                mask: int = ALL_GROUPS, friction: float = 1.0, passive: bool = False) -> int:
        """An oriented box carried by four non-coplanar ``nodes`` of one body (a rigid frame,
        Jakobsen's tetrahedron); returns its volume id.

        ``center`` (m), ``half_extents`` (m) and ``axes`` (rows = unit box axes, default the
        world axes) describe the box now; its frame is stored as affine coefficients of the
        four nodes, so it follows them as they move and rotate.
        """
        idx = self._check_nodes(np.asarray(nodes, dtype=np.int64).reshape(-1), "box nodes")
        if len(idx) != 4 or len(set(idx.tolist())) != 4:
            raise PhysicsError(f"a box needs 4 different frame nodes, got {idx.tolist()}")
        c = as_points(center, "box center").reshape(3)
        h = as_points(half_extents, "box half_extents").reshape(3)
        if (h <= 0).any():
            raise PhysicsError(f"box half_extents must be positive, got {h.tolist()}")
        u = np.eye(3) if axes is None else as_points(axes, "box axes").reshape(3, 3)
        if not np.allclose(u @ u.T, np.eye(3), atol=1e-6):
            raise PhysicsError("box axes must be three orthonormal rows")
        p = self.node_pos[idx]
        # Affine coordinates: x = sum_k c_k p_k with sum_k c_k = 1 (a point) or 0 (a vector).
        m = np.vstack([p.T, np.ones(4)])
        if abs(np.linalg.det(m)) < 1e-12:
            raise PhysicsError(f"box frame nodes {idx.tolist()} are coplanar")
        coef = np.empty((4, 4))
        coef[0] = np.linalg.solve(m, np.append(c, 1.0))
        for i in range(3):
            coef[i + 1] = np.linalg.solve(m, np.append(u[i] * h[i], 0.0))
        return self._append_volume(BOX, idx.tolist(), 0.0, coef, body, group, mask, friction,
                                   passive)

    def add_static_box(self, name: str, center: ArrayLike, half_extents: ArrayLike,
                       axes: ArrayLike | None = None, *, friction: float = 1.0) -> Body:
        """An immovable oriented box (a wall, a step, a table top that never moves): a body of
        four static frame nodes inside the box carrying one box volume."""
        c = as_points(center, "box center").reshape(3)
        h = as_points(half_extents, "box half_extents").reshape(3)
        u = np.eye(3) if axes is None else as_points(axes, "box axes").reshape(3, 3)
        frame = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]]) * 0.5 * h
        body = self.add_body(name, "static_box", c + frame @ u, mass=math.inf)
        self.add_box(range(body.nodes.start, body.nodes.stop), c, h, u, body=body,
                     friction=friction)
        return body

    def set_collision(self, body: Body, *, group: int | None = None, mask: int | None = None,
                      passive: bool | None = None, self_collide: bool | None = None,
                      friction: float | None = None, can_sleep: bool | None = None) -> None:
        """Change the collision settings of all of ``body``'s volumes (see
        :meth:`add_capsule`); ``self_collide`` lets its own non-adjacent volumes collide
        (volumes sharing a node or joined by one of its links never do); ``can_sleep=False``
        keeps it awake."""
        sel = self.volumes["body"] == body.id
        for key, value in (("group", group), ("mask", mask)):
            if value is not None:
                if not (isinstance(value, int | np.integer) and 0 <= value <= ALL_GROUPS):
                    raise PhysicsError(f"collision {key} must be a 32-bit mask, got {value!r}")
                self.volumes.edit(key)[sel] = value
        if friction is not None:
            if not (math.isfinite(friction) and friction >= 0):
                raise PhysicsError(f"friction must be finite and >= 0, got {friction!r}")
            self.volumes.edit("friction")[sel] = friction
        if passive is not None:
            self.volumes.edit("passive")[sel] = passive
        row = self._body_row(body.id)
        if self_collide is not None:
            self.body_state.edit("self_collide")[row] = self_collide
        if can_sleep is not None:
            self.body_state.edit("can_sleep")[row] = can_sleep
            if not can_sleep:
                self.wake(body)
        self._touch()

    def set_volume_filter(self, volumes: np.ndarray, *, group: int | ArrayLike | None = None,
                          mask: int | ArrayLike | None = None) -> None:
        """Set the 32-bit collision ``group`` and/or ``mask`` of individual volumes (rows of
        ``volumes``; one value for all, or one per row), e.g. to let one character's arms pass
        another's during a hug. Takes effect at the next tick (the cached pair list is
        rebuilt)."""
        for key, value in (("group", group), ("mask", mask)):
            if value is not None:
                bits = np.asarray(value)
                if not (bits.dtype.kind in "iu" and ((bits >= 0) & (bits <= ALL_GROUPS)).all()):
                    raise PhysicsError(f"collision {key} must be a 32-bit mask, got {value!r}")
                self.volumes.edit(key)[volumes] = bits
        self.rebuild_pairs = True

    # ------------------------------------------------------------------ bodies' state
    def _body_row(self, body_id: int) -> int:
        ids = self.body_state["id"]
        row = int(np.searchsorted(ids, body_id))
        if row >= len(ids) or ids[row] != body_id:
            self.body_record(body_id)  # raises the "removed" error
        return row

    def set_pain(self, body: Body, *, threshold: float | None = None,
                 half_life: float | None = None) -> None:
        """Pain settings of ``body``: impacts over ``threshold`` joules hurt (default inf:
        never), and its pain level halves every ``half_life`` seconds."""
        row = self._body_row(body.id)
        if threshold is not None:
            if math.isnan(threshold) or threshold < 0:
                raise PhysicsError(f"pain threshold must be >= 0 J, got {threshold!r}")
            self.body_state.edit("pain_threshold")[row] = threshold
        if half_life is not None:
            half_life = as_positive(half_life, "pain half_life")
            self.body_state.edit("pain_half_life")[row] = half_life

    def pain(self, body: Body) -> float:
        """Current pain level of ``body`` in joules of recent impacts (decaying)."""
        return float(self.body_state["pain"][self._body_row(body.id)])

    def is_asleep(self, body: Body) -> bool:
        """True while ``body`` sleeps (see :mod:`twig.physics.collision.sleep`)."""
        rec = self.body_record(body.id)
        return rec.count > 0 and bool(self.node_flags[rec.start] & ASLEEP)

    def wake(self, body: Body) -> None:
        """Wake ``body`` now (commands on its nodes wake it by themselves)."""
        rec = self.body_record(body.id)
        self.node_flags[rec.start:rec.start + rec.count] &= np.uint8(0xFF ^ ASLEEP)
        self.body_state["still"][self._body_row(body.id)] = 0

    def volume_part(self, volume_id: int) -> str:
        """Where a volume sits on its body: ``"l_knee-l_foot"``, ``"head"``, or ``"box"``."""
        rows = np.flatnonzero(self.volumes["id"] == volume_id)
        if not len(rows):
            raise PhysicsError(f"volume #{volume_id} has been removed")
        row = int(rows[0])
        if self.volumes["kind"][row] == BOX:
            return "box"
        rec = self.body_record(int(self.volumes["body"][row]))
        a, b = (int(i) - rec.start for i in self.volumes["nodes"][row, :2])
        return rec.node_names[a] if a == b else f"{rec.node_names[a]}-{rec.node_names[b]}"

    def touched(self, body: Body, within: float = 0.0) -> dict[str, float]:
        """Bodies that touched ``body`` in the last ``within`` seconds (0: this tick), each
        with how many seconds ago it last did (the paper's tactile sensing)."""
        out: dict[str, float] = {}
        oldest = self.tick - 1 - round(within / self.dt)
        records = self.model.body_records
        for tick, pairs in reversed(self.state.touches):
            if tick < oldest:
                break
            for a, b in pairs[(pairs[:, 0] == body.id) | (pairs[:, 1] == body.id)].tolist():
                other = b if a == body.id else a
                if other in records:
                    name = records[other].name
                    out.setdefault(name, (self.tick - 1 - tick) * self.dt)
        return out

    @property
    def contacts(self) -> Contacts:
        """The contacts of the last tick (gathered from the tick kernel's buffers on first
        use: most ticks nobody asks)."""
        state = self.state
        if state.contacts is None:
            tick, count = state.contacts_at
            state.contacts = gather_contacts(tick, self._pair_f, self._hit_row[:count],
                                             self._hit_ids[:count])
        return state.contacts

    @property
    def contact_count(self) -> int:
        """How many contacts the last tick had: ``len(contacts)`` without gathering them (a
        pile's thousand contacts are ~100 KB that would push the tick's own data out of the
        cache)."""
        return self.state.contacts_at[1]

    @property
    def pain_events(self) -> deque[PainEvent]:
        """The latest pain events, oldest first (``state.pain_events``, up to 1000)."""
        return self.state.pain_events

    # ------------------------------------------------------------------ per-tick work
    def broad_state(self) -> tuple[np.ndarray, ...] | None:
        """Copies of the cached pair list and the grown boxes it was built for, or None when
        the next tick rebuilds it anyway.

        A snapshot keeps them, so a restored world lists the same pairs as the original did.
        A list is trusted while no volume leaves its grown box, on the guess that a volume
        moves this tick about as it did the last; in a jammed pile that guess fails now and
        then and a pair is found a tick late, so a list built at another tick could differ.
        """
        if self.rebuild_pairs or self._col_version != self.topology_version:
            return None
        n = int(self.broad_stats[PAIRS])
        col = self._col
        return (col["build_lo"].copy(), col["build_hi"].copy(), col["body_lo"].copy(),
                col["body_hi"].copy(), self._pair_vol[:n].copy(), self._pair_key[:n].copy())

    def restore_broad(self, state: tuple[np.ndarray, ...] | None) -> None:
        """Put back what :meth:`broad_state` copied (None: rebuild the list next tick)."""
        if state is None:
            return
        build_lo, build_hi, body_lo, body_hi, pairs, keys = state
        col = self.collision_arrays()
        col["build_lo"][:] = build_lo
        col["build_hi"][:] = build_hi
        col["body_lo"][:] = body_lo
        col["body_hi"][:] = body_hi
        if len(pairs) > len(self._pair_vol):
            self._grow_pairs(len(pairs))
        self._pair_vol[:len(pairs)] = pairs
        self._pair_key[:len(keys)] = keys
        self._pair_seen[:len(pairs), CANDIDATE_SEEN + DISTANCE] = 0.0  # of other pairs
        self.broad_stats[BLOCKS] = 0  # the next rebuild pairs every body pair afresh
        self.broad_stats[PAIRS] = len(pairs)
        self.rebuild_pairs = False

    def collision_arrays(self) -> dict[str, np.ndarray]:
        """Kernel arrays derived from the topology, rebuilt when it changes."""
        if self._col_version == self.topology_version:
            return self._col
        vols = self.volumes
        n_vol = len(vols)
        rollers = np.flatnonzero(vols["inertia"] > 0).astype(np.int64)
        node_roller = np.full(len(self.nodes), -1, dtype=np.int64)
        node_roller[vols["nodes"][rollers, 0]] = rollers
        records = self.model.body_records.values()
        starts = np.array([r.start for r in records], dtype=np.int64)
        counts = np.array([r.count for r in records], dtype=np.int64)
        n_bodies = len(starts)
        node_row = np.repeat(np.arange(n_bodies, dtype=np.int64), counts)
        vol_row = node_row[vols["nodes"][:, 0]] if n_vol else np.zeros(0, dtype=np.int64)
        body_vols = np.argsort(vol_row, kind="stable").astype(np.int64)
        body_vol_start = np.searchsorted(vol_row[body_vols], np.arange(n_bodies + 1))
        n = len(self.nodes)
        links = self.links["nodes"].astype(np.int64)
        lk = np.sort(links.min(axis=1) * n + links.max(axis=1))
        cl = links[node_row[links[:, 0]] != node_row[links[:, 1]]]
        rows = np.sort(np.minimum(node_row[cl[:, 0]], node_row[cl[:, 1]]) * n_bodies
                       + np.maximum(node_row[cl[:, 0]], node_row[cl[:, 1]]))
        can_sleep = self.body_state["can_sleep"].copy()
        can_sleep[node_row[cl].ravel()] = False  # linked bodies stay awake together
        boxes = np.flatnonzero(vols["kind"] == BOX).astype(np.int64)
        self_pairs = self._self_pairs(node_row, vol_row, lk, n)
        self._col = {
            "body_start": starts, "body_count": counts, "node_row": node_row,
            "body_vols": body_vols, "body_vol_start": body_vol_start.astype(np.int64),
            "self_pairs": self_pairs,
            # Body b's self pairs are rows self_start[b]:self_start[b + 1] (grouped by body).
            "self_start": np.searchsorted(vol_row[self_pairs[:, 0]],
                                          np.arange(n_bodies + 1)).astype(np.int64),
            "linked_keys": lk.astype(np.int64), "linked_bodies": rows.astype(np.int64),
            "can_sleep": can_sleep, "boxes": boxes,
            "has_spheres": bool(((vols["kind"] == CAPSULE)
                                 & (vols["nodes"][:, 0] == vols["nodes"][:, 1])).any()),
            "rollers": rollers, "node_roller": node_roller,
            "build_lo": np.zeros((n_vol, 3)), "build_hi": np.zeros((n_vol, 3)),
            "body_lo": np.zeros((n_bodies, 3)), "body_hi": np.zeros((n_bodies, 3)),
            "box_c": np.zeros((n_vol, 3)), "box_u": np.zeros((n_vol, 3, 3)),
            "box_h": np.ones((n_vol, 3)),
            "corner_push": np.zeros((len(boxes), 8)),
            "corner_plane": np.zeros((len(boxes), 8), dtype=np.int64),
        }
        self._col_version = self.topology_version
        self.rebuild_pairs = True
        return self._col

    def _self_pairs(self, node_row: np.ndarray, vol_row: np.ndarray, link_keys: np.ndarray,
                    n: int) -> np.ndarray:
        """Same-body volume pairs of self-colliding bodies that are not adjacent (no shared
        node, no link between their nodes), grouped by body row in row order."""
        out = []
        nodes = self.volumes["nodes"]
        for row in np.flatnonzero(self.body_state["self_collide"]):
            vs = np.flatnonzero(vol_row == row)
            for x in range(len(vs)):
                for y in range(x + 1, len(vs)):
                    a = set(nodes[vs[x]].tolist())
                    b = set(nodes[vs[y]].tolist())
                    keys = [min(i, j) * n + max(i, j) for i in a for j in b]
                    at = np.searchsorted(link_keys, keys)
                    linked = any(k < len(link_keys) and link_keys[k] == key
                                 for k, key in zip(at, keys, strict=True))
                    if not (a & b) and not linked:
                        out.append((vs[x], vs[y]))
        return np.array(out, dtype=np.int32).reshape(-1, 2)

    def _sense(self, n_contacts: int, n_pain: int) -> None:
        """Tactile memory, contact and pain events of the tick just run (Horswill VI.E; the
        kernel has listed the contacts and updated the pain levels)."""
        state = self.state
        tick = state.tick
        state.contacts_at = (tick, n_contacts)
        state.contacts = None  # gathered when read (see contacts)
        touches = state.touches
        if n_contacts:
            touches.append((tick, self._hit_ids[:n_contacts, [BODY_A, BODY_B]]))
        oldest = tick - round(self.touch_memory / self.dt)
        while touches and touches[0][0] < oldest:
            touches.popleft()
        if not n_contacts:
            return
        if self.events.wants("contact"):
            contacts = self.contacts
            records = self.model.body_records
            for k in np.flatnonzero(contacts.energy >= self.contact_event_energy):
                self.events.emit("contact", a=records[int(contacts.body_a[k])].name,
                                 b=records[int(contacts.body_b[k])].name,
                                 energy=round(float(contacts.energy[k]), 6))
        if n_pain:
            self._pain_events(n_pain)

    def _pain_events(self, n_pain: int) -> None:
        """Pain events for the kernel's ``n_pain`` hits of this tick, in its order, read from
        the tick's buffers for the hit contacts only (a pile's landing makes hundreds a tick
        among thousands of contacts)."""
        hits = self._pain_hits[:n_pain]
        k = hits[:, HIT_CONTACT]
        ids = self._hit_ids[k]
        rows = self._hit_row[k]
        first = hits[:, HIT_SIDE] == 0
        bodies = self.model.body_records
        a, b = ids[:, BODY_A], ids[:, BODY_B]
        mine = [bodies[i].name for i in np.where(first, a, b).tolist()]
        other = [bodies[i].name for i in np.where(first, b, a).tolist()]
        events = list(map(PainEvent, repeat(self.time, n_pain), mine, other,
                          self._pair_f[rows, ENERGY].tolist(), self._pain_level[:n_pain].tolist(),
                          map(tuple, self._pair_f[rows, FLOATS.span("point")].tolist())))
        self.state.pain_events.extend(events)
        if self.events.wants("pain"):
            for event in events:
                self.events.emit("pain", agent=event.body, source=event.source,
                                 energy=round(event.energy, 6), level=round(event.level, 6))

