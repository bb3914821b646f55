"""The last word of the links at the end of a tick (:func:`relax_final`): more sweeps, after
the contacts and friction, over the links of the characters whose visible links they left off
their lengths, and over the links around a struck one (Jakobsen 2001, section 8: a different
number of iterations for different constraints).

Each tick starts with one pass over the links that finds who needs them; the sweeps then go
over the links of those bodies only (listed once, in solver order, so that consecutive
projections stay independent and the CPU overlaps them). In a walking crowd of 100 about 9
walkers in 100 need them at a tick.
"""

from __future__ import annotations

import math

import numpy as np

from twig.physics.collision.pair_table import COEF_A, DEPTH, NODES_A, NODES_B, SIDE_NODES
from twig.physics.constraints import marked_rows, project_angle, project_planes, sweep_rows
from twig.physics.flags import STIFF, YIELDING
from twig.physics.hot import hot_kernel, kernel

FINAL_SWEEPS = 3
"""Sweeps over the links of a STIFF body in need (:data:`FINAL_NEED`) at the end of each tick
(:func:`relax_final`); what they do to the playground's link stretch is measured in
``docs/believability.md``. Two left more; a backward sweep last left the thighs stretched
7 % (a shin projected after its thigh pulls the knee from a planted foot's side alone);
following each sweep with the hinges kept knees from bending backwards but stretched the
links more and lowered a figure sitting on the ground."""

FINAL_NEED = 0.02
"""A STIFF body (a character) is *in need* when one of its visible links (``link_visible``),
or a link to another body (a hand's grab of a prop: zero-length, so a carrier always is), is
longer or shorter than this fraction of its length after the contacts and friction: only
then do its links get the :data:`FINAL_SWEEPS`, and more while a visible one stays off by
this much. Below it, the sweeps would move its joints by less than a viewer notices, and the
invisible bracing links (the pelvis and the shoulder girdle) are seen only through the
visible ones. Sweeping every character's links every tick, as before, cost a walking crowd
of 100 a third of its tick (2400 links, 3 sweeps, repairs around the feet that could not
reach their lengths)."""

FINAL_STRUCK = 1.0
"""m/s. A rigid link of a body that is not STIFF is *struck* (:func:`relax_final`) when it
would end the tick longer or shorter than :data:`FINAL_STRETCH` with a node moving faster
than this: a limp figure dropped from 1 m landed with a shin 10 % short and its forearms
11 % (the knee driven down onto the planted foot, the elbow onto the hand). Links at rest
under a pile's weight are left as the relaxation leaves them (swept too, the dolls of a
pile stayed awake)."""

FINAL_STRETCH = 0.01
"""Where a link is struck (:data:`FINAL_STRUCK`), the links around it are swept until none
is off by more than this fraction, at most :data:`FINAL_SWEEPS_STRETCHED` times: the dropped
figure's joints then stay within 1 cm of a rigid skeleton's (its BVH)."""

FINAL_SWEEPS_STRETCHED = 8
"""Most sweeps after the :data:`FINAL_SWEEPS` over the links still off (:func:`_repair`)."""

FINAL_GAIN = 0.9
"""A body's sweeps after the :data:`FINAL_SWEEPS` stop when one would leave its worst link
(metres off its length) above this fraction of the sweep before: in a walking crowd the
links between a planted and a driven foot cannot all reach their lengths, and their sweeps
ran all :data:`FINAL_SWEEPS_STRETCHED` times to move the worst link by a millimetre."""


