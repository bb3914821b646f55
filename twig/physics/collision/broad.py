"""Broad phase: which volume pairs could touch this tick.

Horswill 2009 (section VI.D) projects each object onto the ground plane and compares distances
against a collision radius (axis-aligned cylinders); if two objects pass, their volumes are
tested exhaustively. Here the bodies' ground footprints go into a uniform grid so that 1000
characters do not cost N^2 tests, each candidate body pair gets the cylinder test, and their
volumes are paired by bounding boxes.

Contact caching ("Verlet lists"): boxes are grown by a margin plus a few ticks of each volume's
motion; the pair list stays valid, and is reused, until some volume leaves its grown box. Then
only the bodies that moved out get new boxes, and the pairs of two bodies that did not are
copied from the last list; the rebuilt list keeps what the narrow phase remembered about each
pair listed before (:func:`carry_memory`).
"""

from __future__ import annotations

import math

import numpy as np

from twig.physics.collision.box_pairs import box_frame
from twig.physics.collision.narrow import ACTIVE_GAP, BOX
from twig.physics.collision.pair_list import (
    UNKNOWN,
    carry_memory,
    copy_run,
    merged_keys,
    push_key,
)
from twig.physics.collision.pair_table import VOL_A, VOL_B, VOL_SLOTS
from twig.physics.hot import hot_kernel, kernel
from twig.physics.memmove import memmove
from twig.physics.sorting import stable_argsort

LARGE_CELLS = 64
"""Bodies covering more grid cells than this (floors, long walls) are tested against every
body directly instead of being put in the grid."""

REBUILT = 0
"""``stats`` slot: 1 if the pair list was rebuilt this tick."""
BODY_TESTS = 1
"""``stats`` slot: body pairs given the cylinder test."""
VOLUME_TESTS = 2
"""``stats`` slot: volume pairs given the bounding-box test."""
PAIRS = 3
"""``stats`` slot: candidate volume pairs handed to the narrow phase."""
BLOCKS = 5
"""``stats`` slot: body pairs of the list recorded in ``block_key``/``block_start`` (0: none to
reuse), kept between ticks."""


@hot_kernel
def _volume_axis(pos, prev, vol_kind, vol_nodes, vol_radius, box_h, box_u, box_c, v, c):
    """Along axis ``c``: the tight bounds of volume ``v`` and the extremes of its nodes'
    displacement over the last tick (``dlo`` <= 0 <= ``dhi``), metres. A box's frame must be
    current (:func:`~twig.physics.collision.box_pairs.box_frame`)."""
    if vol_kind[v] == BOX:
        e = (box_h[v, 0] * abs(box_u[v, 0, c]) + box_h[v, 1] * abs(box_u[v, 1, c])
             + box_h[v, 2] * abs(box_u[v, 2, c]))
        lo = box_c[v, c] - e
        hi = box_c[v, c] + e
        count = 4
    else:
        a = vol_nodes[v, 0]
        b = vol_nodes[v, 1]
        r = vol_radius[v]
        lo = min(pos[a, c], pos[b, c]) - r
        hi = max(pos[a, c], pos[b, c]) + r
        count = 2
    dlo = 0.0
    dhi = 0.0
    for k in range(count):
        i = vol_nodes[v, k]
        d = pos[i, c] - prev[i, c]
        dlo = min(dlo, d)
        dhi = max(dhi, d)
    return lo, hi, dlo, dhi


@hot_kernel
def _outside(lo, hi, dlo, dhi, build_lo, build_hi, v, c):
    """Whether volume ``v``'s bounds on axis ``c`` (``lo``, ``hi``), swept by this tick's
    expected motion (the last tick's: ``dlo``, ``dhi``) and grown by the narrow phase's active
    gap, leave its grown build box."""
    return lo + dlo - ACTIVE_GAP < build_lo[v, c] or hi + dhi + ACTIVE_GAP > build_hi[v, c]


