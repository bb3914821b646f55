"""Recording node trajectories in the format of DESIGN.md ("Recording").

Arrays: ``t`` (F,) seconds; ``pos`` (F, N, 3) metres; ``node_name`` (N,) like ``kid/l_hand``;
``node_body`` (N,) body name; ``body_type`` (N,); ``link`` (L, 2) node indices; ``link_rest``
(L,) metres (NaN for inequality links); ``link_visible`` (L,) bool. Nodes are columns keyed by
their permanent id, so bodies added or removed while recording keep their own columns; a node
that does not exist at a frame has NaN positions there.

Beside the arrays, a recording keeps what the exporters need that does not change while a body
exists (:attr:`Recording.bodies`): each body's type, build parameters (``meta``), node columns
and collision volumes (capsule and sphere radii, box frames), captured when the body first
appears.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from os import PathLike
from typing import TYPE_CHECKING

import numpy as np

from twig.physics.collision.narrow import BOX

if TYPE_CHECKING:
    from twig.physics import PhysicsWorld


@dataclass(frozen=True)
class RecordedVolume:
    """A collision volume as the exporters draw it: ``kind`` is ``"sphere"``, ``"capsule"`` or
    ``"box"``; ``columns`` (4,) its nodes' columns in the recording; ``radius`` metres (0 for
    boxes); ``coef`` (4, 4) a box's centre and half-axes as affine combinations of its four
    frame nodes (see :meth:`twig.physics.PhysicsWorld.add_box`)."""

    kind: str
    columns: np.ndarray
    radius: float
    coef: np.ndarray


@dataclass(frozen=True)
class RecordedBody:
    """What a recording keeps of one body: ``name``, ``type``, ``meta`` (build parameters such
    as a humanoid's ``height`` and ``preset``), ``node_names``, ``columns`` (its nodes'
    columns in ``pos``) and ``volumes``."""

    name: str
    type: str
    meta: dict
    node_names: tuple[str, ...]
    columns: np.ndarray
    volumes: list[RecordedVolume] = field(default_factory=list)


class Recording:
    """Collects a frame after every ``every``-th tick of ``world`` (and one at the start)."""

    def __init__(self, world: PhysicsWorld, every: int = 1) -> None:
        if not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be a positive integer, got {every!r}")
        self.world = world
        self.every = every
        self._col_of_uid: dict[int, int] = {}
        self._names: list[str] = []
        self._body: list[str] = []
        self._type: list[str] = []
        self._links: dict[int, tuple[int, int, float, bool]] = {}
        self._bodies: dict[int, RecordedBody] = {}
        self._volume_ids: set[int] = set()
        self._version = -1
        self._cols = np.empty(0, dtype=np.int64)
        self._t: list[float] = []
        self._pos: list[np.ndarray] = []
        self._frame_cols: list[np.ndarray] = []
        self._capture()
        world.stages.add("record", self._on_tick)

    def _on_tick(self) -> None:
        if self.world.tick % self.every == 0:
            self._capture()

    def _refresh_topology(self) -> None:
        w = self.world
        uids = w.nodes["uid"]
        names = w.node_names()
        bodies = {b.id: (b.name, b.type) for b in w.bodies}
        body_of_node = w.node_body
        for k, uid in enumerate(uids.tolist()):
            if uid not in self._col_of_uid:
                self._col_of_uid[uid] = len(self._names)
                self._names.append(names[k])
                name, kind = bodies.get(int(body_of_node[k]), ("", ""))
                self._body.append(name)
                self._type.append(kind)
        self._cols = np.array([self._col_of_uid[u] for u in uids.tolist()], dtype=np.int64)
        lo, hi = w.link_min, w.link_max
        for k, link_id in enumerate(w.links["id"].tolist()):
            if link_id not in self._links:
                a, b = w.link_nodes[k]
                rest = float(lo[k]) if lo[k] == hi[k] else float("nan")
                self._links[link_id] = (int(self._cols[a]), int(self._cols[b]), rest,
                                        bool(w.link_visible[k]))
        self._refresh_bodies()
        self._version = w.topology_version

    def _refresh_bodies(self) -> None:
        w = self.world
        for body in w.bodies:
            if body.id not in self._bodies:
                cols = self._cols[body.nodes]
                meta = dict(w.body_record(body.id).meta)
                self._bodies[body.id] = RecordedBody(body.name, body.type, meta,
                                                     body.node_names, cols)
        vols = w.volumes
        for k, vol_id in enumerate(vols["id"].tolist()):
            if vol_id in self._volume_ids:
                continue
            self._volume_ids.add(vol_id)
            nodes = vols["nodes"][k]
            if vols["kind"][k] == BOX:
                kind = "box"
            else:
                kind = "sphere" if nodes[0] == nodes[1] else "capsule"
            self._bodies[int(vols["body"][k])].volumes.append(RecordedVolume(
                kind, self._cols[nodes], float(vols["radius"][k]), vols["coef"][k].copy()))

    def _capture(self) -> None:
        if self._version != self.world.topology_version:
            self._refresh_topology()
        self._t.append(self.world.time)
        self._pos.append(self.world.node_pos.copy())
        self._frame_cols.append(self._cols)

    def __len__(self) -> int:
        return len(self._t)

    @property
    def bodies(self) -> list[RecordedBody]:
        """Every body seen while recording, in order of appearance."""
        return list(self._bodies.values())

    @property
    def dt(self) -> float:
        """Seconds between recorded frames."""
        return self.every * self.world.dt

    def stop(self) -> None:
        """Stop recording (frames so far are kept)."""
        self.world.stages.remove("record", self._on_tick)

    def arrays(self) -> dict[str, np.ndarray]:
        """The recording as a dict of NumPy arrays (see the module docstring)."""
        n = len(self._names)
        pos = np.full((len(self._t), n, 3), np.nan)
        for f, (p, cols) in enumerate(zip(self._pos, self._frame_cols, strict=True)):
            pos[f, cols] = p
        links = list(self._links.values())
        return {
            "t": np.array(self._t),
            "pos": pos,
            "node_name": np.array(self._names, dtype=str),
            "node_body": np.array(self._body, dtype=str),
            "body_type": np.array(self._type, dtype=str),
            "link": np.array([(a, b) for a, b, _, _ in links], dtype=np.int64).reshape(-1, 2),
            "link_rest": np.array([r for _, _, r, _ in links], dtype=np.float64),
            "link_visible": np.array([v for _, _, _, v in links], dtype=bool),
        }

    def save(self, path: str | PathLike) -> None:
        """Write the arrays to a compressed ``.npz`` file."""
        np.savez_compressed(path, **self.arrays())
