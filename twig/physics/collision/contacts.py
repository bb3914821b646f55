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

import numpy as np

from twig.physics.collision.response import DEPTH, ENERGY, NORMAL, POINT


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


def gather_contacts(tick: int, pair_vol: np.ndarray, pair_f: np.ndarray, vol_id: np.ndarray,
                    vol_body: np.ndarray) -> Contacts:
    """The candidate pairs that touched (resolved a penetration) this tick; the arrays are
    views of one fresh copy of their rows."""
    hit = np.flatnonzero(pair_f[:, DEPTH] > 0.0)
    va = pair_vol[hit, 0]
    vb = pair_vol[hit, 1]
    rows = pair_f[hit]
    return Contacts(tick, vol_id[va], vol_id[vb], vol_body[va], vol_body[vb],
                    rows[:, POINT:POINT + 3], rows[:, NORMAL:NORMAL + 3], rows[:, DEPTH],
                    rows[:, ENERGY])


@dataclass(frozen=True)
class PainEvent:
    """An impact over a body's pain threshold: ``body`` was hit by ``source`` (names)."""

    t: float
    body: str
    source: str
    energy: float
    level: float
    point: tuple[float, float, float]
