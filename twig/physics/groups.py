"""The world's model, state and control: what it is, what changes, and what is asked of it.

MuJoCo splits a simulation into *mjModel* (the static description) and *mjData* (what changes),
warp.sim into *Model*, *State* and *Control*. A twig world does the same with three objects:

``world.model`` (:class:`Model`)
    What the world is: each node's mass, radius and damping, the links, hinges, angle limits,
    planes and volumes, the bodies' settings, the body records (names, node ranges, builders'
    descriptions) and the id counters. Only the world's add, remove and set methods change it
    (:meth:`~twig.physics.columns.Columns.edit`); its columns are read-only to everyone else,
    the tick's kernels included.
``world.state`` (:class:`State`)
    What changes tick to tick: positions, previous positions, flags, contact memory, the
    rolling spheres' spin, pain and the count toward sleep, the tick, the random generator,
    the last tick's contacts, tactile memory and pain events. :meth:`~PhysicsWorld.snapshot`
    copies it (and the control) every time.
``world.control`` (:class:`Control`)
    Set-points the layers above write for the next tick: control accelerations (the tick
    consumes them), set-point move targets, damping toward a carrying hand.

Unlike MuJoCo's model, twig's changes as the world runs: bodies are spawned and removed, grips
close, breathing changes rest lengths. Each table therefore carries a model stamp, replaced by
every change of its model columns (rows added or removed, a set method), and a snapshot holds
the model copy of its stamp, one copy shared by every snapshot of an unchanged table; a restore
puts the state and control back in place, and a table's model only where it changed since.

The three groups share their tables' rows (a node's mass and its position are one row, added
and removed together): the tables (``world.nodes``, ``world.links`` ...,
:class:`~twig.physics.columns.Columns`) are the storage, and each column declares its group
where it is declared (:mod:`twig.physics.tables`, :mod:`twig.physics.collision.system`). The
objects here are views: ``world.model.nodes["inv_mass"]`` (read-only),
``world.state.nodes["pos"]``, ``world.control.nodes["acc"]``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from twig.physics.columns import CONTROL, MODEL, STATE, Columns

if TYPE_CHECKING:
    from twig.physics.collision.contacts import Contacts, PainEvent
    from twig.physics.handles import BodyRecord

TABLES = ("nodes", "links", "hinges", "angles", "planes", "volumes", "body_state")
"""The world's tables, by their attribute names."""


class Group(Mapping[str, np.ndarray]):
    """The columns of one group of one table, by name (a mapping of live arrays: the model's
    read-only, state and control writable)."""

    def __init__(self, table: Columns, group: str, name: str) -> None:
        self.table = table
        self.group = group
        self.name = name
        self.names = table.names(group)

    def __getitem__(self, column: str) -> np.ndarray:
        if column not in self.names:
            found = self.table.spec.get(column)
            where = f"a {found.group} column" if found else "not a column"
            raise KeyError(f"{self.name}[{column!r}] is {where}, not {self.group}")
        return self.table[column]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    @property
    def rows(self) -> int:
        """The table's number of rows."""
        return len(self.table)

    def __repr__(self) -> str:
        return f"<{self.group} of {self.name}: {', '.join(self.names)}>"


class _Part:
    """The columns of one group in every table: ``part.nodes``, ``part.links`` ..."""

    GROUP: str

    def __init__(self, tables: Mapping[str, Columns]) -> None:
        group = self.GROUP
        self.nodes = Group(tables["nodes"], group, "nodes")
        self.links = Group(tables["links"], group, "links")
        self.hinges = Group(tables["hinges"], group, "hinges")
        self.angles = Group(tables["angles"], group, "angles")
        self.planes = Group(tables["planes"], group, "planes")
        self.volumes = Group(tables["volumes"], group, "volumes")
        self.body_state = Group(tables["body_state"], group, "body_state")

    def groups(self) -> dict[str, Group]:
        """This part's column groups, by table name."""
        return {name: getattr(self, name) for name in TABLES}


