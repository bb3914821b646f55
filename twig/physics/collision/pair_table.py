"""The contact pair table's columns, each declared once, by name.

The broad phase lists candidate volume pairs (``pair_vol``, with the narrow phase's memory of
each in ``pair_seen``); the first sweep gives each candidate found within 1 cm a contact row
(``narrow.first_sweep``), set up by ``narrow.activate_pair`` and read by the later sweeps,
friction and the contact listing. A row is spread over three arrays of P rows, one per kind of
value: ``pair_f`` (float64, :data:`FLOATS`), ``pair_b`` (bool, :data:`FLAGS`) and ``pair_i``
(int32, :data:`NODES`); the contact listing's ``hit_ids`` (int64, :data:`HITS`) names what
touched.

Each column is declared below by name, width and meaning; its first slot is the module
constant the kernels index with (``pair_f[q, DEPTH]``). Numba freezes a module's integers into
the compiled code, so a named column costs what a number did. The slots are counted here, in
declaration order, and the buffers are allocated by :meth:`Slots.zeros`: adding a column is
one line here. A column of several slots is indexed by its first slot plus a named offset:
``X``, ``Y``, ``Z`` for a vector, ``N0`` to ``N3`` for a side's nodes, and the second side's
columns follow the first's by :data:`SIDE_NODES` (``pair_i[q, NODES_A + SIDE_NODES * side + k]``).

Units are those of the world: metres, joules; P is the pair buffers' capacity.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Slots:
    """The columns of a table of ``dtype`` values, one row per pair: each column's name,
    first slot, width and meaning, in declaration order."""

    table: str
    dtype: type
    columns: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    width: int = 0
    """Slots of a row: the columns' widths, summed."""

    def column(self, name: str, doc: str, width: int = 1) -> int:
        """Declare column ``name`` of ``width`` slots after the last one; returns its first
        slot."""
        if name in self.columns:
            raise ValueError(f"{self.table}: column {name!r} declared twice")
        start = self.width
        self.columns[name] = (start, width, doc)
        self.width += width
        return start

    def span(self, name: str) -> slice:
        """The slots of column ``name`` (for NumPy's indexing outside the kernels)."""
        start, width, _ = self.columns[name]
        return slice(start, start + width)

    def zeros(self, rows: int) -> np.ndarray:
        """A table of ``rows`` rows, zeroed."""
        return np.zeros((rows, self.width), dtype=self.dtype)


X, Y, Z = 0, 1, 2
"""Offsets of a vector's components from its column's first slot."""
AXES = 3
"""Slots of a vector column."""
N0, N1, N2, N3 = 0, 1, 2, 3
"""Offsets of a side's nodes (and their coefficients) from its column's first slot; a capsule
uses ``N0`` and ``N1`` (a sphere repeats its node), a box's frame all four."""
SIDE_NODES = 4
"""Nodes that carry one side of a pair: a box's frame; a capsule's two repeated."""

CANDIDATE = Slots("pair_vol", np.int32)
"""``pair_vol`` (P, 2): the broad phase's candidate pairs, lower volume index first."""
VOL_A = CANDIDATE.column("vol_a", "Volume index of the first side.")
VOL_B = CANDIDATE.column("vol_b", "Volume index of the second side.")
VOL_SLOTS = CANDIDATE.width
"""Slots of a ``pair_vol`` row (rows are moved as runs of this many int32)."""

MEMORY = Slots("memory", np.float64)
"""What the sweeps remember of a capsule pair found apart: a lower bound on how far apart it
is and where its four nodes were then (see ``capsules.remember_at``, ``capsules.drift``). A
candidate's row of ``pair_seen`` is one memory, and a contact row's SEEN slots another."""
DISTANCE = MEMORY.column("distance", "How far apart the pair was at least (m): the core "
                         "segments' distance for a candidate, the surfaces' gap for a contact "
                         "row; 0 decides nothing.")
AT_A0 = MEMORY.column("at_a0", "Where the first side's node N0 was (m).", AXES)
AT_A1 = MEMORY.column("at_a1", "Where the first side's node N1 was (m).", AXES)
AT_B0 = MEMORY.column("at_b0", "Where the second side's node N0 was (m).", AXES)
AT_B1 = MEMORY.column("at_b1", "Where the second side's node N1 was (m).", AXES)