@kernel
def relax_final(pos, prev, w, radius, flags, lock_pos, link_nodes, link_min, link_max,
                link_stiffness, n_rigid, n_exact, link_visible, angle_nodes, angle_cos,
                plane_normal, plane_offset, plane_friction, depth, contact_normal,
                contact_friction, pair_i, pair_f, n_active, node_row, n_bodies, dt):
    """The last word of the characters' links: :data:`FINAL_SWEEPS` sweeps over the links
    that touch a STIFF node of a body in need (:data:`FINAL_NEED`, :func:`_struck_by_fist`;
    ``link_visible`` (L,) uint8 says which links are drawn), more while its visible links
    stay off (:func:`_repair`), then the planes, at the end of the tick (after the contacts
    and friction), moving ``prev`` with ``pos`` for the nodes in a contact (the first
    ``n_active`` pairs of ``pair_i``/``pair_f`` that touch this tick, another body's or the
    node's own).

    A character's hands and feet are often immovable in the projection (driven or planted)
    and its hands pressed against a partner; with the contacts resolved after the links in
    every iteration, its short links (hips, pelvis, forearms) ended the tick stretched.
    Moved last, they hold their lengths. In a contact the move is a correction of position
    only: Verlet would read it as velocity, and a hand moved back into a chair it touches
    would strike it next tick (a child approaching a chair felt its pain and withdrew); a
    child's trunk, pushed off its own forearm (the hand holding a doll against it) and moved
    back by its links, was driven into the forearm faster every tick until the impacts (up
    to 10 J) threw the child down. Elsewhere it is velocity, as every projection's is
    (position only everywhere, a reaching hand fell short of a pen).

    Where a link of a body that is not STIFF is struck (:data:`FINAL_STRUCK`; any such
    body's but a held one's, :func:`_strikable_nodes`), it gets these sweeps too, then more
    over the links around it until they are within :data:`FINAL_STRETCH` or stop gaining
    (:data:`FINAL_GAIN`). In all of them a node of a body that is not STIFF that a plane
    pushed this tick does not give way (weight 0, shock propagation: Guendelman, Bridson and
    Fedkiw 2003), so a knee driven onto a planted foot is lifted instead of pushing the foot
    into the ground, whose projection would push it back. Nothing moves in a world whose
    characters need nothing (:func:`_mark_final`, :func:`_struck_by_fist`) and that has no
    struck link."""
    n = pos.shape[0]
    need = np.zeros(n_bodies, dtype=np.uint8)
    work = np.zeros(n_bodies, dtype=np.uint8)
    struck = np.zeros(n, dtype=np.uint8)
    step = FINAL_STRUCK * dt
    n_need, n_struck, fists = _mark_final(pos, prev, flags, link_nodes, link_min, link_max,
                                          link_stiffness, link_visible, node_row, step * step,
                                          need, work, struck)
    if fists:
        n_need += _struck_by_fist(flags, pair_i, pair_f, n_active, node_row, need, work)
    if n_need + n_struck == 0:
        return
    strikable = np.zeros(n, dtype=np.uint8)  # matters only where a node is struck
    if n_struck > 0:
        strikable = _strikable_nodes(flags, link_nodes, node_row, n_bodies)
        for i in range(n):
            struck[i] &= strikable[i]
    marked = np.zeros(n, dtype=np.uint8)
    for i in range(n):
        marked[i] = work[node_row[i]]
    rows = marked_rows(link_nodes, marked)  # the links of the bodies in work
    start = pos.copy()
    held = w.copy() if n_struck > 0 else w  # shock propagation: what the planes hold
    for r in range(rows.shape[0]):          # does not give way
        for i in (link_nodes[rows[r], 0], link_nodes[rows[r], 1]):
            marked[i] = struck[i] | (need[node_row[i]] & (flags[i] & STIFF != 0))
            if depth[i] > 0.0 and strikable[i] and not flags[i] & STIFF:
                held[i] = 0.0
    for _ in range(FINAL_SWEEPS):
        for a in range(angle_nodes.shape[0]):
            if marked[angle_nodes[a, 1]]:
                project_angle(pos, held, angle_nodes[a, 0], angle_nodes[a, 1],
                              angle_nodes[a, 2], angle_cos[a, 0], angle_cos[a, 1])
        sweep_rows(pos, held, link_nodes, link_min, link_max, link_stiffness, n_rigid,
                    n_exact, rows, marked)
    _repair(pos, held, flags, strikable, struck, link_nodes, link_min, link_max,
            link_stiffness, link_visible, n_rigid, n_exact, node_row, n_bodies, rows, marked)
    project_planes(pos, w, radius, flags, lock_pos, plane_normal, plane_offset, plane_friction,
                   np.zeros(n), contact_normal, contact_friction)
    for q in range(n_active):
        if pair_f[q, DEPTH] <= 0.0:  # no contact this tick: its coefficients are old
            continue
        for k in range(2 * SIDE_NODES):  # both sides: COEF_B follows COEF_A, NODES_B NODES_A
            if pair_f[q, COEF_A + k] != 0.0:
                i = pair_i[q, NODES_A + k]
                for c in range(3):
                    prev[i, c] += pos[i, c] - start[i, c]
                    start[i, c] = pos[i, c]  # once per node


