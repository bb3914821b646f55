"""The physics part of one tick as a single compiled call: integrate, project, friction.

Keeping the whole physics tick in one Numba call keeps Python overhead per ``world.step()`` to one
dispatch (the benchmark's 20 microsecond budget for one stick figure counts it).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from twig.physics.constraints import relax
from twig.physics.flags import GROUNDED
from twig.physics.integrate import integrate_nodes


@njit(cache=True)
def apply_friction(pos, prev, w, flags, depth, contact_normal, contact_friction):
    """Jakobsen 2001, section 6 (handling friction), once per tick after the relaxation.

    A node pushed out of a plane by a total depth ``dp`` this tick has its tangential displacement
    ``t`` (this tick's velocity times dt) shortened by ``mu * dp``, never reversed: ``|t| -> max(0,
    |t| - mu dp)``. Since ``dp`` is the normal velocity change times dt, this is Coulomb friction.
    Also sets the GROUNDED flag that selects ground damping next tick.
    """
    for i in range(pos.shape[0]):
        dp = depth[i]
        if dp <= 0.0:
            flags[i] &= ~GROUNDED
            continue
        flags[i] |= GROUNDED
        if w[i] == 0.0:
            continue
        vx = pos[i, 0] - prev[i, 0]
        vy = pos[i, 1] - prev[i, 1]
        vz = pos[i, 2] - prev[i, 2]
        nx = contact_normal[i, 0]
        ny = contact_normal[i, 1]
        nz = contact_normal[i, 2]
        vn = vx * nx + vy * ny + vz * nz
        tx = vx - vn * nx
        ty = vy - vn * ny
        tz = vz - vn * nz
        tl = math.sqrt(tx * tx + ty * ty + tz * tz)
        if tl == 0.0:
            continue
        cut = min(tl, contact_friction[i] * dp) / tl
        pos[i, 0] -= tx * cut
        pos[i, 1] -= ty * cut
        pos[i, 2] -= tz * cut


@njit(cache=True)
def physics_tick(pos, prev, acc, inv_mass, flags, damp_air, damp_ground, damp_ref, damp_rel,
                 radius, lock_pos, move_target, move_time, link_nodes, link_min, link_max,
                 link_stiffness, n_exact, hinge_nodes, angle_nodes, angle_cos,
                 plane_normal, plane_offset, plane_friction, gravity, dt, iterations):
    """One physics tick in place: eq. 2 integration, K projection iterations, friction.

    Array arguments are the world's columns (see :class:`twig.physics.world.PhysicsWorld` for
    shapes and units), the link columns permuted into solver order with the ``n_exact``
    exactly solved links first (the rest use the square-root approximation). Returns the
    effective inverse masses used, (N,) float64.
    """
    n = pos.shape[0]
    w = np.empty(n)
    integrate_nodes(pos, prev, acc, inv_mass, flags, damp_air, damp_ground, damp_ref, damp_rel,
                    lock_pos, move_target, move_time, gravity, dt, w)
    depth = np.zeros(n)
    contact_normal = np.zeros((n, 3))
    contact_friction = np.zeros(n)
    relax(pos, w, radius, flags, lock_pos, link_nodes, link_min, link_max, link_stiffness,
          n_exact, hinge_nodes, angle_nodes, angle_cos, plane_normal, plane_offset,
          plane_friction, iterations, depth, contact_normal, contact_friction)
    apply_friction(pos, prev, w, flags, depth, contact_normal, contact_friction)
    return w
