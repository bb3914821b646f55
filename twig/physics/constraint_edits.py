"""The world's constraints: adding, removing and changing links (Horswill eq. 3), knee hinges
(eq. 4-5), angle limits and static planes, and the links in the solver's order.

:class:`ConstraintEdits` is part of :class:`~twig.physics.PhysicsWorld`. Every method here
edits the model (:mod:`twig.physics.groups`): adding or removing rows changes the topology, and
the set methods (actuated rest lengths, grips closing) replace the link table's model stamp so
that snapshots copy it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from twig.errors import PhysicsError, UnknownNameError
from twig.physics.constraints import LINK_SQRT_APPROX
from twig.physics.handles import Body, Link
from twig.physics.ordering import link_order
from twig.physics.validate import as_indices, as_points

if TYPE_CHECKING:
    from twig.physics.columns import Columns
    from twig.physics.groups import Model


class ConstraintEdits:
    """The constraint methods of :class:`~twig.physics.PhysicsWorld` (mixed into it)."""

    nodes: Columns
    links: Columns
    hinges: Columns
    angles: Columns
    planes: Columns
    model: Model
    iterations: int
    node_pos: np.ndarray
    link_nodes: np.ndarray
    link_min: np.ndarray
    link_max: np.ndarray

    def _init_constraints(self) -> None:
        self._solver: tuple = ()
        self._solver_slot = np.zeros(0, dtype=np.int64)
        self._solver_version = -1

    def _touch(self) -> None:
        """Record a change of the topology (nodes, constraints or volumes added or removed)."""
        self.model.counters["topology"] += 1

    @property
    def topology_version(self) -> int:
        """Increments whenever nodes or constraints are added or removed."""
        return self.model.counters["topology"]

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
        link_id = self.model.counters["link"]
        self.model.counters["link"] += 1
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
        counters = self.model.counters
        ids = np.arange(counters["link"], counters["link"] + len(idx))
        counters["link"] += len(idx)
        self.links.append(len(idx), {
            "nodes": idx, "min": lo, "max": hi, "visible": visible,
            "mode": LINK_SQRT_APPROX if sqrt_approx else 0,
            "body": -1 if body is None else body.id, "id": ids,
        })
        self._touch()
        return ids

    def remove_link(self, link: Link) -> None:
        """Remove one link (e.g. release a grab). Removing a removed link is an error."""
        row = self.link_rows(link.id)[0]
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

    def solver_links(self) -> tuple:
        """Link columns permuted into solver order (exact links first, then square-root
        approximated ones, each by colour): nodes, min, max, stiffness per iteration, the
        exact count and whether each is visible (uint8); rebuilt on topology changes.

        Node indices are unsigned so the kernel skips negative-index wrapping.
        """
        topology = self.model.counters["topology"]
        if self._solver_version != topology:
            links = self.links
            order = link_order(links["nodes"], len(self.nodes))
            approx = (links["mode"][order] & LINK_SQRT_APPROX) > 0
            order = order[np.argsort(approx, kind="stable")]
            stiffness = links["stiffness"][order]
            # Soft links repair a fraction s per tick: 1 - (1 - s)^(1/K) per iteration.
            stiffness = 1.0 - (1.0 - stiffness) ** (1.0 / self.iterations)
            self._solver = (links["nodes"][order].astype(np.uint32), links["min"][order],
                            links["max"][order], stiffness, int((~approx).sum()),
                            links["visible"][order].astype(np.uint8))
            self._solver_slot = np.empty(len(order), dtype=np.int64)
            self._solver_slot[order] = np.arange(len(order))
            self._solver_version = topology
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
        self.links.edit("min")[rows] = r
        self.links.edit("max")[rows] = r
        if self._solver_version == self.topology_version:
            slots = self._solver_slot[rows]
            self._solver[1][slots] = r
            self._solver[2][slots] = r

    def set_link_max(self, rows: np.ndarray, most: ArrayLike) -> None:
        """Change how far (m) inequality links at table ``rows`` let their nodes part, without
        a topology change: a grip closing (:mod:`twig.motor.grips`). A maximum of 0 with a
        minimum of 0 holds the nodes together, as a zero-length grab link does."""
        m = np.broadcast_to(np.asarray(most, dtype=np.float64), np.shape(rows))
        if np.isnan(m).any() or (m < self.links["min"][rows]).any():
            raise PhysicsError(f"link maxima must be at least the links' minima, got {most!r}")
        self.links.edit("max")[rows] = m
        if self._solver_version == self.topology_version:
            self._solver[2][self._solver_slot[rows]] = m