@dataclass(frozen=True)
class ModelCopy:
    """A copy of the model (made by :meth:`Model.copy`): each table's ``(model stamp, model
    columns)``, the body records and the id counters. Never written: a restore copies from
    it."""

    tables: dict[str, tuple[object, dict[str, np.ndarray]]]
    records: dict[int, BodyRecord]
    counters: dict[str, int]


class Model(_Part):
    """The world's static description (see the module doc): the tables' model columns
    (read-only arrays), the body records and the id counters.

    ``body_records`` maps body id to :class:`~twig.physics.handles.BodyRecord` in creation
    order; ``counters`` holds the next ids (``body``, ``link``, ``node``, ``volume``) and the
    topology version.
    """

    GROUP = MODEL

    def __init__(self, tables: Mapping[str, Columns]) -> None:
        super().__init__(tables)
        self.body_records: dict[int, BodyRecord] = {}
        self.counters = {"body": 0, "link": 0, "node": 0, "volume": 0, "topology": 0}

    @property
    def topology_version(self) -> int:
        """Increments whenever nodes, constraints or volumes are added or removed."""
        return self.counters["topology"]

    def copy(self) -> ModelCopy:
        """The model as it is now: tables whose model did not change since the last copy
        share it; the body records (a few per body, and builders add to their ``meta``) are
        copied each time."""
        tables = {name: group.table.model_copy() for name, group in self.groups().items()}
        return ModelCopy(tables, _copy_records(self.body_records), dict(self.counters))

    def put_back(self, saved: ModelCopy, changing: Mapping[str, Mapping[str, np.ndarray]],
                 ) -> None:
        """Return to ``saved``, with the state and control columns ``changing`` of the same
        moment (a snapshot's): a table whose model stamp is still ``saved``'s gets them back
        in place (views of it stay valid); any other is rebuilt from both."""
        for name, group in self.groups().items():
            group.table.put_back(saved.tables[name], changing[name])
        self.body_records = _copy_records(saved.records)
        self.counters = dict(saved.counters)


class State(_Part):
    """What changes as the world runs (see the module doc): the tables' state columns, and

    - ``tick``: ticks run so far;
    - ``rng``: the world's random generator (``numpy.random.Generator``), the source of every
      random choice;
    - ``contacts``: the last tick's :class:`~twig.physics.collision.contacts.Contacts` (None
      until someone asks: ``world.contacts`` gathers them from the tick's buffers), and
      ``contacts_at``: that tick and its contact count;
    - ``touches``: the tactile memory, ``(tick, (k, 2) body id pairs)`` per tick with contacts;
    - ``pain_events``: the latest :class:`~twig.physics.collision.contacts.PainEvent`.

    The broad phase's cached pair list is state too; it lives in the tick's buffers and
    snapshots copy it (``PhysicsWorld.broad_state``).
    """

    GROUP = STATE

    def __init__(self, tables: Mapping[str, Columns], seed: int) -> None:
        super().__init__(tables)
        self.tick = 0
        self.rng = np.random.default_rng(seed)
        self.contacts: Contacts | None = None
        self.contacts_at = (0, 0)
        self.touches: deque[tuple[int, np.ndarray]] = deque()
        self.pain_events: deque[PainEvent] = deque(maxlen=1000)

    def changing_columns(self) -> dict[str, dict[str, np.ndarray]]:
        """Copies of every table's state and control columns (a snapshot's)."""
        return {name: group.table.changing() for name, group in self.groups().items()}


class Control(_Part):
    """The set-points the layers above write for the next tick (see the module doc): the
    tables' control columns (``nodes``: ``acc``, ``move_target``, ``damp_ref``,
    ``damp_rel``)."""

    GROUP = CONTROL


def _copy_records(bodies: dict[int, BodyRecord]) -> dict[int, BodyRecord]:
    """Copies of the body records (their node ranges move when bodies go). ``meta`` is the
    builders' static description (link ids, lengths, charts), written while a body is made:
    its dict is copied, its values shared."""
    return {k: replace(v, meta=dict(v.meta)) for k, v in bodies.items()}
