"""Verlet integration with viscous damping (Horswill 2009, eq. 2; Jakobsen 2001, section 3).

``p' = (2 - d) p - (1 - d) p_prev + a dt^2`` where ``d`` is the node's damping: ``node_damp_air``
in the air, ``node_damp_ground`` while in contact with a static plane. Damping relative to another
node (Horswill VI.A, "a crude model of the biomechanical damping of muscles and tendons") removes
the fraction ``node_damp_rel`` of the node's velocity relative to ``node_damp_ref``.
"""

from __future__ import annotations

import numpy as np

from twig.physics.flags import ASLEEP, DRIVEN, GROUNDED, LOCKED, MOVING
from twig.physics.hot import kernel


@kernel
def integrate_nodes(pos, prev, acc, inv_mass, flags, damp_air, damp_ground, damp_ref, damp_rel,
                    lock_pos, move_target, move_time, hold, gravity, dt, w_out, inert):
    """Advance every node one tick in place and write its effective inverse mass.

    Parameters
    ----------
    pos, prev : (N, 3) float64
        Current and previous positions, metres; both are updated.
    acc : (N, 3) float64
        Acceleration accumulator, m/s^2 (control forces over mass); cleared afterwards.
    inv_mass : (N,) float64
        1/kg; 0 marks a static node that the integrator never moves.
    flags : (N,) uint8
        :mod:`twig.physics.flags` bits; MOVING is cleared when a set-point move arrives.
    damp_air, damp_ground : (N,) float64
        Damping factor ``d`` of eq. 2 per tick, dimensionless in [0, 1].
    damp_ref : (N,) int32
        Node whose velocity this node is damped toward, or -1.
    damp_rel : (N,) float64
        Fraction of the relative velocity removed per tick.
    lock_pos : (N, 3) float64
        Where LOCKED nodes are held, metres.
    move_target : (N, 3) float64
        Target of a set-point move, metres.
    move_time : (N,) float64
        Seconds left in the set-point move; decremented.
    hold : (N, 3) float64
        Displacement static friction set aside last tick to hold a resting contact (m; see
        :func:`~twig.physics.collision.response.contact_friction`): added to a dynamic node's
        step, then cleared for every node.
    gravity : (3,) float64
        m/s^2, added to every dynamic node.
    dt : float
        Tick length, seconds.
    w_out : (N,) float64
        Effective inverse mass for this tick's projections: 0 for static, locked, moving and
        sleeping nodes (they are kinematic or at rest), ``inv_mass`` otherwise.
    inert : (N, 3) float64
        Written: where each node would be after this tick without gravity and constraints (m:
        ``p`` plus the damped ``p - p_prev`` of eq. 2 and the hold; a kinematic node's new
        position; a node at rest where it is), so that friction can tell the slide that gravity
        and the constraints made this tick.
    """
    n = pos.shape[0]
    dt2 = dt * dt
    # Velocities first so that damping toward another node sees that node's old velocity; the
    # copy is made only when some node is damped toward another.
    relative = False
    for i in range(n):
        if damp_ref[i] >= 0:
            relative = True
            break
    vel = pos - prev if relative else np.empty((0, 3))
    for i in range(n):
        f = flags[i] & ~DRIVEN
        if f & MOVING or acc[i, 0] != 0.0 or acc[i, 1] != 0.0 or acc[i, 2] != 0.0:
            f |= DRIVEN
        flags[i] = f
        if f & LOCKED:
            for c in range(3):
                prev[i, c] = lock_pos[i, c]
                pos[i, c] = lock_pos[i, c]
                inert[i, c] = lock_pos[i, c]
            w_out[i] = 0.0
        elif f & MOVING:
            left = move_time[i]
            # The tolerance absorbs the rounding of repeated dt subtractions.
            frac = 1.0 if left <= dt * (1.0 + 1e-9) else dt / left
            for c in range(3):
                prev[i, c] = pos[i, c]
                pos[i, c] += (move_target[i, c] - pos[i, c]) * frac
            if frac >= 1.0:
                # Arrived: come to rest at the target and hand the node back to the dynamics.
                flags[i] = f & ~MOVING
                move_time[i] = 0.0
                for c in range(3):
                    prev[i, c] = pos[i, c]
            else:
                move_time[i] = left - dt
            for c in range(3):
                inert[i, c] = pos[i, c]
            w_out[i] = 0.0
        elif inv_mass[i] == 0.0 or f & ASLEEP:
            for c in range(3):
                prev[i, c] = pos[i, c]
                inert[i, c] = pos[i, c]
            w_out[i] = 0.0
        else:
            d = damp_ground[i] if f & GROUNDED else damp_air[i]
            r = damp_ref[i]
            k = damp_rel[i]
            for c in range(3):
                v = (pos[i, c] - prev[i, c]) * (1.0 - d)
                if r >= 0:
                    v -= k * (vel[i, c] - vel[r, c])
                p = pos[i, c]
                free = p + v + hold[i, c]
                pos[i, c] = free + (acc[i, c] + gravity[c]) * dt2
                prev[i, c] = p
                inert[i, c] = free
            w_out[i] = inv_mass[i]
    acc[:, :] = 0.0
    hold[:, :] = 0.0
