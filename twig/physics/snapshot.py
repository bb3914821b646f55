"""Snapshots of the physics: the state and control, and the model as it was.

A snapshot copies every table's state and control columns and the state's other parts (the
tick, the random generator, the cached pair list, the last tick's senses); of the model it keeps
each table's copy for the table's model stamp, shared by every snapshot taken while that
table's model is unchanged (see :mod:`twig.physics.groups`). ``twig.World.snapshot`` adds the
layers above (motor, behaviour, scripts, hybrid control) to this; see docs/architecture.md,
"One state".
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from twig.physics.collision.contacts import Contacts
from twig.physics.groups import ModelCopy

if TYPE_CHECKING:
    from twig.physics.world import PhysicsWorld


@dataclass(frozen=True)
class Snapshot:
    """Everything needed to give a restored world the same future, bit for bit."""

    model: ModelCopy
    """The model at the snapshot's tick (shared with other snapshots where unchanged)."""
    columns: dict[str, dict[str, np.ndarray]]
    """Every table's state and control columns, copied."""
    tick: int
    rng_state: dict[str, Any]
    broad: tuple[np.ndarray, ...] | None = None
    """The cached pair list and the boxes it was built for (see ``CollisionMixin``)."""
    senses: tuple[Contacts, tuple[int, int], list, list] | None = None
    """The last tick's contacts, tactile memory and pain events (what ``touched``,
    ``contacts`` and ``pain_events`` read)."""


def take_snapshot(world: PhysicsWorld) -> Snapshot:
    """Copy the state and control of ``world`` and take its model's copy (see the module
    doc)."""
    state = world.state
    senses = (world.contacts, state.contacts_at, list(state.touches), list(state.pain_events))
    return Snapshot(world.model.copy(), state.changing_columns(), state.tick,
                    state.rng.bit_generator.state, world.broad_state(), senses)


def put_back(world: PhysicsWorld, snap: Snapshot) -> None:
    """Return ``world`` to ``snap``: state and control in place, the model of the tables whose
    model changed since (their views are then taken anew)."""
    world.model.put_back(snap.model, snap.columns)
    # The topology version is the snapshot's (the layers' caches keyed on it were captured
    # with it); the physics' own derived tables are rebuilt.
    world.forget_derived()
    state = world.state
    state.tick = snap.tick
    state.rng.bit_generator.state = snap.rng_state
    world.restore_broad(snap.broad)
    if snap.senses is not None:
        state.contacts, state.contacts_at, touches, pain = snap.senses
        state.touches = deque(touches)
        state.pain_events = deque(pain, maxlen=state.pain_events.maxlen)