@kernel
def _moved_bodies(pos, prev, vol_kind, vol_nodes, vol_radius, vol_coef, box_c, box_u, box_h,
                  node_row, build_lo, build_hi, force, moved):
    """Mark in ``moved`` ((B,) bool) the body rows (``node_row`` of a volume's first node) with
    a volume that left its grown build box (:func:`_outside`; all of them with ``force``);
    returns whether any did.

    While none has, the cached pair list still holds: every pair that comes within the active
    gap this tick is listed, as long as no volume moves much more than it did the last tick;
    in a jammed pile that fails now and then (100 dolls: one tick in 60 differed from an 8 cm
    margin) and a pair is found a tick later. Snapshots keep the list, so a restored world
    repeats its future. One pass over the volumes, in order: a list that holds (bodies at
    rest) costs what the test alone does."""
    moved[:] = force
    found = force
    for v in range(vol_kind.shape[0]):
        out = False
        if vol_kind[v] == BOX:
            box_frame(pos, vol_nodes, vol_coef, v, box_c, box_u, box_h)
            for c in range(3):
                lo, hi, dlo, dhi = _volume_axis(pos, prev, vol_kind, vol_nodes, vol_radius,
                                                box_h, box_u, box_c, v, c)
                out |= _outside(lo, hi, dlo, dhi, build_lo, build_hi, v, c)
        else:
            # A capsule's two nodes in registers, all three axes without a branch: this is
            # most of a pile's volumes, every tick.
            a = vol_nodes[v, 0]
            b = vol_nodes[v, 1]
            r = vol_radius[v]
            for c in range(3):
                pa = pos[a, c]
                pb = pos[b, c]
                da = pa - prev[a, c]
                db = pb - prev[b, c]
                out |= _outside(min(pa, pb) - r, max(pa, pb) + r, min(min(0.0, da), db),
                                max(max(0.0, da), db), build_lo, build_hi, v, c)
        if out:
            moved[node_row[vol_nodes[v, 0]]] = True
            found = True
    return found


@kernel
def _grow_boxes(pos, prev, vol_kind, vol_nodes, vol_radius, vol_coef, box_c, box_u, box_h,
                body_vols, body_vol_start, moved, margin, lookahead, build_lo, build_hi):
    """New grown build boxes for the volumes of the ``moved`` bodies: tight bounds grown by
    ``margin`` (m) and ``lookahead`` ticks of each volume's last motion."""
    for b in range(body_vol_start.shape[0] - 1):
        if not moved[b]:
            continue
        for x in range(body_vol_start[b], body_vol_start[b + 1]):
            v = body_vols[x]
            if vol_kind[v] == BOX:
                box_frame(pos, vol_nodes, vol_coef, v, box_c, box_u, box_h)
            for c in range(3):
                lo, hi, dlo, dhi = _volume_axis(pos, prev, vol_kind, vol_nodes, vol_radius,
                                                box_h, box_u, box_c, v, c)
                build_lo[v, c] = lo - margin + lookahead * dlo
                build_hi[v, c] = hi + margin + lookahead * dhi


@hot_kernel
def _overlap(lo, hi, a, b):
    """Whether boxes ``a`` and ``b`` (rows of ``lo``/``hi``) overlap."""
    return ((lo[a, 0] <= hi[b, 0]) & (lo[b, 0] <= hi[a, 0]) & (lo[a, 1] <= hi[b, 1])
            & (lo[b, 1] <= hi[a, 1]) & (lo[a, 2] <= hi[b, 2]) & (lo[b, 2] <= hi[a, 2]))


@hot_kernel
def _linked(vol_nodes, linked_keys, n_nodes, va, vb):
    """True if a link (a grab, say) joins a node of ``va`` to a node of ``vb``."""
    for k in range(4):
        for m in range(4):
            i = vol_nodes[va, k]
            j = vol_nodes[vb, m]
            key = min(i, j) * n_nodes + max(i, j)
            at = _search(linked_keys, key)
            if at < linked_keys.shape[0] and linked_keys[at] == key:
                return True
    return False


@hot_kernel
def _search(keys, key):
    """``np.searchsorted(keys, key)`` for ascending ``keys``: the first index whose key is not
    less than ``key`` (a binary search; Numba's own compiles once per call site's types)."""
    lo = 0
    hi = keys.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@hot_kernel
def _near(body_vols, body_vol_start, build_lo, build_hi, blo, bhi, body, other, out, stats):
    """Write into ``out`` the positions in ``body_vols`` of the volumes of ``body`` whose grown
    boxes meet ``other``'s box; returns how many."""
    count = 0
    for x in range(body_vol_start[body], body_vol_start[body + 1]):
        v = body_vols[x]
        stats[VOLUME_TESTS] += 1
        # Branch-free ("&", not "and"): whether a limb reaches the other body is a coin flip.
        out[count] = x
        count += ((build_lo[v, 0] <= bhi[other, 0]) & (blo[other, 0] <= build_hi[v, 0])
                  & (build_lo[v, 1] <= bhi[other, 1]) & (blo[other, 1] <= build_hi[v, 1])
                  & (build_lo[v, 2] <= bhi[other, 2]) & (blo[other, 2] <= build_hi[v, 2]))
    return count


