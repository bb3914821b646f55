"""Narrow phase: find each candidate pair's contact and project it away, every iteration.

Capsule-capsule (spheres are capsules of zero length), capsule-box and box-box pairs, boxes
against the static planes, and a swept test that keeps fast spheres from tunnelling. Called inside
the relaxation loop (Horswill 2009, section VI.D: "collisions are handled as a special case of
constraint satisfaction"); the first iteration also records each contact's impact energy
(section VI.E) and wakes sleeping bodies that are hit.
"""

from __future__ import annotations

import math

import numpy as np

from twig.physics.collision.box_pairs import box_box, box_frame, capsule_box
from twig.physics.collision.capsules import (
    box_separation,
    capsule_contact,
    capsule_repeats,
    distance_at,
    drift,
    remember_at,
    segment_params,
    still_apart,
)
from twig.physics.collision.geometry import (
    closest_params_segments,
    segment_box,
)
from twig.physics.collision.pair_table import (
    ALLOWED,
    CANDIDATE_SEEN,
    DEPTH,
    DISTANCE,
    ENERGY,
    GAP,
    LARGEST,
    MOVE_A,
    MOVE_B,
    MU,
    N0,
    N1,
    NODES_A,
    NODES_B,
    PUSH,
    RIGID_A,
    RIGID_B,
    SEEN,
    SEPARATED,
    SIDE_NODES,
    VOL_A,
    VOL_B,
)
from twig.physics.flags import ASLEEP
from twig.physics.hot import hot_kernel, kernel

CAPSULE = 0
"""Volume kind: a capsule on nodes 0-1 (a sphere when both are the same node)."""
BOX = 1
"""Volume kind: an oriented box whose frame is an affine function of its 4 nodes."""

ACTIVE_GAP = 0.01
"""Pairs farther apart than this (m) at the first iteration skip the remaining iterations."""
REMEMBERED = 4
"""Slot of the broad phase's ``stats`` (``broad.find_pairs``) where the first sweep counts the
candidates it decided from memory, unmeasured."""
REVERSED = 1
"""The relaxation iterations whose index has this parity take box corners in reverse order.

A corner pushed out of a plane or a box turns the rigid frame a little, toward the corners
pushed after it. In one order every iteration of every tick, a 30 kg cube on the 20 kg table
rocked and walked off it in 10 s, and 10-60 kg cubes rested at 5 of 12 placements on the
table (median drift 6 cm in 4 s); alternating the order, at 10 of 12 (the rest, 60 kg,
creep 2-3 cm). Capsules are unaffected."""
REPEATS = 8
"""In the first iteration, a pair still penetrating after its projection is projected again,
up to this many times (the contact point moves as the volumes turn), so one sweep leaves no
deep overlap; later iterations project each pair once."""
REPEAT_DEPTH = 2e-3
"""Penetration (m) below which a pair's projection is not repeated: the three later sweeps
project what is left. At 1 mm a resting contact, which gravity sinks up to 2.7 mm a tick, was
measured again after almost every first push; at 2 mm the settled 100-doll pile's tick is ~1.9 %
shorter, its summed overlap the same within the piles' spread (docs/performance.md, thirteenth
pass). At 3 mm a small doll under a sleeping brick crept out from under it and never slept."""


@hot_kernel
def activate_pair(vol_kind, vol_nodes, vol_friction, vol_passive, pair_vol, q, row, pair_i,
                  pair_b, pair_f, depenetration):
    """Set up contact row ``row`` for candidate ``q`` this tick (rows are set up only for the
    candidates the first sweep finds close, one after another: a pile has 10^5 candidates
    and a row has PAIR_SLOTS numbers); ``depenetration`` (m) is how far the pair may be pushed
    apart in one tick beyond undoing its approach."""
    va = pair_vol[q, VOL_A]
    vb = pair_vol[q, VOL_B]
    for k in range(SIDE_NODES):
        pair_i[row, NODES_A + k] = vol_nodes[va, k]
        pair_i[row, NODES_B + k] = vol_nodes[vb, k]
    # Only what is read before it is written.
    pair_f[row, GAP] = math.inf
    pair_f[row, DEPTH] = 0.0
    pair_f[row, ENERGY] = 0.0
    pair_f[row, PUSH] = 0.0
    pair_f[row, MU] = math.sqrt(vol_friction[va] * vol_friction[vb])
    pair_b[row, MOVE_A] = not vol_passive[va]
    pair_b[row, MOVE_B] = not vol_passive[vb]
    pair_b[row, RIGID_A] = vol_kind[va] == BOX
    pair_b[row, RIGID_B] = vol_kind[vb] == BOX
    pair_f[row, ALLOWED] = depenetration
    pair_f[row, SEPARATED] = 0.0


