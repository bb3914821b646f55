"""One contact's projection: record it in its pair row, measure its impact, wake what it hits,
and push the two sides apart (Horswill 2009, sections VI.D-E; Jakobsen 2001, section 6).

Every narrow-phase test (capsule pairs, :mod:`~twig.physics.collision.box_pairs`) ends here once
it has found a penetration and set the row's COEF slots.
"""

from __future__ import annotations

from twig.physics.collision.pair_table import (
    ALLOWED,
    COEF_A,
    COEF_B,
    DEPTH,
    ENERGY,
    LARGEST,
    MOVE_A,
    MOVE_B,
    N0,
    N1,
    N2,
    N3,
    NODES_A,
    NODES_B,
    NORMAL,
    POINT,
    PUSH,
    RIGID_A,
    RIGID_B,
    SEPARATED,
    SIDE_NODES,
    X,
    Y,
    Z,
)
from twig.physics.collision.response import (
    NOT_HELD,
    SELF_APPROACH,
    WAKE_DEPTH,
    WAKE_SPEED,
    hold_static,
    point_velocity,
    push_apart,
    side_inverse_mass,
)
from twig.physics.collision.sleep import wake_body
from twig.physics.flags import ASLEEP, MOVING
from twig.physics.hot import hot_kernel, inline_kernel

KINEMATIC_APPROACH = 2.0
"""Fastest (m/s) a box is shoved by something immovable (a stepping foot, a driven hand)."""


@hot_kernel
def set_capsule_coefs(t, pair_f, q, slot):
    """Store the affine coefficients of the point at parameter ``t`` of a capsule's core
    segment in ``pair_f[q, slot:]`` (``slot``: COEF_A or COEF_B; a capsule's nodes are the
    side's first two)."""
    pair_f[q, slot + N0] = 1.0 - t
    pair_f[q, slot + N1] = t
    pair_f[q, slot + N2] = 0.0
    pair_f[q, slot + N3] = 0.0


@hot_kernel
def _impact(pos, prev, inv_mass, flags, ground_normal, pair_i, pair_b, pair_f, q, nx, ny, nz, dt):
    """Approach speed (m/s, > 0 when closing) and kinetic energy (J) of contact ``q`` along
    ``n``, from this tick's displacements of the contact points and the true masses. A side
    driven by set-point moves (a punching hand, a kicking foot: muscles behind it) counts as
    immovable, so the energy is what the struck side takes."""
    ax, ay, az = point_velocity(pos, prev, pair_i, q, pair_f, NODES_A, COEF_A)
    bx, by, bz = point_velocity(pos, prev, pair_i, q, pair_f, NODES_B, COEF_B)
    speed = -((ax - bx) * nx + (ay - by) * ny + (az - bz) * nz) / dt
    s = 0.0
    for side in range(2):
        driven = True
        for k in range(SIDE_NODES):
            if pair_f[q, COEF_A + SIDE_NODES * side + k] != 0.0 and not flags[
                    pair_i[q, NODES_A + SIDE_NODES * side + k]] & MOVING:
                driven = False
        if not driven:
            sign = 1.0 - 2.0 * side
            s += side_inverse_mass(pos, inv_mass, flags, ground_normal, pair_i, pair_b, pair_f, q,
                                   side, sign * nx, sign * ny, sign * nz, False)
    if speed <= 0.0 or s <= 0.0:
        return max(speed, 0.0), 0.0
    return speed, 0.5 * speed * speed / s


@inline_kernel
def _kinematic(w, pair_i, pair_f, q, side):
    """Whether every node carrying side ``side`` of contact ``q`` is immovable this tick."""
    for k in range(SIDE_NODES):
        if (pair_f[q, COEF_A + SIDE_NODES * side + k] != 0.0
                and w[pair_i[q, NODES_A + SIDE_NODES * side + k]] > 0.0):
            return False
    return True


@hot_kernel
def project_contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_b, pair_f, q, nx, ny,
                    nz, depth, px, py, pz, first, dt, node_row, body_start, body_count):
    """Record, wake and project one contact whose COEF slots are already set.

    The first push of a pair in a tick measures how far the pair approached along ``n`` this
    tick; in all, the tick's projections may separate the pair by that approach plus the
    world's depenetration allowance (``activate_pair``), no more, so a deep overlap (a limb
    through a falling 16-ton weight, bodies spawned inside each other) comes apart over a few
    ticks instead of launching anything. A projection pushing several points (a box's corners)
    counts its largest push (SEPARATED): counting every push, a box landing at 1.6 m/s on a
    chair's seat spent the allowance on its first two corners and sank through the seat.
    """
    if pair_f[q, DEPTH] == 0.0:
        ax, ay, az = point_velocity(pos, prev, pair_i, q, pair_f, NODES_A, COEF_A)
        bx, by, bz = point_velocity(pos, prev, pair_i, q, pair_f, NODES_B, COEF_B)
        approach = max(0.0, -((ax - bx) * nx + (ay - by) * ny + (az - bz) * nz))
        if node_row[pair_i[q, NODES_A + N0]] == node_row[pair_i[q, NODES_B + N0]]:
            # Self-collision: limbs squeezed together (a body crushed under a weight) must
            # not feed each other's motion back as ever larger pushes.
            approach = min(approach, SELF_APPROACH)
        elif (pair_b[q, RIGID_A] or pair_b[q, RIGID_B]) and (
                not pair_b[q, MOVE_A] or not pair_b[q, MOVE_B]
                or _kinematic(w, pair_i, pair_f, q, 0) or _kinematic(w, pair_i, pair_f, q, 1)):
            # A box struck by something that does not give (a stepping foot, a driven hand)
            # is shoved at a walking pace at most: a foot that went deep into a light chair
            # must not launch it.
            approach = min(approach, KINEMATIC_APPROACH * dt)
        pair_f[q, ALLOWED] += approach
        if first:
            speed, energy = _impact(pos, prev, inv_mass, flags, ground_normal, pair_i, pair_b,
                                    pair_f, q, nx, ny, nz, dt)
            if pair_f[q, ENERGY] == 0.0:
                pair_f[q, ENERGY] = energy
            if depth > WAKE_DEPTH or speed > WAKE_SPEED:
                for side in range(2):
                    i = pair_i[q, NODES_A + SIDE_NODES * side + N0]
                    if flags[i] & ASLEEP:
                        wake_body(node_row[i], flags, w, inv_mass, body_start, body_count)
    if depth > pair_f[q, DEPTH]:
        pair_f[q, DEPTH] = depth
        pair_f[q, POINT + X] = px
        pair_f[q, POINT + Y] = py
        pair_f[q, POINT + Z] = pz
        pair_f[q, NORMAL + X] = nx
        pair_f[q, NORMAL + Y] = ny
        pair_f[q, NORMAL + Z] = nz
    push = min(depth, pair_f[q, ALLOWED] - pair_f[q, SEPARATED])
    if push <= 0.0:
        return 0.0
    pair_f[q, LARGEST] = max(pair_f[q, LARGEST], push)
    pair_f[q, PUSH] += push_apart(pos, w, flags, ground_normal, pair_i, q, pair_b, pair_f, nx, ny,
                                  nz, push, NOT_HELD)
    if pair_b[q, RIGID_A] or pair_b[q, RIGID_B]:
        hold_static(pos, prev, w, flags, ground_normal, pair_i, pair_b, pair_f, q, nx, ny, nz)
    return push