@hot_kernel
def _pair_bodies(ba, bb, body_vols, body_vol_start, build_lo, build_hi, blo, bhi, vol_group,
                 vol_mask, vol_passive, vol_nodes, linked_keys, linked_bodies, n_bodies, n_nodes,
                 pair_vol, fresh, most, n, stats, near_a, near_b):
    """Append the volume pairs of bodies ``ba`` < ``bb`` whose grown boxes overlap, and their
    keys to ``fresh`` (see :func:`find_pairs`; ``most`` volumes at most per body).

    Each body's volumes are first culled against the other body's box (``blo``/``bhi``), so
    two figures touching at a hand test a few volume pairs, not 13 x 13. ``near_a`` and
    ``near_b`` are scratch arrays at least as long as a body's volume list.
    """
    key = ba * n_bodies + bb
    at = _search(linked_bodies, key)
    check_links = at < linked_bodies.shape[0] and linked_bodies[at] == key
    na = _near(body_vols, body_vol_start, build_lo, build_hi, blo, bhi, ba, bb, near_a, stats)
    nb = _near(body_vols, body_vol_start, build_lo, build_hi, blo, bhi, bb, ba, near_b, stats)
    for x in range(na):
        va = body_vols[near_a[x]]
        for y in range(nb):
            vb = body_vols[near_b[y]]
            stats[VOLUME_TESTS] += 1
            # Branch-free: whether two limbs' boxes meet is a coin flip in a pile. The pair is
            # written at n in any case and kept by counting it.
            keep = ((build_lo[va, 0] <= build_hi[vb, 0]) & (build_lo[vb, 0] <= build_hi[va, 0])
                    & (build_lo[va, 1] <= build_hi[vb, 1]) & (build_lo[vb, 1] <= build_hi[va, 1])
                    & (build_lo[va, 2] <= build_hi[vb, 2]) & (build_lo[vb, 2] <= build_hi[va, 2])
                    & ((vol_group[va] & vol_mask[vb]) != 0) & ((vol_group[vb] & vol_mask[va]) != 0)
                    & ((vol_passive[va] & vol_passive[vb]) ^ True))
            if keep and check_links and _linked(vol_nodes, linked_keys, n_nodes, va, vb):
                keep = False
            if n < pair_vol.shape[0]:
                pair_vol[n, VOL_A] = min(va, vb)
                pair_vol[n, VOL_B] = max(va, vb)
                fresh[n] = ((key * most + near_a[x] - body_vol_start[ba]) * most
                            + near_b[y] - body_vol_start[bb])
            n += keep
    return n


@hot_kernel
def _bodies_close(blo, bhi, a, b):
    """The paper's test: ground-plane footprints as circles (axis-aligned cylinders) whose
    heights overlap."""
    if blo[a, 1] > bhi[b, 1] or blo[b, 1] > bhi[a, 1]:
        return False
    if blo[a, 0] > bhi[b, 0] or blo[b, 0] > bhi[a, 0]:
        return False
    if blo[a, 2] > bhi[b, 2] or blo[b, 2] > bhi[a, 2]:
        return False
    dx = 0.5 * (blo[a, 0] + bhi[a, 0] - blo[b, 0] - bhi[b, 0])
    dz = 0.5 * (blo[a, 2] + bhi[a, 2] - blo[b, 2] - bhi[b, 2])
    ra = 0.5 * math.hypot(bhi[a, 0] - blo[a, 0], bhi[a, 2] - blo[a, 2])
    rb = 0.5 * math.hypot(bhi[b, 0] - blo[b, 0], bhi[b, 2] - blo[b, 2])
    return dx * dx + dz * dz <= (ra + rb) * (ra + rb)


