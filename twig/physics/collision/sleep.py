"""Sleeping: bodies at rest stop integrating until a command or a hard contact wakes them.

A body is put to sleep after ``sleep_ticks`` ticks in which none of its nodes drifted more than
``sleep_speed * sleep_seconds`` from where it was when the count began, nor moved faster than
``sleep_jitter`` in any one tick. A viewer sees where a node goes more than how it trembles on
the way: a hand quivering a millimetre each way, 5 cm/s from tick to tick, is at rest; one
sliding 4 cm/s down a pile is not. (Counting only ticks in which every node moved slower than
``sleep_speed``, the rule before, such quivering kept 92 % of a 100-doll pile awake at 4 s;
83-86 % are now; see docs/performance.md, thirteenth pass.) The net motion allowed is the
same as before; what can be frozen now that was not is a swing of up to ~1.5 cm either way at
about 1 Hz (10 cm/s at its fastest), where before it was ~0.5 cm.

Asleep, a body's nodes get the ASLEEP flag, keep their positions exactly (zero velocity) and
have inverse mass 0 in projections, so what rests on them stays put and pairs of sleeping
bodies are skipped by the broad phase. A sleeping body wakes when any of its nodes is driven (a
control acceleration, a set-point move, a changed velocity or position) or when a contact
penetrates it or strikes it hard (see :mod:`twig.physics.collision.narrow`).
"""

from __future__ import annotations

from twig.physics.flags import ASLEEP, LOCKED, MOVING
from twig.physics.hot import kernel


@kernel
def wake_body(row, flags, w, inv_mass, body_start, body_count):
    """Clear ASLEEP on body ``row``'s nodes and give them back their inverse mass for this
    tick's projections (LOCKED and MOVING nodes stay kinematic)."""
    for i in range(body_start[row], body_start[row] + body_count[row]):
        f = flags[i] & ~ASLEEP
        flags[i] = f
        w[i] = 0.0 if f & (LOCKED | MOVING) else inv_mass[i]


@kernel
def wake_driven(pos, prev, acc, flags, body_start, body_count):
    """Before integration: wake sleeping bodies that a command touched since the last tick."""
    for b in range(body_start.shape[0]):
        s = body_start[b]
        e = s + body_count[b]
        if e == s or not flags[s] & ASLEEP:
            continue
        driven = False
        for i in range(s, e):
            if (flags[i] & MOVING or acc[i, 0] != 0.0 or acc[i, 1] != 0.0 or acc[i, 2] != 0.0
                    or pos[i, 0] != prev[i, 0] or pos[i, 1] != prev[i, 1]
                    or pos[i, 2] != prev[i, 2]):
                driven = True
                break
        if driven:
            for i in range(s, e):
                flags[i] &= ~ASLEEP


@kernel
def update_sleep(pos, prev, rest_anchor, flags, body_start, body_count, body_can_sleep,
                 body_still, drift, max_step, ticks_needed):
    """After the tick: count each body's consecutive ticks at rest and put it to sleep after
    ``ticks_needed`` of them.

    At rest means every node is within ``drift`` metres of ``rest_anchor`` ((N, 3), where it was
    when the count began; written here) and moved at most ``max_step`` metres this tick, and no
    node is in a set-point move.
    """
    drift2 = drift * drift
    step2 = max_step * max_step
    for b in range(body_start.shape[0]):
        s = body_start[b]
        e = s + body_count[b]
        if e == s or not body_can_sleep[b] or flags[s] & ASLEEP:
            continue
        if body_still[b] >= ticks_needed:
            body_still[b] = 0  # it slept and has been woken since: count afresh
        fresh = body_still[b] == 0
        still = True
        for i in range(s, e):
            dx = pos[i, 0] - prev[i, 0]
            dy = pos[i, 1] - prev[i, 1]
            dz = pos[i, 2] - prev[i, 2]
            ax = pos[i, 0] - rest_anchor[i, 0]
            ay = pos[i, 1] - rest_anchor[i, 1]
            az = pos[i, 2] - rest_anchor[i, 2]
            if (dx * dx + dy * dy + dz * dz > step2 or flags[i] & MOVING
                    or (not fresh and ax * ax + ay * ay + az * az > drift2)):
                still = False
                break
        if not still:
            body_still[b] = 0  # the next tick begins the count afresh
            continue
        if fresh:  # the count begins here
            for i in range(s, e):
                rest_anchor[i, 0] = pos[i, 0]
                rest_anchor[i, 1] = pos[i, 1]
                rest_anchor[i, 2] = pos[i, 2]
        body_still[b] += 1
        if body_still[b] >= ticks_needed:
            for i in range(s, e):
                flags[i] |= ASLEEP
                prev[i, 0] = pos[i, 0]
                prev[i, 1] = pos[i, 1]
                prev[i, 2] = pos[i, 2]
