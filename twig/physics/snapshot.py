"""Snapshots of the physics state: copies that give a restored world the same future.

``twig.World.snapshot`` adds the layers above (motor, behaviour, scripts, hybrid control) to
this; see docs/architecture.md, "One state".
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from twig.physics.collision.contacts import Contacts
from twig.physics.handles import BodyRecord

if TYPE_CHECKING:
    from twig.physics.world import PhysicsWorld


@dataclass(frozen=True)
class Snapshot:
    """Everything needed to give a restored world the same future, bit for bit."""

    tables: dict[str, dict[str, np.ndarray]]
    bodies: dict[int, BodyRecord]
    counters: dict[str, int]
    tick: int
    rng_state: dict[str, Any]
    broad: tuple[np.ndarray, ...] | None = None
    """The cached pair list and the boxes it was built for (see ``CollisionMixin``)."""
    senses: tuple[Contacts, tuple[int, int], list, list] | None = None
    """The last tick's contacts, tactile memory and pain events (what ``touched``,
    ``contacts`` and ``pain_events`` read)."""


def take_snapshot(world: PhysicsWorld) -> Snapshot:
    """Copy every physics table, the body records, the id counters, the tick, the random
    generator's state, the cached pair list and the last tick's senses."""
    tables = {name: table.copy() for name, table in world._state_tables().items()}
    senses = (world.contacts, world._contacts_at, list(world._touches), list(world.pain_events))
    return Snapshot(tables, _copy_records(world._bodies), dict(world._counters), world.tick,
                    world.rng.bit_generator.state, world._broad_state(), senses)


def put_back(world: PhysicsWorld, snap: Snapshot) -> None:
    """Return ``world`` to ``snap`` (tables in place: views of them stay valid)."""
    live = world._state_tables()
    for name, saved in snap.tables.items():
        live[name].restore(saved)
    world._bodies = _copy_records(snap.bodies)
    world._counters = dict(snap.counters)
    # The topology version is the snapshot's (the layers' caches keyed on it were captured
    # with it); the physics' own derived tables are rebuilt.
    world._solver_version = -1
    world._args_key = ()
    world._col_version = -1
    world.tick = snap.tick
    world.rng.bit_generator.state = snap.rng_state
    world._restore_broad(snap.broad)
    if snap.senses is not None:
        world._contacts, world._contacts_at, touches, pain = snap.senses
        world._touches = deque(touches)
        world.pain_events = deque(pain, maxlen=world.pain_events.maxlen)


def _copy_records(bodies: dict[int, BodyRecord]) -> dict[int, BodyRecord]:
    """Copies of the body records (their node ranges move when bodies go). ``meta`` is the
    builders' static description (link ids, lengths, charts), written while a body is made:
    its dict is copied, its values shared."""
    return {k: replace(v, meta=dict(v.meta)) for k, v in bodies.items()}
