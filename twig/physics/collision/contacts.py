"""What touched what this tick: contact records, tactile memory and pain (Horswill 2009, VI.E).

"When a body part detects a collision, it stores a pointer to the object that hit it ... The
system also computes the kinetic energy of the impact. If the kinetic energy is over threshold,
the system registers it as pain. Characters also maintain an overall pain level, which decays
exponentially over time."

Pain here is measured in joules: every impact whose energy exceeds the struck body's threshold
adds that energy to its pain level, which then halves every ``pain_half_life`` seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from twig.physics.collision.pair_table import (
    BODY_A,
    BODY_B,
    DEPTH,
    ENERGY,
    FLOATS,
    HIT_CONTACT,
    HIT_SIDE,
    VOL_A,
    VOL_B,
    VOLUME_A,
    VOLUME_B,
)
from twig.physics.flags import MOVING
from twig.physics.hot import kernel


@dataclass(frozen=True)
class Contacts:
    """The contacts of one tick, as parallel arrays (one row per touching volume pair).

    ``volume_a``/``volume_b`` are volume ids, ``body_a``/``body_b`` body ids, ``point`` (C, 3)
    and ``normal`` (C, 3, unit, from b toward a) in metres, ``depth`` (C,) the deepest
    penetration resolved (m) and ``energy`` (C,) the impact kinetic energy (J).
    """

    tick: int
    volume_a: np.ndarray
    volume_b: np.ndarray
    body_a: np.ndarray
    body_b: np.ndarray
    point: np.ndarray
    normal: np.ndarray
    depth: np.ndarray
    energy: np.ndarray

    def __len__(self) -> int:
        return len(self.depth)

    def involving(self, body_id: int) -> np.ndarray:
        """Row indices of the contacts that involve body ``body_id``."""
        return np.flatnonzero((self.body_a == body_id) | (self.body_b == body_id))


@kernel
def record_contacts(pair_vol, pair_f, active, n_active, vol_id, vol_body, vol_nodes, node_row,
                    flags, pain, pain_threshold, pain_half_life, dt, hit_row, hit_ids,
                    pain_hits, pain_level):
    """After a tick: list its contacts, decay every body's pain and add this tick's.

    A contact is an active pair (see ``narrow.first_sweep``) that resolved a penetration;
    ``hit_row`` ((P,) int64) receives their contact rows and ``hit_ids`` ((P, 4) int64, the
    columns of ``pair_table.HITS``) their volume ids and body ids, in candidate order. Pain (J,
    per body row) halves every ``pain_half_life`` seconds; an impact energy over the struck
    body's ``pain_threshold`` is added to it, first for every contact's first body, then for
    every second body (not to a side driven by set-point moves: a kicking foot, a punching
    fist gives the blow; nor to a body from its own limbs), and each such hit is written to
    ``pain_hits`` ((2P, 2) int64, the columns of ``pair_table.PAIN_HITS``) with the pain level
    it left (``pain_level``, J). Returns (contacts, pain hits).
    """
    n = 0
    for row in range(n_active):
        # Written whether it touches or not, then kept or overwritten: half the rows of a pile
        # touch, a branch on it is a coin flip.
        q = active[row]
        va = pair_vol[q, VOL_A]
        vb = pair_vol[q, VOL_B]
        hit_row[n] = row
        hit_ids[n, VOLUME_A] = vol_id[va]
        hit_ids[n, VOLUME_B] = vol_id[vb]
        hit_ids[n, BODY_A] = vol_body[va]
        hit_ids[n, BODY_B] = vol_body[vb]
        n += pair_f[row, DEPTH] > 0.0
    hurting = False
    for r in range(pain.shape[0]):
        hurting |= pain[r] != 0.0
    if hurting:
        for r in range(pain.shape[0]):
            pain[r] *= 0.5 ** (dt / pain_half_life[r])
    m = 0
    for side in range(2):
        for c in range(n):
            vol = pair_vol[active[hit_row[c]], VOL_A + side]
            row = node_row[vol_nodes[vol, 0]]
            energy = pair_f[hit_row[c], ENERGY]
            driven = False
            for k in range(4):
                driven |= (flags[vol_nodes[vol, k]] & MOVING) != 0
            # A body knocking into itself (a limb against its own leg) feels no pain.
            own = hit_ids[c, BODY_A] == hit_ids[c, BODY_B]
            if energy > pain_threshold[row] and not driven and not own:
                pain[row] += energy
                pain_hits[m, HIT_CONTACT] = c
                pain_hits[m, HIT_SIDE] = side
                pain_level[m] = pain[row]
                m += 1
    return n, m


def gather_contacts(tick: int, pair_f: np.ndarray, hit_row: np.ndarray,
                    hit_ids: np.ndarray) -> Contacts:
    """The contacts :func:`record_contacts` listed (``hit_row``, ``hit_ids`` cut to their
    count) as :class:`Contacts`, in fresh arrays."""
    ids = hit_ids.copy()
    return Contacts(tick, ids[:, VOLUME_A], ids[:, VOLUME_B], ids[:, BODY_A], ids[:, BODY_B],
                    pair_f[hit_row, FLOATS.span("point")], pair_f[hit_row, FLOATS.span("normal")],
                    pair_f[hit_row, DEPTH], pair_f[hit_row, ENERGY])


class PainEvent(NamedTuple):
    """An impact over a body's pain threshold: ``body`` was hit by ``source`` (names) at time
    ``t`` (s) with ``energy`` (J), leaving its pain at ``level``, at ``point`` (m). A named
    tuple: a pile's landing makes hundreds a tick."""

    t: float
    body: str
    source: str
    energy: float
    level: float
    point: tuple[float, float, float]
