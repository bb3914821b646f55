"""Thin handles over the world's arrays: a :class:`Body` is a named range of nodes, a
:class:`Link` a stable id for one row of the link table. Handles own no state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from twig.errors import UnknownNameError

if TYPE_CHECKING:
    from twig.physics.world import PhysicsWorld


@dataclass
class BodyRecord:
    """Bookkeeping of one body (cold data, not touched by kernels)."""

    id: int
    name: str
    type: str
    start: int
    count: int
    node_names: tuple[str, ...]
    meta: dict = field(default_factory=dict)

    def local_index(self, node: str) -> int:
        try:
            return self.node_names.index(node)
        except ValueError:
            raise UnknownNameError(
                f"body {self.name!r} ({self.type}) has no node {node!r}; "
                f"its nodes are {', '.join(self.node_names)}") from None


class Body:
    """A body in a world: a contiguous range of nodes with a name and a type.

    Obtain one from a builder (``world.add_stick(...)``) or ``world.body(name)``. Its node range
    is looked up on each use, so the handle stays valid when earlier bodies are removed.
    """

    def __init__(self, world: PhysicsWorld, body_id: int) -> None:
        self.world = world
        self.id = body_id

    @property
    def _record(self) -> BodyRecord:
        return self.world.body_record(self.id)

    @property
    def name(self) -> str:
        return self._record.name

    @property
    def type(self) -> str:
        return self._record.type

    @property
    def alive(self) -> bool:
        """False once the body has been removed from its world."""
        return self.world.has_body(self.id)

    @property
    def nodes(self) -> slice:
        """Slice of this body's rows in the world's node arrays."""
        rec = self._record
        return slice(rec.start, rec.start + rec.count)

    @property
    def node_names(self) -> tuple[str, ...]:
        return self._record.node_names

    def node(self, name: str) -> int:
        """Global index of the node called ``name`` (e.g. ``"l_hand"``)."""
        rec = self._record
        return rec.start + rec.local_index(name)

    def node_position(self, name: str) -> np.ndarray:
        """Position of node ``name``, metres, shape (3,) (a copy)."""
        return self.world.node_pos[self.node(name)].copy()

    @property
    def positions(self) -> np.ndarray:
        """Positions of all nodes, metres, shape (n, 3) (a copy)."""
        return self.world.node_pos[self.nodes].copy()

    @property
    def centroid(self) -> np.ndarray:
        """Mass-weighted centre of the movable nodes (plain mean if all are static), metres."""
        sl = self.nodes
        inv = self.world.node_inv_mass[sl]
        pos = self.world.node_pos[sl]
        movable = inv > 0
        if not movable.any():
            return pos.mean(axis=0)
        m = 1.0 / inv[movable]
        return (pos[movable] * m[:, None]).sum(axis=0) / m.sum()

    @property
    def velocity(self) -> np.ndarray:
        """Mean node velocity over the last tick, m/s, shape (3,)."""
        sl = self.nodes
        return (self.world.node_pos[sl] - self.world.node_prev[sl]).mean(axis=0) / self.world.dt

    def link_errors(self) -> np.ndarray:
        """Relative length error ``|len - rest| / rest`` of this body's rigid links."""
        return self.world.link_errors(body=self)

    def remove(self) -> None:
        """Remove this body, its links and every constraint touching its nodes."""
        self.world.remove_body(self)

    def __repr__(self) -> str:
        if not self.alive:
            return f"<Body #{self.id} (removed)>"
        return f"<Body {self.name!r} type={self.type} nodes={self.nodes.start}:{self.nodes.stop}>"


class Link:
    """Handle of one link (a rigid, inequality, soft or zero-length distance constraint)."""

    def __init__(self, world: PhysicsWorld, link_id: int) -> None:
        self.world = world
        self.id = link_id

    @property
    def alive(self) -> bool:
        try:
            self.world.link_rows(self.id)
        except UnknownNameError:
            return False
        return True

    @property
    def nodes(self) -> tuple[int, int]:
        a, b = self.world.link_nodes[self.world.link_rows(self.id)[0]]
        return int(a), int(b)

    @property
    def length(self) -> float:
        """Current distance between the two nodes, metres."""
        a, b = self.nodes
        return float(np.linalg.norm(self.world.node_pos[a] - self.world.node_pos[b]))

    def remove(self) -> None:
        self.world.remove_link(self)

    def __repr__(self) -> str:
        state = f"nodes={self.nodes}" if self.alive else "(removed)"
        return f"<Link #{self.id} {state}>"