@kernel
def _project_pair(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes, vol_radius,
                  vol_coef, box_c, box_u, box_h, pair_vol, pair_i, pair_b, pair_f, q, row, first,
                  dt, node_row, body_start, body_count, reverse):
    """Project candidate ``q``, a pair with a box, in contact row ``row`` (capsule pairs:
    :func:`~twig.physics.collision.capsules.capsule_repeats`); in the first iteration a pair
    still penetrating is projected again, up to REPEATS times (the contact point moves as the
    volumes turn), so one sweep leaves no deep overlap. Two boxes take their corners in
    reverse order with ``reverse``, and the repeats alternate the order."""
    va = pair_vol[q, VOL_A]
    vb = pair_vol[q, VOL_B]
    ka = vol_kind[va]
    kb = vol_kind[vb]
    for rep in range(REPEATS if first else 1):
        once = first and rep == 0
        pair_f[row, LARGEST] = 0.0
        if ka == CAPSULE:
            depth = capsule_box(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes,
                                vol_radius, vol_coef, va, vb, True, box_c, box_u, box_h, pair_i,
                                pair_b, pair_f, row, once, dt, node_row, body_start, body_count)
        elif kb == CAPSULE:
            depth = capsule_box(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_radius,
                                vol_coef, vb, va, False, box_c, box_u, box_h, pair_i, pair_b,
                                pair_f, row, once, dt, node_row, body_start, body_count)
        else:
            depth = box_box(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_coef, va,
                            vb, box_c, box_u, box_h, pair_i, pair_b, pair_f, row, once, dt,
                            node_row, body_start, body_count, reverse != (rep % 2 == 1))
        pair_f[row, SEPARATED] += pair_f[row, LARGEST]
        if depth <= REPEAT_DEPTH:
            break


@kernel
def first_sweep(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes, vol_radius,
                vol_coef, vol_friction, vol_passive, box_c, box_u, box_h, boxes, pair_vol,
                n_pairs, pair_seen, pair_i, pair_b, pair_f, active, depenetration, dt, node_row,
                body_start, body_count, stats):
    """The first projection sweep over the broad phase's ``n_pairs`` candidates.

    Pairs of two sleeping bodies are skipped. Capsule pairs are measured first and only those
    within ACTIVE_GAP get a contact row (see :func:`_first_capsules`); a pair with a box gets
    one and is projected. Every pair that gets a row and is no farther apart than ACTIVE_GAP
    is active: its contact row is the next one (rows ``0 .. n_active - 1``, in candidate
    order) and ``active[row]`` ((P,) int64) its candidate. The later iterations, friction and
    the contact listing walk only those rows, packed together so that they stream through the
    cache (a pile of 1000 rag dolls has ~17 000 of them among ~87 000 candidates). Returns how
    many there are.

    Runs of capsule pairs go to a kernel compiled without reference counting; only pairs with
    a box, whose tests allocate, are handled here (see :mod:`twig.physics.hot`). Counts the
    candidates decided from memory in ``stats[REMEMBERED]`` (the broad phase's statistics).
    ``boxes`` is None in a world without boxes: this kernel is then compiled without the box
    tests (see :func:`~twig.physics.tick.array_args`).
    """
    n_active = np.int64(0)  # typed: a literal 0 would compile the callees twice
    remembered = np.int64(0)
    q = np.int64(0)
    while q < n_pairs:
        q, n_active, remembered = _first_capsules(pos, prev, w, inv_mass, flags, ground_normal,
                                                  vol_kind, vol_nodes, vol_radius, vol_friction,
                                                  vol_passive, pair_vol, q, n_pairs, pair_seen,
                                                  pair_i, pair_b, pair_f, active, n_active,
                                                  remembered, depenetration, dt, node_row,
                                                  body_start, body_count)
        if q == n_pairs:
            break
        if boxes is None:  # compiled for a world without boxes: never reached
            break
        row = n_active  # a pair with a box fills it before it is known to be active
        activate_pair(vol_kind, vol_nodes, vol_friction, vol_passive, pair_vol, q, row, pair_i,
                      pair_b, pair_f, depenetration)
        _project_pair(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes, vol_radius,
                      vol_coef, box_c, box_u, box_h, pair_vol, pair_i, pair_b, pair_f, q, row, True,
                      dt, node_row, body_start, body_count, False)
        if pair_f[row, GAP] <= ACTIVE_GAP:
            active[row] = q
            n_active += 1
        q += 1
    stats[REMEMBERED] = remembered
    return n_active


SKIP = 0
"""A pair both of whose bodies sleep (see :func:`_pair_case`)."""
CAPSULES = 1
"""A pair of two capsules, awake."""
WITH_BOX = 2
"""A pair with a box, awake."""


