"""Sleeping: bodies at rest stop integrating until a command or a hard contact wakes them.

A body whose nodes all moved less than ``sleep_speed * dt`` in each of the last ``sleep_ticks``
ticks is put to sleep: its nodes get the ASLEEP flag, keep their positions exactly (zero
velocity) and have inverse mass 0 in projections, so what rests on them stays put and pairs of
sleeping bodies are skipped by the broad phase. A sleeping body wakes when any of its nodes is
driven (a control acceleration, a set-point move, a changed velocity or position) or when a
contact penetrates it or strikes it hard (see :mod:`twig.physics.collision.narrow`).
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
def update_sleep(pos, prev, flags, body_start, body_count, body_can_sleep, body_still,
                 max_step, ticks_needed):
    """After the tick: count each body's consecutive still ticks; put it to sleep after
    ``ticks_needed`` of them (every node moved less than ``max_step`` metres per tick)."""
    limit = max_step * max_step
    for b in range(body_start.shape[0]):
        s = body_start[b]
        e = s + body_count[b]
        if e == s or not body_can_sleep[b] or flags[s] & ASLEEP:
            continue
        if body_still[b] >= ticks_needed:
            body_still[b] = 0  # it slept and has been woken since: count afresh
        still = True
        for i in range(s, e):
            dx = pos[i, 0] - prev[i, 0]
            dy = pos[i, 1] - prev[i, 1]
            dz = pos[i, 2] - prev[i, 2]
            if dx * dx + dy * dy + dz * dz > limit or flags[i] & MOVING:
                still = False
                break
        if not still:
            body_still[b] = 0
            continue
        body_still[b] += 1
        if body_still[b] >= ticks_needed:
            for i in range(s, e):
                flags[i] |= ASLEEP
                prev[i, 0] = pos[i, 0]
                prev[i, 1] = pos[i, 1]
                prev[i, 2] = pos[i, 2]
