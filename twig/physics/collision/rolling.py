"""Rolling: a free sphere (the ball) spins as well as slides, on the ground and on bodies.

A ball is one node, and a node only translates: with the planes' sliding friction alone
(:func:`~twig.physics.tick.apply_friction`, Jakobsen section 6) a ball sent along the ground
at 4 m/s stopped within 0.33 m, as a block would. Here each rolling sphere also carries an
angular velocity ``omega`` (rad/s, the volumes' ``spin`` column), and its plane contact is
the contact point's, which moves by ``u = d_t - r dt (omega x n)`` in a tick (``d_t`` the
centre's tangential displacement, ``n`` the plane's normal, ``r`` the radius).

Friction at that point is an impulse ``J`` against ``u``. It changes the centre's displacement
by ``J dt / m`` and, through the torque ``r n x J``, the point's spin displacement by
``J dt / (k m)``, for a moment of inertia ``I = k m r^2`` (``k`` = 2/3 for a hollow ball, 2/5
for a solid one). So the slip ``u`` is cancelled by a change ``-u k / (1 + k)`` of the centre's
displacement and ``-u / (1 + k)`` of the spin's: a sphere launched without spin ends up
rolling at ``1 / (1 + k)`` of its speed (3/5 for a hollow ball), and down a slope it rolls
with the acceleration ``g sin(theta) / (1 + k)``. Coulomb bounds the centre's change by ``mu``
times the plane's push this tick, as for any node (the push is the normal velocity change
times dt); beyond it the sphere slides, and its spin still gains ``1 / k`` times what the
centre lost. A rolling sphere also meets rolling resistance: its displacement along the
plane shrinks by ``c_rr`` times the push (a deceleration ``c_rr g`` on level ground), the spin
following so that it keeps rolling; its spin about the normal, which makes no slip, slows by
as much at its rim (pivot friction, ``c_rr g / r`` in rad/s^2).

Against another body's capsules and spheres (a beam, a lying doll, another ball) the same
holds through :func:`~twig.physics.collision.response.contact_friction`: the slip is the
contact points' relative slide with each rolling side's spin added, and a rolling side lends
the tangential push ``1 / k`` more inverse mass, through its spin. Against boxes a ball's spin
is neither used nor changed (its friction there is a node's).
"""

from __future__ import annotations

import math

from twig.physics.flags import ASLEEP
from twig.physics.hot import hot_inline, kernel


@hot_inline
def spin_slide(vol_radius, vol_spin, v, nx, ny, nz, side, dt):
    """Displacement (m) this tick of rolling sphere ``v``'s contact point, from its spin alone:
    the point lies at ``-side r n`` from the centre (``side`` 1: ``n`` points from the contact
    to the centre, as a plane's normal does; -1: the other way), so it moves by
    ``-side r dt (omega x n)``."""
    f = -side * vol_radius[v] * dt
    ox = vol_spin[v, 0]
    oy = vol_spin[v, 1]
    oz = vol_spin[v, 2]
    return f * (oy * nz - oz * ny), f * (oz * nx - ox * nz), f * (ox * ny - oy * nx)


@hot_inline
def add_spin_slide(vol_radius, vol_spin, v, nx, ny, nz, side, dt, sx, sy, sz):
    """Change the spin of rolling sphere ``v`` so that its contact point (see
    :func:`spin_slide`) moves by ``s`` more a tick; ``s`` must be perpendicular to ``n``:
    ``omega += side (s x n) / (r dt)``."""
    f = side / (vol_radius[v] * dt)
    vol_spin[v, 0] += (sy * nz - sz * ny) * f
    vol_spin[v, 1] += (sz * nx - sx * nz) * f
    vol_spin[v, 2] += (sx * ny - sy * nx) * f


@kernel
def roll_spheres(pos, prev, w, flags, depth, contact_normal, contact_friction, rollers,
                 vol_nodes, vol_radius, vol_inertia, vol_rolling, vol_spin, dt):
    """Rolling friction for the ``rollers`` (volume indices of free spheres) that touched a
    plane this tick, once per tick after the relaxation and before the nodes' plane friction.

    ``depth`` (m) is each node's plane push this tick, ``contact_normal`` and
    ``contact_friction`` the last plane's normal and ``mu``; ``vol_inertia`` is ``k`` in
    ``I = k m r^2`` and ``vol_rolling`` the rolling resistance coefficient. Moves the centre
    (positions, as plane friction does), updates ``vol_spin`` (rad/s) and zeroes the node's
    ``contact_friction`` so that the sliding friction that follows leaves it alone. A sphere
    in the air keeps its spin; a sleeping one has none.
    """
    for x in range(rollers.shape[0]):
        v = rollers[x]
        i = vol_nodes[v, 0]
        dp = depth[i]
        if flags[i] & ASLEEP:
            # At rest (see collision.sleep): a spin about the normal left when it fell asleep
            # stops with it, so that waking does not set it going.
            vol_spin[v, 0] = 0.0
            vol_spin[v, 1] = 0.0
            vol_spin[v, 2] = 0.0
            continue
        if w[i] == 0.0 or dp <= 0.0:
            continue
        r = vol_radius[v]
        k = vol_inertia[v]
        nx = contact_normal[i, 0]
        ny = contact_normal[i, 1]
        nz = contact_normal[i, 2]
        dx = pos[i, 0] - prev[i, 0]
        dy = pos[i, 1] - prev[i, 1]
        dz = pos[i, 2] - prev[i, 2]
        dn = dx * nx + dy * ny + dz * nz
        tx = dx - dn * nx
        ty = dy - dn * ny
        tz = dz - dn * nz
        on = vol_spin[v, 0] * nx + vol_spin[v, 1] * ny + vol_spin[v, 2] * nz  # makes no slip
        sx, sy, sz = spin_slide(vol_radius, vol_spin, v, nx, ny, nz, 1.0, dt)
        ux = tx + sx
        uy = ty + sy
        uz = tz + sz
        ul = math.sqrt(ux * ux + uy * uy + uz * uz)
        budget = contact_friction[i] * dp
        share = k / (1.0 + k)
        rolling = ul * share <= budget
        # The centre's change along -u: all of its share of the slip, or the Coulomb bound.
        cut = share if rolling else budget / ul
        tx -= cut * ux
        ty -= cut * uy
        tz -= cut * uz
        if rolling:
            tl = math.sqrt(tx * tx + ty * ty + tz * tz)
            if tl > 0.0:
                keep = 1.0 - min(tl, vol_rolling[v] * dp) / tl
                tx *= keep
                ty *= keep
                tz *= keep
            sx = -tx
            sy = -ty
            sz = -tz
        else:
            sx -= cut * ux / k
            sy -= cut * uy / k
            sz -= cut * uz / k
        # Pivot friction: the spin about the normal meets the rolling resistance too.
        on = math.copysign(max(0.0, abs(on) - vol_rolling[v] * dp / (r * dt)), on)
        pos[i, 0] = prev[i, 0] + dn * nx + tx
        pos[i, 1] = prev[i, 1] + dn * ny + ty
        pos[i, 2] = prev[i, 2] + dn * nz + tz
        # The spin that moves the contact point by s, and its part along n.
        vol_spin[v, 0] = on * nx
        vol_spin[v, 1] = on * ny
        vol_spin[v, 2] = on * nz
        add_spin_slide(vol_radius, vol_spin, v, nx, ny, nz, 1.0, dt, sx, sy, sz)
        contact_friction[i] = 0.0