@hot_kernel
def _pair_case(flags, vol_kind, vol_nodes, va, vb):
    """SKIP, CAPSULES or WITH_BOX for volumes ``va`` and ``vb`` (a body's first node carries
    its sleep flag)."""
    if flags[vol_nodes[va, 0]] & ASLEEP and flags[vol_nodes[vb, 0]] & ASLEEP:
        return SKIP
    return CAPSULES if vol_kind[va] == CAPSULE and vol_kind[vb] == CAPSULE else WITH_BOX


@hot_kernel
def _first_capsules(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes, vol_radius,
                    vol_friction, vol_passive, pair_vol, start, n_pairs, pair_seen, pair_i, pair_b,
                    pair_f, active, n_active, remembered, depenetration, dt, node_row, body_start,
                    body_count):
    """:func:`first_sweep` from candidate ``start`` on, up to the first awake pair with a box:
    returns that candidate (``n_pairs`` if none), the active count so far and the count of
    candidates decided from memory so far (``remembered`` on entry).

    A capsule pair is measured with the cheapest test that decides: the distance remembered
    in ``pair_seen`` ((P, CANDIDATE_SLOTS), kept between ticks: candidate ``q`` is row ``q``,
    moved with it when the list is rebuilt) less how far the four nodes have moved since,
    then the gap of the segments' boxes, then the exact gap (1 nm of slack covers the exact
    test's rounding). Lying bodies creep by micrometres a tick, so a pair found 15 mm apart
    is not measured again for hundreds of ticks. Memory of another pair does no harm: the
    bound holds for any two segments (see ``capsules.drift``), and a row of zeros decides
    nothing. A pair found within ACTIVE_GAP gets the next contact row, projected at once if
    it overlaps (from the closest points just found).
    """
    for q in range(start, n_pairs):
        va = pair_vol[q, VOL_A]
        vb = pair_vol[q, VOL_B]
        case = _pair_case(flags, vol_kind, vol_nodes, va, vb)
        if case == WITH_BOX:
            return q, n_active, remembered
        if case == SKIP:
            continue
        a0 = vol_nodes[va, 0]
        a1 = vol_nodes[va, 1]
        b0 = vol_nodes[vb, 0]
        b1 = vol_nodes[vb, 1]
        ra = vol_radius[va]
        rb = vol_radius[vb]
        reach = ra + rb + ACTIVE_GAP + 1e-9
        if pair_seen[q, CANDIDATE_SEEN + DISTANCE] - drift(pos, pair_seen, q, CANDIDATE_SEEN,
                                                           a0, a1, b0, b1) > reach:
            remembered += 1
            continue
        sep = box_separation(pos, a0, a1, b0, b1)
        if sep > reach:
            remember_at(pos, pair_seen, q, CANDIDATE_SEEN, a0, a1, b0, b1, sep)
            continue
        s, t = segment_params(pos, a0, a1, b0, b1)
        d = distance_at(pos, a0, a1, b0, b1, s, t)
        gap = d - ra - rb
        if gap > ACTIVE_GAP:
            remember_at(pos, pair_seen, q, CANDIDATE_SEEN, a0, a1, b0, b1, d)
            continue
        row = n_active
        activate_pair(vol_kind, vol_nodes, vol_friction, vol_passive, pair_vol, q, row, pair_i,
                      pair_b, pair_f, depenetration)
        pair_f[row, GAP] = gap
        active[row] = q
        n_active += 1
        if gap >= 0.0:
            remember_at(pos, pair_f, row, SEEN, a0, a1, b0, b1, gap)
        else:
            capsule_repeats(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_b, pair_f,
                            row, ra, rb, s, t, REPEATS, REPEAT_DEPTH, dt, node_row, body_start,
                            body_count)
    return n_pairs, n_active, remembered


@kernel
def resolve_active(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes, vol_radius,
                   vol_coef, box_c, box_u, box_h, boxes, pair_vol, pair_i, pair_b, pair_f, active,
                   n_active, dt, node_row, body_start, body_count, reverse):
    """A later projection sweep: each of the first sweep's ``n_active`` contact rows once
    (pairs of two sleeping bodies skipped; two boxes with their corners in reverse order
    with ``reverse``). Runs of capsule rows go to :func:`_resolve_capsules`, compiled without
    reference counting; ``boxes`` None: compiled without the box tests."""
    row = np.int64(0)  # typed: a literal 0 would compile the callees twice
    while row < n_active:
        row = _resolve_capsules(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes,
                                vol_radius, pair_vol, pair_i, pair_b, pair_f, active, row, n_active,
                                dt, node_row, body_start, body_count)
        if row == n_active:
            break
        if boxes is None:  # compiled for a world without boxes: never reached
            break
        _project_pair(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes,
                      vol_radius, vol_coef, box_c, box_u, box_h, pair_vol, pair_i, pair_b, pair_f,
                      active[row], row, False, dt, node_row, body_start, body_count, reverse)
        row += 1