@kernel
def _repair(pos, held, flags, strikable, struck, link_nodes, link_min, link_max,
            link_stiffness, link_visible, n_rigid, n_exact, node_row, n_bodies, rows, marked):
    """Up to :data:`FINAL_SWEEPS_STRETCHED` more sweeps, with weights ``held``, over the
    links ``rows`` while some are off (:func:`_mark_off`: a STIFF body's visible links by
    more than :data:`FINAL_NEED`, the links around the ``struck`` nodes ((N,) uint8, grown
    by each sweep's links) by more than :data:`FINAL_STRETCH`); a body leaves them when a
    sweep would leave its worst link (m off its length) above :data:`FINAL_GAIN` of the
    sweep before (``marked``: scratch (N,) uint8)."""
    worst = np.full(n_bodies, np.inf)
    off = np.zeros(n_bodies)
    out = np.zeros(n_bodies, dtype=np.uint8)
    for _ in range(FINAL_SWEEPS_STRETCHED):
        for r in range(rows.shape[0]):
            marked[link_nodes[rows[r], 0]] = marked[link_nodes[rows[r], 1]] = 0
        if _mark_off(pos, flags, strikable, struck, out, link_nodes, link_min, link_max,
                     link_stiffness, link_visible, node_row, rows, marked, off) == 0:
            return
        left = 0
        for b in range(n_bodies):
            if off[b] > FINAL_GAIN * worst[b]:
                out[b] = 1
            else:
                left += off[b] > 0.0
            worst[b] = off[b]
            off[b] = 0.0
        if left == 0:
            return
        for r in range(rows.shape[0]):  # the region grows a link a sweep, as the repair spreads
            for i in (link_nodes[rows[r], 0], link_nodes[rows[r], 1]):
                marked[i] &= out[node_row[i]] ^ np.uint8(1)
                struck[i] |= marked[i]
        sweep_rows(pos, held, link_nodes, link_min, link_max, link_stiffness, n_rigid,
                    n_exact, rows, marked)


@kernel
def _strikable_nodes(flags, link_nodes, node_row, n_bodies):
    """(N,) uint8: 1 for the nodes whose links may be struck (:data:`FINAL_STRUCK`): all
    but those of a body that a STIFF node of another holds by a link (a character's doll, a
    prop in a hand: they move with the hand's sweeps; swept as struck, a carried doll
    whirled its carrier off its feet more often)."""
    gripped = np.zeros(n_bodies, dtype=np.uint8)
    for k in range(link_nodes.shape[0]):
        i = link_nodes[k, 0]
        j = link_nodes[k, 1]
        a = flags[i] & STIFF
        b = flags[j] & STIFF
        if a and not b:
            gripped[node_row[j]] = 1
        elif b and not a:
            gripped[node_row[i]] = 1
    strikable = np.zeros(flags.shape[0], dtype=np.uint8)
    for i in range(flags.shape[0]):
        if flags[i] & STIFF or not gripped[node_row[i]]:
            strikable[i] = 1
    return strikable


@hot_kernel
def _moved2(pos, prev, i):
    """Squared distance (m^2) node ``i`` moved this tick."""
    return ((pos[i, 0] - prev[i, 0]) ** 2 + (pos[i, 1] - prev[i, 1]) ** 2
            + (pos[i, 2] - prev[i, 2]) ** 2)


@hot_kernel
def _length2(pos, i, j):
    """Squared distance (m^2) between nodes ``i`` and ``j``."""
    return ((pos[i, 0] - pos[j, 0]) ** 2 + (pos[i, 1] - pos[j, 1]) ** 2
            + (pos[i, 2] - pos[j, 2]) ** 2)


@hot_kernel
def _off(d2, lo, hi, fraction):
    """Whether a link ``sqrt(d2)`` m long is longer than ``hi`` or shorter than ``lo`` by more
    than ``fraction`` of them (squares compared: no square root for a link within them)."""
    return d2 > (hi * (1.0 + fraction)) ** 2 or d2 < (lo * (1.0 - fraction)) ** 2