SEEN_TABLE = Slots("pair_seen", np.float64)
"""``pair_seen`` (P, CANDIDATE_SLOTS): one :data:`MEMORY` per candidate, kept between ticks
and moved with the candidate when the list is rebuilt (``pair_list.carry_memory``)."""
CANDIDATE_SEEN = SEEN_TABLE.column("seen", "The candidate's memory.", MEMORY.width)
CANDIDATE_SLOTS = SEEN_TABLE.width
"""Slots of a ``pair_seen`` row."""

FLOATS = Slots("pair_f", np.float64)
"""``pair_f`` (P, PAIR_SLOTS): a contact row's numbers."""
GAP = FLOATS.column("gap", "Signed gap at the first iteration of the tick (m; negative: "
                    "penetration).")
DEPTH = FLOATS.column("depth", "Deepest penetration resolved this tick (m; 0: no contact).")
POINT = FLOATS.column("point", "Contact point, midway between the surfaces (m).", AXES)
NORMAL = FLOATS.column("normal", "Unit contact normal, from the second volume to the first.",
                       AXES)
ENERGY = FLOATS.column("energy", "Impact kinetic energy at first contact this tick: "
                       "m_eff v_n^2 / 2 (J).")
PUSH = FLOATS.column("push", "Total normal separation applied this tick (m; drives "
                     "friction).")
MU = FLOATS.column("mu", "Friction coefficient of the pair.")
COEF_A = FLOATS.column("coef_a", "Affine coefficients of the deepest contact point on the "
                       "first volume, one per node of NODES_A.", SIDE_NODES)
COEF_B = FLOATS.column("coef_b", "The same on the second volume (NODES_B).", SIDE_NODES)
ALLOWED = FLOATS.column("allowed", "Total normal push (m) the pair may receive this tick "
                        "(see projection.project_contact).")
SEEN = FLOATS.column("seen", "A capsule row's MEMORY the last time it was measured apart "
                     "this tick; its DISTANCE -1 once it touched (see capsules.still_apart).",
                     MEMORY.width)
SEPARATED = FLOATS.column("separated", "How far the projections of a pair with a box have "
                          "separated it this tick (m): the largest push of each projection, "
                          "summed. ALLOWED caps it, not PUSH: a box pushed out at four "
                          "corners by d each is separated by about d, not 4 d.")
LARGEST = FLOATS.column("largest", "The largest push (m) of the projection under way (see "
                        "SEPARATED).")
PAIR_SLOTS = FLOATS.width
"""Slots of a ``pair_f`` row."""

FLAGS = Slots("pair_b", np.bool_)
"""``pair_b`` (P, 4): a contact row's booleans, each side's after the first's."""
MOVE_A = FLAGS.column("move_a", "The first volume responds to the contact (False: it is "
                      "passive, kinematic).")
MOVE_B = FLAGS.column("move_b", "The second volume responds to the contact.")
RIGID_A = FLAGS.column("rigid_a", "The first volume is a box moved as a rigid frame "
                       "(collision.rigid; False: Jakobsen's affine rule).")
RIGID_B = FLAGS.column("rigid_b", "The same for the second volume.")

NODES = Slots("pair_i", np.int32)
"""``pair_i`` (P, 8): the nodes that carry each side of a contact row (a volume's nodes)."""
NODES_A = NODES.column("nodes_a", "The first volume's nodes.", SIDE_NODES)
NODES_B = NODES.column("nodes_b", "The second volume's nodes.", SIDE_NODES)

HITS = Slots("hit_ids", np.int64)
"""``hit_ids`` (P, 4): what each contact of the tick touched (``contacts.record_contacts``)."""
VOLUME_A = HITS.column("volume_a", "The first volume's id.")
VOLUME_B = HITS.column("volume_b", "The second volume's id.")
BODY_A = HITS.column("body_a", "The first volume's body id.")
BODY_B = HITS.column("body_b", "The second volume's body id.")

PAIN_HITS = Slots("pain_hits", np.int64)
"""``pain_hits`` (2P, 2): the tick's impacts over a body's pain threshold
(``contacts.record_contacts``)."""
HIT_CONTACT = PAIN_HITS.column("contact", "The contact's row of ``hit_ids``.")
HIT_SIDE = PAIN_HITS.column("side", "The side struck: 0 the first, 1 the second.")

assert VOL_B == VOL_A + 1 and MOVE_B == MOVE_A + 1 and RIGID_B == RIGID_A + 1, \
    "a side's column must follow the first side's by one slot (indexed by side)"
assert COEF_B == COEF_A + SIDE_NODES and NODES_B == NODES_A + SIDE_NODES and BODY_B == BODY_A + 1, \
    "the second side's columns must follow the first's"