@hot_kernel
def _resolve_capsules(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes, vol_radius,
                      pair_vol, pair_i, pair_b, pair_f, active, start, n_active, dt, node_row,
                      body_start, body_count):
    """:func:`resolve_active` from contact row ``start`` on, up to the first awake row with a
    box, which it returns (``n_active`` if none). A capsule row still apart
    (``capsules.still_apart``) is not measured again."""
    for row in range(start, n_active):
        q = active[row]
        va = pair_vol[q, VOL_A]
        vb = pair_vol[q, VOL_B]
        case = _pair_case(flags, vol_kind, vol_nodes, va, vb)
        if case == WITH_BOX:
            return row
        if case == CAPSULES and not still_apart(pos, pair_i, pair_f, row):
            s, t = segment_params(pos, pair_i[row, NODES_A + N0], pair_i[row, NODES_A + N1],
                                  pair_i[row, NODES_B + N0], pair_i[row, NODES_B + N1])
            capsule_contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_b, pair_f,
                            row, vol_radius[va], vol_radius[vb], s, t, False, dt, node_row,
                            body_start, body_count)
    return n_active


@kernel
def _distance_to(pos, vol_kind, vol_nodes, vol_radius, box_c, box_u, box_h, boxes, v, px, py,
                 pz):
    """Signed distance (m) from point ``p`` to the surface of volume ``v``, and the unit
    direction from the volume to the point (``boxes`` None: compiled for capsules only)."""
    if vol_kind[v] == CAPSULE:
        a = vol_nodes[v, 0]
        b = vol_nodes[v, 1]
        s, _ = closest_params_segments(pos[a, 0], pos[a, 1], pos[a, 2], pos[b, 0], pos[b, 1],
                                       pos[b, 2], px, py, pz, px, py, pz)
        dx = px - (pos[a, 0] + s * (pos[b, 0] - pos[a, 0]))
        dy = py - (pos[a, 1] + s * (pos[b, 1] - pos[a, 1]))
        dz = pz - (pos[a, 2] + s * (pos[b, 2] - pos[a, 2]))
        d = math.sqrt(dx * dx + dy * dy + dz * dz)
        if d <= 1e-12:
            return -vol_radius[v], 0.0, 1.0, 0.0
        return d - vol_radius[v], dx / d, dy / d, dz / d
    if boxes is None:  # compiled for a world without boxes: never reached
        return math.inf, 0.0, 1.0, 0.0
    dist, _, _, _, _, nx, ny, nz = segment_box(px, py, pz, px, py, pz, box_c, box_u, box_h, v,
                                               0.0, 0.0, 0.0)
    return dist, nx, ny, nz


@kernel
def sweep_spheres(pos, prev, inv_mass, vol_kind, vol_nodes, vol_radius, vol_coef, box_c, box_u,
                  box_h, boxes, pair_vol, n_pairs):
    """Keep fast spheres from passing through thin volumes (continuous collision).

    A sphere that moved more than its radius this tick is swept from its previous position by
    conservative advancement against each candidate volume. At the first time of impact it is
    put back on the path, at most half its radius past the surface, so that the contact is
    still seen, and resolved with its impact energy and momentum exchange, by the ordinary
    projection of this tick. ``boxes`` None: compiled for a world without boxes.
    """
    for q in range(n_pairs):
        for side in range(2):
            vs = pair_vol[q, VOL_A + side]
            vo = pair_vol[q, VOL_B - side]
            i = vol_nodes[vs, 0]
            if vol_kind[vs] != CAPSULE or vol_nodes[vs, 1] != i or inv_mass[i] == 0.0:
                continue
            dx = pos[i, 0] - prev[i, 0]
            dy = pos[i, 1] - prev[i, 1]
            dz = pos[i, 2] - prev[i, 2]
            dl = math.sqrt(dx * dx + dy * dy + dz * dz)
            r = vol_radius[vs]
            if dl <= r:
                continue
            if vol_kind[vo] == BOX:
                box_frame(pos, vol_nodes, vol_coef, vo, box_c, box_u, box_h)
            t = 0.0
            hit = False
            for _ in range(32):
                g, _, _, _ = _distance_to(pos, vol_kind, vol_nodes, vol_radius, box_c, box_u,
                                          box_h, boxes, vo, prev[i, 0] + t * dx,
                                          prev[i, 1] + t * dy, prev[i, 2] + t * dz)
                g -= r
                if g < 1e-4:
                    hit = g > -r  # a sphere that started inside is the discrete test's job
                    break
                t += g / dl
                if t >= 1.0:
                    break
            if not hit:
                continue
            t = min(1.0, t + 0.5 * r / dl)
            pos[i, 0] = prev[i, 0] + t * dx
            pos[i, 1] = prev[i, 1] + t * dy
            pos[i, 2] = prev[i, 2] + t * dz