@kernel
def _stable_order(keys):
    """``np.argsort(keys, kind="mergesort")`` for non-negative grid-cell keys: a counting sort
    (two passes over the keys and one over the cells) when the cells are not many more than
    the keys, which is what a pen or a room of bodies gives (Numba's merge sort took ~480 us
    for 10 000 keys, this ~15), else :func:`~twig.physics.sorting.stable_argsort`."""
    n = keys.shape[0]
    top = 0
    for k in range(n):
        top = max(top, keys[k])
    if top > 4 * n + 1024:  # sparse cells: far-apart bodies
        return stable_argsort(keys)
    first = np.zeros(top + 2, dtype=np.int64)
    for k in range(n):
        first[keys[k] + 1] += 1
    for c in range(top + 1):
        first[c + 1] += first[c]
    order = np.empty(n, dtype=np.int64)
    for k in range(n):
        c = keys[k]
        order[first[c]] = k
        first[c] += 1
    return order


@kernel
def find_pairs(pos, prev, vol_kind, vol_nodes, vol_radius, vol_coef, vol_group, vol_mask,
               vol_passive, box_c, box_u, box_h, body_vols, body_vol_start, self_pairs,
               self_start, linked_keys, linked_bodies, build_lo, build_hi, blo, bhi, margin,
               lookahead, force, use_grid, node_row, pair_vol, pair_key, pair_seen, block_key,
               block_start, stats):
    """Candidate volume pairs for this tick, reusing the last list while it is valid.

    When a volume leaves its grown box only the bodies that moved so get new boxes. The grid
    then looks only for body pairs with a body that moved; the body pairs, volume pairs and
    self pairs of bodies that kept their boxes are copied from the last list: they are what
    pairing them again would give. A settling pile of 100 dolls (2 to 4 s) rebuilds every
    tick, with ~170 body and ~6 100 volume tests a tick where pairing every body afresh took
    ~800 and ~29 800 (~800 and ~9 900 when only volume pairs were copied).

    Parameters
    ----------
    body_vols, body_vol_start
        Volume indices grouped by body row (CSR: body ``b`` owns
        ``body_vols[body_vol_start[b]:body_vol_start[b + 1]]``).
    self_pairs : (S, 2) int32
        Same-body volume pairs allowed to collide (self-collision, adjacent volumes removed),
        grouped by body row in row order.
    self_start : (B + 1,) int64
        Body ``b``'s self pairs are rows ``self_start[b]:self_start[b + 1]``.
    linked_keys, linked_bodies : sorted int64
        ``min * N + max`` of node pairs joined by links across bodies, and the same over body
        rows (``* B``): their volumes do not collide (a hand does not push what it holds).
    build_lo, build_hi : (V, 3) float64
        Grown boxes, renewed for the volumes of each body that moved out of them.
    blo, bhi : (B, 3) float64
        Each body's footprint, the box around its volumes' grown boxes: renewed with them
        (a body that kept its boxes keeps its footprint; 100 dolls, 1300 volumes, in a pile
        where a few dozen bodies move out of their boxes a tick).
    margin, lookahead
        Growth in metres, and in ticks of each volume's current motion.
    force
        Rebuild even if the cached list is still valid (topology changed).
    use_grid
        Find body pairs with the grid; False tests every pair of bodies (the N^2 reference the
        benchmark compares against).
    node_row : (N,) int64
        Body row of each node.
    pair_vol : (P, 2) int32
        Output; when more than P pairs are found only the count is right and the caller
        must grow the buffer and call again with ``force``.
    pair_key : (P,) int64
        Each listed pair's key, ascending in list order: body rows, then the volumes'
        positions in their bodies; self pairs after all others, by ``self_pairs`` row.
    pair_seen : (P, CANDIDATE_SLOTS) float64
        The narrow phase's memory of each listed pair (``narrow._first_capsules``), moved
        with its pair when the list is rebuilt (:func:`carry_memory`).
    block_key, block_start : (P,) and (P + 1,) int64
        The body pairs of the list (``a * B + b``, ascending) and where their volume pairs
        start in it, ``stats[BLOCKS]`` of them (kept between ticks).
    stats : (6,) int64
        REBUILT, BODY_TESTS, VOLUME_TESTS, PAIRS (the pair count, also kept between ticks),
        ``narrow.REMEMBERED`` (the narrow phase's) and BLOCKS.

    Returns the number of candidate pairs.
    """
    stats[REBUILT] = 0
    stats[BODY_TESTS] = 0
    stats[VOLUME_TESTS] = 0
    n_bodies = body_vol_start.shape[0] - 1
    n_nodes = pos.shape[0]
    moved = np.empty(n_bodies, dtype=np.bool_)
    if not _moved_bodies(pos, prev, vol_kind, vol_nodes, vol_radius, vol_coef, box_c, box_u,
                         box_h, node_row, build_lo, build_hi, force, moved):
        return stats[PAIRS]
    stats[REBUILT] = 1
    _grow_boxes(pos, prev, vol_kind, vol_nodes, vol_radius, vol_coef, box_c, box_u, box_h,
                body_vols, body_vol_start, moved, margin, lookahead, build_lo, build_hi)
    extent = 0.0
    used = 0
    for b in range(n_bodies):
        if moved[b]:
            for c in range(3):
                blo[b, c] = np.inf
                bhi[b, c] = -np.inf
            for x in range(body_vol_start[b], body_vol_start[b + 1]):
                v = body_vols[x]
                for c in range(3):
                    blo[b, c] = min(blo[b, c], build_lo[v, c])
                    bhi[b, c] = max(bhi[b, c], build_hi[v, c])
        if body_vol_start[b + 1] > body_vol_start[b]:
            extent += max(bhi[b, 0] - blo[b, 0], bhi[b, 2] - blo[b, 2])
            used += 1
    n = np.int64(0)  # typed: a literal 0 would compile the callees twice
    n_old = 0 if force else stats[BLOCKS]
    # With the last list's body pairs at hand, the grid looks only for pairs with a body that
    # moved: two that did not keep their boxes, so the pairs of them that were close still
    # are, and no others (the grid finds every pair whose footprints overlap, whatever the
    # cell size).
    close = np.empty(n_old + max(16, 8 * n_bodies), dtype=np.int64)
    n_close = np.int64(0)
    for x in range(n_old):  # room for all: no call per key
        a = block_key[x] // n_bodies
        b = block_key[x] % n_bodies
        close[n_close] = block_key[x]
        n_close += not (moved[a] | moved[b])
    n_kept = n_close  # ascending, as block_key is
    if used > 1:
        cell = max(extent / used, 1e-3)
        gx0 = math.inf
        gz0 = math.inf
        for b in range(n_bodies):
            if body_vol_start[b + 1] > body_vol_start[b]:
                gx0 = min(gx0, blo[b, 0])
                gz0 = min(gz0, blo[b, 2])
        # Cell ranges per body; large bodies are kept out of the grid.
        ix0 = np.zeros(n_bodies, dtype=np.int64)
        ix1 = np.full(n_bodies, -1, dtype=np.int64)
        iz0 = np.zeros(n_bodies, dtype=np.int64)
        iz1 = np.full(n_bodies, -1, dtype=np.int64)
        # Without the grid every body is "large": tested against every other.
        large = np.full(n_bodies, not use_grid)
        entries = 0
        nz = 1
        for b in range(n_bodies):
            if body_vol_start[b + 1] == body_vol_start[b]:
                continue
            ix0[b] = int((blo[b, 0] - gx0) / cell)
            ix1[b] = int((bhi[b, 0] - gx0) / cell)
            iz0[b] = int((blo[b, 2] - gz0) / cell)
            iz1[b] = int((bhi[b, 2] - gz0) / cell)
            cells = (ix1[b] - ix0[b] + 1) * (iz1[b] - iz0[b] + 1)
            if large[b] or cells > LARGE_CELLS:
                large[b] = True
                continue
            entries += cells
            nz = max(nz, iz1[b] + 1)
        keys = np.empty(entries, dtype=np.int64)
        owner = np.empty(entries, dtype=np.int64)
        e = 0
        for b in range(n_bodies):
            if large[b] or ix1[b] < 0:
                continue
            for ix in range(ix0[b], ix1[b] + 1):
                for iz in range(iz0[b], iz1[b] + 1):
                    keys[e] = ix * nz + iz
                    owner[e] = b
                    e += 1
        order = _stable_order(keys)
        start = 0
        while start < entries:
            key = keys[order[start]]
            end = start
            while end < entries and keys[order[end]] == key:
                end += 1
            for x in range(start, end):
                a = owner[order[x]]
                for y in range(x + 1, end):
                    b = owner[order[y]]
                    if n_old > 0 and not moved[a] and not moved[b]:
                        continue
                    # Report a pair only in the first cell the two share.
                    fx = max(ix0[a], ix0[b])
                    fz = max(iz0[a], iz0[b])
                    if fx * nz + fz != key:
                        continue
                    stats[BODY_TESTS] += 1
                    if _bodies_close(blo, bhi, a, b):
                        close = push_key(close, n_close, min(a, b) * n_bodies + max(a, b))
                        n_close += 1
            start = end
        for a in range(n_bodies):
            if not large[a]:
                continue
            for b in range(n_bodies):
                if b == a or ix1[b] < 0 or (large[b] and b < a):
                    continue
                if n_old > 0 and not moved[a] and not moved[b]:
                    continue
                stats[BODY_TESTS] += 1
                if _bodies_close(blo, bhi, a, b):
                    close = push_key(close, n_close, min(a, b) * n_bodies + max(a, b))
                    n_close += 1
    # Body pairs in a canonical order (by rows), so that the pair list, and with it the
    # Gauss-Seidel order of the contacts, does not depend on when it was built.
    keys = merged_keys(close, n_kept, n_close)
    most = np.int64(0)  # typed: a literal 0 would compile the callees twice
    for b in range(n_bodies):
        most = max(most, body_vol_start[b + 1] - body_vol_start[b])
    near_a = np.empty(most, dtype=np.int64)
    near_b = np.empty(most, dtype=np.int64)
    capacity = pair_vol.shape[0]
    listed = np.empty((capacity, VOL_SLOTS), dtype=np.int32)
    fresh = np.empty(capacity, dtype=np.int64)
    source = np.empty(capacity, dtype=np.int64)  # each listed pair's old row (carry_memory)
    blocks = np.empty(capacity + 1, dtype=np.int64)
    starts = np.empty(capacity + 1, dtype=np.int64)
    old = 0  # the last list's body pairs, walked along
    for x in range(n_close):
        a = keys[x] // n_bodies
        b = keys[x] % n_bodies
        while old < n_old and block_key[old] < keys[x]:
            old += 1
        if x < capacity:
            blocks[x] = keys[x]
            starts[x] = n
        if old < n_old and block_key[old] == keys[x] and not moved[a] and not moved[b]:
            n = copy_run(pair_vol, pair_key, block_start[old], block_start[old + 1], listed,
                         fresh, source, n)
        else:
            first = n
            n = _pair_bodies(a, b, body_vols, body_vol_start, build_lo, build_hi, blo, bhi,
                             vol_group, vol_mask, vol_passive, vol_nodes, linked_keys,
                             linked_bodies, n_bodies, n_nodes, listed, fresh, most, n, stats,
                             near_a, near_b)
            source[first:min(n, capacity)] = UNKNOWN
    if n_close < capacity:
        starts[n_close] = n  # the end of the last body pair's block
    self_base = n_bodies * n_bodies * most * most
    # The last list's self pairs (after its last body pair's block), walked along: a body that
    # did not move keeps the self pairs it had, copied as one run.
    j = block_start[n_old] if n_old > 0 else 0
    j_end = stats[PAIRS] if n_old > 0 else 0
    for b in range(n_bodies):
        s0 = self_start[b]
        s1 = self_start[b + 1]
        if s0 == s1:
            continue
        if n_old > 0 and not moved[b]:
            while j < j_end and pair_key[j] < self_base + s0:
                j += 1
            run = j
            while j < j_end and pair_key[j] < self_base + s1:
                j += 1
            n = copy_run(pair_vol, pair_key, run, j, listed, fresh, source, n)
            continue
        for s in range(s0, s1):
            va = self_pairs[s, 0]
            vb = self_pairs[s, 1]
            stats[VOLUME_TESTS] += 1
            if _overlap(build_lo, build_hi, va, vb):
                if n < capacity:
                    listed[n, VOL_A] = va
                    listed[n, VOL_B] = vb
                    fresh[n] = self_base + s
                    source[n] = UNKNOWN
                n += 1
    stats[BLOCKS] = 0
    if n <= capacity:
        carry_memory(pair_key, fresh, stats[PAIRS], n, pair_seen, source)
        memmove(pair_vol, 0, listed, 0, VOL_SLOTS * n)
        if n_close < capacity:
            # memmove, not a slice copy: that would compile NumPy's shape checks and their
            # string-formatted messages (about 2 s of a first run's compile)
            memmove(block_key, 0, blocks, 0, n_close)
            memmove(block_start, 0, starts, 0, n_close + 1)
            stats[BLOCKS] = n_close
    stats[PAIRS] = n
    return n