@kernel
def _mark_final(pos, prev, flags, link_nodes, link_min, link_max, link_stiffness, link_visible,
                node_row, step2, need, work, struck):
    """One pass over the rigid links (stiffness 1): mark the bodies in ``need`` ((B,) uint8)
    with a link touching a STIFF node, visible or to another body (a grab), off by more than
    :data:`FINAL_NEED`, and as ``struck`` ((N,) uint8) the nodes of the other links off by
    more than :data:`FINAL_STRETCH` with a node that moved more than ``sqrt(step2)`` (m) this
    tick; the bodies of both in ``work`` ((B,) uint8). Returns how many links of each, and
    whether a node of a link is a striking fist (YIELDING)."""
    n_need = 0
    n_struck = 0
    seen = np.uint8(0)
    for k in range(link_nodes.shape[0]):
        i = link_nodes[k, 0]
        j = link_nodes[k, 1]
        seen |= flags[i] | flags[j]
        stiff = (flags[i] | flags[j]) & STIFF
        if link_stiffness[k] != 1.0 or (stiff and not link_visible[k]
                                        and node_row[i] == node_row[j]):
            continue
        d2 = _length2(pos, i, j)
        if stiff:
            if not _off(d2, link_min[k], link_max[k], FINAL_NEED):
                continue
            need[node_row[i]] = need[node_row[j]] = 1
            n_need += 1
        elif (_off(d2, link_min[k], link_max[k], FINAL_STRETCH)
              and max(_moved2(pos, prev, i), _moved2(pos, prev, j)) > step2):
            struck[i] = struck[j] = 1
            n_struck += 1
        else:
            continue
        work[node_row[i]] = work[node_row[j]] = 1
    return n_need, n_struck, seen & YIELDING != 0


@kernel
def _struck_by_fist(flags, pair_i, pair_f, n_active, node_row, need, work):
    """Mark in ``need`` and ``work`` ((B,) uint8) the characters (STIFF nodes) on either side
    of a contact with a striking fist (a YIELDING node) this tick (the first ``n_active``
    pairs of ``pair_i``/``pair_f``): the contacts come after the links in every iteration, and
    the blow leaves both bodies' links off by less than :data:`FINAL_NEED` but moving fast
    (swept only where a link was that far off, a struck child's trunk reached 4.9 m/s, 4.6 with
    these sweeps); returns how many contacts."""
    count = 0
    for q in range(n_active):
        if pair_f[q, DEPTH] <= 0.0:
            continue
        fist = False
        for k in range(2 * SIDE_NODES):  # both sides: COEF_B follows COEF_A, NODES_B NODES_A
            if pair_f[q, COEF_A + k] != 0.0 and flags[pair_i[q, NODES_A + k]] & YIELDING:
                fist = True
        if not fist:
            continue
        count += 1
        for i in (pair_i[q, NODES_A], pair_i[q, NODES_B]):
            if flags[i] & STIFF:
                need[node_row[i]] = work[node_row[i]] = 1
    return count


@kernel
def _mark_off(pos, flags, strikable, near, out, link_nodes, link_min, link_max,
              link_stiffness, link_visible, node_row, rows, marked, off):
    """Mark ((N,) uint8 ``marked``) the nodes of the rigid links ``rows`` of a body not
    ``out`` ((B,) uint8) that are off: visible ones touching a STIFF node by more than
    :data:`FINAL_NEED`, others between ``strikable`` nodes with a node ``near`` ((N,)
    uint8) by more than :data:`FINAL_STRETCH`; keep each body's worst (m) in ``off``
    ((B,)). Returns how many links."""
    count = 0
    for r in range(rows.shape[0]):
        k = rows[r]
        i = link_nodes[k, 0]
        j = link_nodes[k, 1]
        b = node_row[i]
        if link_stiffness[k] != 1.0 or out[b]:
            continue
        if (flags[i] | flags[j]) & STIFF:
            if not link_visible[k]:
                continue
            fraction = FINAL_NEED
        elif near[i] + near[j] == 0 or strikable[i] + strikable[j] < 2:
            continue
        else:
            fraction = FINAL_STRETCH
        d2 = _length2(pos, i, j)
        if _off(d2, link_min[k], link_max[k], fraction):
            marked[i] = marked[j] = 1
            d = math.sqrt(d2)
            off[b] = max(off[b], d - link_max[k], link_min[k] - d)
            count += 1
    return count
