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
    box_projection_radius,
    box_separating_axis,
    closest_params_segments,
    point_in_box,
    segment_box,
)
from twig.physics.collision.response import (
    ALLOWED,
    COEF_A,
    COEF_B,
    DEPTH,
    ENERGY,
    GAP,
    LARGEST,
    MOVE_A,
    MOVE_B,
    MU,
    NORMAL,
    NOT_HELD,
    POINT,
    PUSH,
    RIGID_A,
    RIGID_B,
    SEEN_GAP,
    SELF_APPROACH,
    SEPARATED,
    WAKE_DEPTH,
    WAKE_SPEED,
    hold_static,
    point_velocity,
    push_apart,
    side_inverse_mass,
    split_normal,
)
from twig.physics.collision.rigid import rigid_frame, rigid_inverse_mass, rigid_move
from twig.physics.collision.sleep import wake_body
from twig.physics.flags import ASLEEP, GROUNDED, MOVING
from twig.physics.hot import hot_kernel, inline_kernel, kernel

CAPSULE = 0
"""Volume kind: a capsule on nodes 0-1 (a sphere when both are the same node)."""
BOX = 1
"""Volume kind: an oriented box whose frame is an affine function of its 4 nodes."""

ACTIVE_GAP = 0.01
"""Pairs farther apart than this (m) at the first iteration skip the remaining iterations."""
CANDIDATE_SLOTS = 13
"""Memory kept per broad-phase candidate between ticks (a row of ``pair_seen``, moved with the
pair when the list is rebuilt: ``broad.carry_memory``): a lower bound on the distance of
two capsules' core segments (m) measured when the pair was found farther apart than
ACTIVE_GAP, and where their four nodes were then (12 slots; see ``capsules.remember_at``)."""
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
KINEMATIC_APPROACH = 2.0
"""Fastest (m/s) a box is shoved by something immovable (a stepping foot, a driven hand)."""
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
def box_frame(pos, vol_nodes, vol_coef, v, box_c, box_u, box_h):
    """Centre, unit axes and half extents of box volume ``v`` from its four nodes.

    ``vol_coef[v]`` row 0 holds the centre's affine coefficients, rows 1-3 the half-axis
    vectors' (coefficients summing to 0), so the frame follows the nodes rigidly.
    """
    for r in range(4):
        x = 0.0
        y = 0.0
        z = 0.0
        for k in range(4):
            c = vol_coef[v, r, k]
            i = vol_nodes[v, k]
            x += c * pos[i, 0]
            y += c * pos[i, 1]
            z += c * pos[i, 2]
        if r == 0:
            box_c[v, 0] = x
            box_c[v, 1] = y
            box_c[v, 2] = z
        else:
            h = math.sqrt(x * x + y * y + z * z)
            box_h[v, r - 1] = h
            box_u[v, r - 1, 0] = x / h
            box_u[v, r - 1, 1] = y / h
            box_u[v, r - 1, 2] = z / h


@hot_kernel
def box_coef(vol_coef, box_h, v, lx, ly, lz, k):
    """Affine coefficient of node ``k`` of box ``v`` for the point with box coordinates
    ``l`` (metres)."""
    return (vol_coef[v, 0, k] + lx / box_h[v, 0] * vol_coef[v, 1, k]
            + ly / box_h[v, 1] * vol_coef[v, 2, k] + lz / box_h[v, 2] * vol_coef[v, 3, k])


@hot_kernel
def set_box_coefs(vol_coef, box_h, v, lx, ly, lz, pair_f, q, slot):
    """Store the affine node coefficients of the box point ``l`` in ``pair_f[q, slot:]``."""
    for k in range(4):
        pair_f[q, slot + k] = box_coef(vol_coef, box_h, v, lx, ly, lz, k)


@hot_kernel
def set_capsule_coefs(t, pair_f, q, slot):
    pair_f[q, slot] = 1.0 - t
    pair_f[q, slot + 1] = t
    pair_f[q, slot + 2] = 0.0
    pair_f[q, slot + 3] = 0.0


@hot_kernel
def _impact(pos, prev, inv_mass, flags, ground_normal, pair_i, pair_f, q, nx, ny, nz, dt):
    """Approach speed (m/s, > 0 when closing) and kinetic energy (J) of contact ``q`` along
    ``n``, from this tick's displacements of the contact points and the true masses. A side
    driven by set-point moves (a punching hand, a kicking foot: muscles behind it) counts as
    immovable, so the energy is what the struck side takes."""
    ax, ay, az = point_velocity(pos, prev, pair_i, q, pair_f, 0, COEF_A)
    bx, by, bz = point_velocity(pos, prev, pair_i, q, pair_f, 4, COEF_B)
    speed = -((ax - bx) * nx + (ay - by) * ny + (az - bz) * nz) / dt
    s = 0.0
    for side in range(2):
        driven = True
        for k in range(4):
            if pair_f[q, COEF_A + 4 * side + k] != 0.0 and not flags[pair_i[q, 4 * side + k]] \
                    & MOVING:
                driven = False
        if not driven:
            sign = 1.0 - 2.0 * side
            s += side_inverse_mass(pos, inv_mass, flags, ground_normal, pair_i, pair_f, q,
                                   side, sign * nx, sign * ny, sign * nz, False)
    if speed <= 0.0 or s <= 0.0:
        return max(speed, 0.0), 0.0
    return speed, 0.5 * speed * speed / s


@inline_kernel
def _kinematic(w, pair_i, pair_f, q, side):
    """Whether every node carrying side ``side`` of contact ``q`` is immovable this tick."""
    for k in range(4):
        if pair_f[q, COEF_A + 4 * side + k] != 0.0 and w[pair_i[q, 4 * side + k]] > 0.0:
            return False
    return True


@hot_kernel
def _contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_f, q, nx, ny, nz,
             depth, px, py, pz, first, dt, node_row, body_start, body_count):
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
        ax, ay, az = point_velocity(pos, prev, pair_i, q, pair_f, 0, COEF_A)
        bx, by, bz = point_velocity(pos, prev, pair_i, q, pair_f, 4, COEF_B)
        approach = max(0.0, -((ax - bx) * nx + (ay - by) * ny + (az - bz) * nz))
        if node_row[pair_i[q, 0]] == node_row[pair_i[q, 4]]:
            # Self-collision: limbs squeezed together (a body crushed under a weight) must
            # not feed each other's motion back as ever larger pushes.
            approach = min(approach, SELF_APPROACH)
        elif pair_f[q, RIGID_A] + pair_f[q, RIGID_B] > 0.0 and (
                pair_f[q, MOVE_A] == 0.0 or pair_f[q, MOVE_B] == 0.0
                or _kinematic(w, pair_i, pair_f, q, 0) or _kinematic(w, pair_i, pair_f, q, 1)):
            # A box struck by something that does not give (a stepping foot, a driven hand)
            # is shoved at a walking pace at most: a foot that went deep into a light chair
            # must not launch it.
            approach = min(approach, KINEMATIC_APPROACH * dt)
        pair_f[q, ALLOWED] += approach
        if first:
            speed, energy = _impact(pos, prev, inv_mass, flags, ground_normal, pair_i, pair_f,
                                    q, nx, ny, nz, dt)
            if pair_f[q, ENERGY] == 0.0:
                pair_f[q, ENERGY] = energy
            if depth > WAKE_DEPTH or speed > WAKE_SPEED:
                for side in range(2):
                    i = pair_i[q, 4 * side]
                    if flags[i] & ASLEEP:
                        wake_body(node_row[i], flags, w, inv_mass, body_start, body_count)
    if depth > pair_f[q, DEPTH]:
        pair_f[q, DEPTH] = depth
        pair_f[q, POINT] = px
        pair_f[q, POINT + 1] = py
        pair_f[q, POINT + 2] = pz
        pair_f[q, NORMAL] = nx
        pair_f[q, NORMAL + 1] = ny
        pair_f[q, NORMAL + 2] = nz
    push = min(depth, pair_f[q, ALLOWED] - pair_f[q, SEPARATED])
    if push <= 0.0:
        return 0.0
    pair_f[q, LARGEST] = max(pair_f[q, LARGEST], push)
    pair_f[q, PUSH] += push_apart(pos, w, flags, ground_normal, pair_i, q, pair_f, nx, ny, nz,
                                  push, NOT_HELD)
    if pair_f[q, RIGID_A] != 0.0 or pair_f[q, RIGID_B] != 0.0:
        hold_static(pos, prev, w, flags, ground_normal, pair_i, pair_f, q, nx, ny, nz)
    return push


@kernel
def _capsule_box(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_radius,
                 vol_coef, vc, vb, capsule_first, box_c, box_u, box_h, pair_i, pair_f, q,
                 first, dt, node_row, body_start, body_count):
    """Capsule ``vc`` against box ``vb``; ``capsule_first`` says which side of row ``q`` the
    capsule is on (the normal is flipped for the other order)."""
    box_frame(pos, vol_nodes, vol_coef, vb, box_c, box_u, box_h)
    a0 = vol_nodes[vc, 0]
    a1 = vol_nodes[vc, 1]
    r = vol_radius[vc]
    # The capsule's motion relative to the box this tick: when it exceeds the radius, a deep
    # overlap is undone through the face it entered by.
    hx = 0.0
    hy = 0.0
    hz = 0.0
    for c in range(3):
        d = 0.5 * (pos[a0, c] - prev[a0, c] + pos[a1, c] - prev[a1, c])
        for k in range(4):
            i = vol_nodes[vb, k]
            d -= 0.25 * (pos[i, c] - prev[i, c])
        if c == 0:
            hx = d
        elif c == 1:
            hy = d
        else:
            hz = d
    if hx * hx + hy * hy + hz * hz <= r * r:
        hx = hy = hz = 0.0
    dist, t, lx, ly, lz, nx, ny, nz = segment_box(
        pos[a0, 0], pos[a0, 1], pos[a0, 2], pos[a1, 0], pos[a1, 1], pos[a1, 2], box_c, box_u,
        box_h, vb, hx, hy, hz)
    gap = dist - r
    if first:
        pair_f[q, GAP] = gap
    if gap >= 0.0:
        return 0.0
    sc = COEF_A if capsule_first else COEF_B
    sb = COEF_B if capsule_first else COEF_A
    if dist <= 0.0:
        # The capsule's core is inside the box: part them by translation (both pushed at
        # their centres), which undoes a deep overlap in one push; turning belongs to
        # contacts at the surface.
        set_capsule_coefs(0.5, pair_f, q, sc)
        set_box_coefs(vol_coef, box_h, vb, 0.0, 0.0, 0.0, pair_f, q, sb)
    else:
        set_capsule_coefs(t, pair_f, q, sc)
        set_box_coefs(vol_coef, box_h, vb, lx, ly, lz, pair_f, q, sb)
    px = box_c[vb, 0] + lx * box_u[vb, 0, 0] + ly * box_u[vb, 1, 0] + lz * box_u[vb, 2, 0]
    py = box_c[vb, 1] + lx * box_u[vb, 0, 1] + ly * box_u[vb, 1, 1] + lz * box_u[vb, 2, 1]
    pz = box_c[vb, 2] + lx * box_u[vb, 0, 2] + ly * box_u[vb, 1, 2] + lz * box_u[vb, 2, 2]
    sign = 1.0 if capsule_first else -1.0
    return _contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_f, q, sign * nx,
             sign * ny, sign * nz, -gap, px, py, pz, first, dt, node_row, body_start,
             body_count)


@kernel
def _box_vertices_in(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_coef, vs, vt,
                     s_first, box_c, box_u, box_h, pair_i, pair_f, q, nx, ny, nz, first, dt,
                     node_row, body_start, body_count, acc, reverse):
    """Push each vertex of box ``vs`` that lies inside box ``vt`` out along ``n`` (unit, from
    ``vt`` toward ``vs``), one after the other, both boxes responding as rigid frames.

    Sequential pushes at the corners of the overlap find the support forces of a resting box
    by themselves (a box across an edge rests on its two inside corners and the edge). Each
    push tilts both frames a little toward the corners still to come, so the corners go in
    order or, with ``reverse``, in reverse order, alternately by iteration (see
    :data:`REVERSED`). ``acc`` collects the depth-weighted coefficients of both sides
    (slots 0-7) and the total depth (slot 8); returns the deepest push."""
    deepest = 0.0
    for step in range(8):
        corner = 7 - step if reverse else step
        box_frame(pos, vol_nodes, vol_coef, vs, box_c, box_u, box_h)
        box_frame(pos, vol_nodes, vol_coef, vt, box_c, box_u, box_h)
        sx = box_h[vs, 0] if corner & 1 else -box_h[vs, 0]
        sy = box_h[vs, 1] if corner & 2 else -box_h[vs, 1]
        sz = box_h[vs, 2] if corner & 4 else -box_h[vs, 2]
        px, py, pz = _corner(box_c, box_u, box_h, vs, corner)
        inside, lx, ly, lz = point_in_box(box_c, box_u, box_h, vt, px, py, pz, 0.0)
        if not inside:
            continue
        deepest = max(deepest, _push_point_out(
            pos, prev, w, inv_mass, flags, ground_normal, vol_coef, vs, vt, s_first, box_c,
            box_u, box_h, pair_i, pair_f, q, nx, ny, nz, px, py, pz, sx, sy, sz, lx, ly, lz,
            first, dt, node_row, body_start, body_count, acc))
    return deepest


@kernel
def _push_point_out(pos, prev, w, inv_mass, flags, ground_normal, vol_coef, vs, vt, s_first,
                    box_c, box_u, box_h, pair_i, pair_f, q, nx, ny, nz, px, py, pz, sx, sy, sz,
                    lx, ly, lz, first, dt, node_row, body_start, body_count, acc):
    """Push point ``p`` of box ``vs`` (box coordinates ``s``), inside box ``vt`` (box
    coordinates ``l``), out along ``n`` (unit, from ``vt`` toward ``vs``) to ``vt``'s extent
    along ``n``, both boxes responding as rigid frames, and add its depth-weighted coefficients
    and depth to ``acc`` (see :func:`_box_vertices_in`). Returns the depth (m; 0 if none)."""
    d = (box_c[vt, 0] * nx + box_c[vt, 1] * ny + box_c[vt, 2] * nz
         + box_projection_radius(box_u, box_h, vt, nx, ny, nz)) - (px * nx + py * ny + pz * nz)
    if d <= 0.0:
        return 0.0
    set_box_coefs(vol_coef, box_h, vs, sx, sy, sz, pair_f, q, COEF_A if s_first else COEF_B)
    set_box_coefs(vol_coef, box_h, vt, lx, ly, lz, pair_f, q, COEF_B if s_first else COEF_A)
    for k in range(4):
        acc[k] += d * pair_f[q, COEF_A + k]
        acc[4 + k] += d * pair_f[q, COEF_B + k]
    acc[8] += d
    sign = 1.0 if s_first else -1.0
    _contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_f, q, sign * nx,
             sign * ny, sign * nz, d, px, py, pz, first, dt, node_row, body_start, body_count)
    return d


@kernel
def _box_edges_in(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_coef, vs, vt,
                  s_first, box_c, box_u, box_h, pair_i, pair_f, q, nx, ny, nz, first, dt,
                  node_row, body_start, body_count, acc, reverse):
    """Push the points where the edges of box ``vs`` pass through the faces of box ``vt`` out
    along ``n``, as :func:`_box_vertices_in` pushes the vertices (same arguments; each edge's
    way in, then its way out, in reverse order with ``reverse``). Where one box rests across
    another's edge or corner, these crossings are corners of the area the two share: a cube
    rotated on a chair's seat, over one of its corners, rests on two of its own corners, one of
    the seat's and the two crossings between, and without the crossings it tipped over the
    seat's corner and fell off."""
    deepest = 0.0
    for step in range(24):
        e = 23 - step if reverse else step
        axis = e // 8
        # The edge along ``axis`` at the signs (bits 0 and 1 of ``sub``) of the other two axes.
        sub = (e // 2) % 4
        s1 = 1.0 if sub & 1 else -1.0
        s2 = 1.0 if sub & 2 else -1.0
        if axis == 0:
            ax, ay, az = -box_h[vs, 0], s1 * box_h[vs, 1], s2 * box_h[vs, 2]
        elif axis == 1:
            ax, ay, az = s2 * box_h[vs, 0], -box_h[vs, 1], s1 * box_h[vs, 2]
        else:
            ax, ay, az = s1 * box_h[vs, 0], s2 * box_h[vs, 1], -box_h[vs, 2]
        box_frame(pos, vol_nodes, vol_coef, vs, box_c, box_u, box_h)
        box_frame(pos, vol_nodes, vol_coef, vt, box_c, box_u, box_h)
        length = 2.0 * box_h[vs, axis]
        ux = box_u[vs, axis, 0]
        uy = box_u[vs, axis, 1]
        uz = box_u[vs, axis, 2]
        p0x, p0y, p0z = _box_point(box_c, box_u, vs, ax, ay, az)
        # Where the edge p0 + t * length * u (t in [0, 1]) is inside vt (Liang-Barsky).
        t_in = 0.0
        t_out = 1.0
        for k in range(3):
            a = ((p0x - box_c[vt, 0]) * box_u[vt, k, 0] + (p0y - box_c[vt, 1]) * box_u[vt, k, 1]
                 + (p0z - box_c[vt, 2]) * box_u[vt, k, 2])
            d = length * (ux * box_u[vt, k, 0] + uy * box_u[vt, k, 1] + uz * box_u[vt, k, 2])
            h = box_h[vt, k]
            if abs(d) < 1e-12:
                if abs(a) > h:
                    t_out = -1.0
                continue
            ta = (-h - a) / d
            tb = (h - a) / d
            t_in = max(t_in, min(ta, tb))
            t_out = min(t_out, max(ta, tb))
        t = t_in if e % 2 == 0 else t_out
        if t_in >= t_out or t <= 0.0 or t >= 1.0:
            continue  # no crossing here (the edge's ends are vertices)
        px = p0x + t * length * ux
        py = p0y + t * length * uy
        pz = p0z + t * length * uz
        if axis == 0:
            ax += t * length
        elif axis == 1:
            ay += t * length
        else:
            az += t * length
        _, lx, ly, lz = point_in_box(box_c, box_u, box_h, vt, px, py, pz, 0.0)
        deepest = max(deepest, _push_point_out(
            pos, prev, w, inv_mass, flags, ground_normal, vol_coef, vs, vt, s_first, box_c,
            box_u, box_h, pair_i, pair_f, q, nx, ny, nz, px, py, pz, ax, ay, az, lx, ly, lz,
            first, dt, node_row, body_start, body_count, acc))
    return deepest


@hot_kernel
def _box_point(box_c, box_u, v, lx, ly, lz):
    """World position of the point with box coordinates ``l`` (metres) of box ``v``."""
    return (box_c[v, 0] + lx * box_u[v, 0, 0] + ly * box_u[v, 1, 0] + lz * box_u[v, 2, 0],
            box_c[v, 1] + lx * box_u[v, 0, 1] + ly * box_u[v, 1, 1] + lz * box_u[v, 2, 1],
            box_c[v, 2] + lx * box_u[v, 0, 2] + ly * box_u[v, 1, 2] + lz * box_u[v, 2, 2])


@kernel
def _box_box(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_coef, va, vb, box_c,
             box_u, box_h, pair_i, pair_f, q, first, dt, node_row, body_start, body_count,
             reverse):
    """Boxes by the separating-axis test, then by vertices (each vertex of one box inside the
    other is pushed out along the separating axis) and, when that axis is a face's normal, by
    the points where the other box's edges pass through the sides of the face's box; in
    reverse order with ``reverse``. Else (no such point) by the crossing edges. Friction then
    acts at the depth-weighted centre of the points pushed."""
    box_frame(pos, vol_nodes, vol_coef, va, box_c, box_u, box_h)
    box_frame(pos, vol_nodes, vol_coef, vb, box_c, box_u, box_h)
    overlap, nx, ny, nz, kind, ei, ej = box_separating_axis(box_c, box_u, box_h, va, vb)
    if first:
        pair_f[q, GAP] = -overlap
    if overlap <= 0.0:
        return 0.0
    # Vertices of each box in the other, then, face against face, the crossings of the other
    # box's edges through the sides of the face's box (:func:`_box_edges_in`); all in reverse
    # order with ``reverse``.
    acc = np.zeros(9)
    deepest = 0.0
    parts = 4 if kind != 2 else 2
    for step in range(parts):
        part = parts - 1 - step if reverse else step
        if part == 2 + kind:
            continue  # the face's own box's edges: the same crossings, seen from its side
        s_first = part % 2 == 0
        vs = va if s_first else vb
        vt = vb if s_first else va
        sg = 1.0 if s_first else -1.0
        if part < 2:
            d = _box_vertices_in(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes,
                                 vol_coef, vs, vt, s_first, box_c, box_u, box_h, pair_i, pair_f,
                                 q, sg * nx, sg * ny, sg * nz, first, dt, node_row, body_start,
                                 body_count, acc, reverse)
        else:
            d = _box_edges_in(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_coef,
                              vs, vt, s_first, box_c, box_u, box_h, pair_i, pair_f, q, sg * nx,
                              sg * ny, sg * nz, first, dt, node_row, body_start, body_count, acc,
                              reverse)
        deepest = max(deepest, d)
    if acc[8] > 0.0:
        for k in range(4):
            pair_f[q, COEF_A + k] = acc[k] / acc[8]
            pair_f[q, COEF_B + k] = acc[4 + k] / acc[8]
        return deepest
    if kind != 2:
        # Crossed through each other with no vertex inside: part them at their centres.
        set_box_coefs(vol_coef, box_h, va, 0.0, 0.0, 0.0, pair_f, q, COEF_A)
        set_box_coefs(vol_coef, box_h, vb, 0.0, 0.0, 0.0, pair_f, q, COEF_B)
        return _contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_f, q, nx, ny,
                        nz, overlap, 0.5 * (box_c[va, 0] + box_c[vb, 0]),
                        0.5 * (box_c[va, 1] + box_c[vb, 1]), 0.5 * (box_c[va, 2] + box_c[vb, 2]),
                        first, dt, node_row, body_start, body_count)
    # Edge against edge: the edge of each box lying deepest toward the other.
    la = [0.0, 0.0, 0.0]
    lb = [0.0, 0.0, 0.0]
    for k in range(3):
        da = box_u[va, k, 0] * nx + box_u[va, k, 1] * ny + box_u[va, k, 2] * nz
        db = box_u[vb, k, 0] * nx + box_u[vb, k, 1] * ny + box_u[vb, k, 2] * nz
        la[k] = -box_h[va, k] if da > 0.0 else box_h[va, k]
        lb[k] = box_h[vb, k] if db > 0.0 else -box_h[vb, k]
    la[ei] = -box_h[va, ei]
    lb[ej] = -box_h[vb, ej]
    p0 = [0.0, 0.0, 0.0]
    p1 = [0.0, 0.0, 0.0]
    q0 = [0.0, 0.0, 0.0]
    q1 = [0.0, 0.0, 0.0]
    for c in range(3):
        p0[c] = box_c[va, c] + la[0] * box_u[va, 0, c] + la[1] * box_u[va, 1, c] \
            + la[2] * box_u[va, 2, c]
        p1[c] = p0[c] + 2.0 * box_h[va, ei] * box_u[va, ei, c]
        q0[c] = box_c[vb, c] + lb[0] * box_u[vb, 0, c] + lb[1] * box_u[vb, 1, c] \
            + lb[2] * box_u[vb, 2, c]
        q1[c] = q0[c] + 2.0 * box_h[vb, ej] * box_u[vb, ej, c]
    s, t = closest_params_segments(p0[0], p0[1], p0[2], p1[0], p1[1], p1[2], q0[0], q0[1],
                                   q0[2], q1[0], q1[1], q1[2])
    la[ei] += 2.0 * s * box_h[va, ei]
    lb[ej] += 2.0 * t * box_h[vb, ej]
    set_box_coefs(vol_coef, box_h, va, la[0], la[1], la[2], pair_f, q, COEF_A)
    set_box_coefs(vol_coef, box_h, vb, lb[0], lb[1], lb[2], pair_f, q, COEF_B)
    px = 0.5 * (p0[0] + s * (p1[0] - p0[0]) + q0[0] + t * (q1[0] - q0[0]))
    py = 0.5 * (p0[1] + s * (p1[1] - p0[1]) + q0[1] + t * (q1[1] - q0[1]))
    pz = 0.5 * (p0[2] + s * (p1[2] - p0[2]) + q0[2] + t * (q1[2] - q0[2]))
    return _contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_f, q, nx, ny, nz,
                    overlap, px, py, pz, first, dt, node_row, body_start, body_count)


@hot_kernel
def activate_pair(vol_kind, vol_nodes, vol_friction, vol_passive, pair_vol, q, row, pair_i,
                  pair_f, depenetration):
    """Set up contact row ``row`` for candidate ``q`` this tick (rows are set up only for the
    candidates the first sweep finds close, one after another: a pile has 10^5 candidates
    and a row is 39 slots); ``depenetration`` (m) is how far the pair may be pushed apart in
    one tick beyond undoing its approach."""
    va = pair_vol[q, 0]
    vb = pair_vol[q, 1]
    for k in range(4):
        pair_i[row, k] = vol_nodes[va, k]
        pair_i[row, 4 + k] = vol_nodes[vb, k]
    # Only what is read before it is written.
    pair_f[row, GAP] = math.inf
    pair_f[row, DEPTH] = 0.0
    pair_f[row, ENERGY] = 0.0
    pair_f[row, PUSH] = 0.0
    pair_f[row, MU] = math.sqrt(vol_friction[va] * vol_friction[vb])
    pair_f[row, MOVE_A] = 0.0 if vol_passive[va] else 1.0
    pair_f[row, MOVE_B] = 0.0 if vol_passive[vb] else 1.0
    pair_f[row, RIGID_A] = 1.0 if vol_kind[va] == BOX else 0.0
    pair_f[row, RIGID_B] = 1.0 if vol_kind[vb] == BOX else 0.0
    pair_f[row, ALLOWED] = depenetration
    pair_f[row, SEPARATED] = 0.0


@kernel
def _project_pair(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes,
                  vol_radius, vol_coef, box_c, box_u, box_h, pair_vol, pair_i, pair_f, q, row,
                  first, dt, node_row, body_start, body_count, reverse):
    """Project candidate ``q``, a pair with a box, in contact row ``row`` (capsule pairs:
    :func:`~twig.physics.collision.capsules.capsule_repeats`); in the first iteration a pair
    still penetrating is projected again, up to REPEATS times (the contact point moves as the
    volumes turn), so one sweep leaves no deep overlap. Two boxes take their corners in
    reverse order with ``reverse``, and the repeats alternate the order."""
    va = pair_vol[q, 0]
    vb = pair_vol[q, 1]
    ka = vol_kind[va]
    kb = vol_kind[vb]
    for rep in range(REPEATS if first else 1):
        once = first and rep == 0
        pair_f[row, LARGEST] = 0.0
        if ka == CAPSULE:
            depth = _capsule_box(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes,
                                 vol_radius, vol_coef, va, vb, True, box_c, box_u, box_h, pair_i,
                                 pair_f, row, once, dt, node_row, body_start, body_count)
        elif kb == CAPSULE:
            depth = _capsule_box(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes,
                                 vol_radius, vol_coef, vb, va, False, box_c, box_u, box_h,
                                 pair_i, pair_f, row, once, dt, node_row, body_start, body_count)
        else:
            depth = _box_box(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_coef,
                             va, vb, box_c, box_u, box_h, pair_i, pair_f, row, once, dt, node_row,
                             body_start, body_count, reverse != (rep % 2 == 1))
        pair_f[row, SEPARATED] += pair_f[row, LARGEST]
        if depth <= REPEAT_DEPTH:
            break


@kernel
def first_sweep(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes, vol_radius,
                vol_coef, vol_friction, vol_passive, box_c, box_u, box_h, boxes, pair_vol,
                n_pairs, pair_seen, pair_i, pair_f, active, depenetration, dt, node_row,
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
        q, n_active, remembered = _first_capsules(
            pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes, vol_radius,
            vol_friction, vol_passive, pair_vol, q, n_pairs, pair_seen, pair_i, pair_f, active,
            n_active, remembered, depenetration, dt, node_row, body_start, body_count)
        if q == n_pairs:
            break
        if boxes is None:  # compiled for a world without boxes: never reached
            break
        row = n_active  # a pair with a box fills it before it is known to be active
        activate_pair(vol_kind, vol_nodes, vol_friction, vol_passive, pair_vol, q, row, pair_i,
                      pair_f, depenetration)
        _project_pair(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes,
                      vol_radius, vol_coef, box_c, box_u, box_h, pair_vol, pair_i, pair_f, q,
                      row, True, dt, node_row, body_start, body_count, False)
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
def _first_capsules(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes,
                    vol_radius, vol_friction, vol_passive, pair_vol, start, n_pairs, pair_seen,
                    pair_i, pair_f, active, n_active, remembered, depenetration, dt, node_row,
                    body_start, body_count):
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
        va = pair_vol[q, 0]
        vb = pair_vol[q, 1]
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
        if pair_seen[q, 0] - drift(pos, pair_seen, q, 0, a0, a1, b0, b1) > reach:
            remembered += 1
            continue
        sep = box_separation(pos, a0, a1, b0, b1)
        if sep > reach:
            remember_at(pos, pair_seen, q, 0, a0, a1, b0, b1, sep)
            continue
        s, t = segment_params(pos, a0, a1, b0, b1)
        d = distance_at(pos, a0, a1, b0, b1, s, t)
        gap = d - ra - rb
        if gap > ACTIVE_GAP:
            remember_at(pos, pair_seen, q, 0, a0, a1, b0, b1, d)
            continue
        row = n_active
        activate_pair(vol_kind, vol_nodes, vol_friction, vol_passive, pair_vol, q, row, pair_i,
                      pair_f, depenetration)
        pair_f[row, GAP] = gap
        active[row] = q
        n_active += 1
        if gap >= 0.0:
            remember_at(pos, pair_f, row, SEEN_GAP, a0, a1, b0, b1, gap)
        else:
            capsule_repeats(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_f, row,
                            ra, rb, s, t, REPEATS, REPEAT_DEPTH, dt, node_row, body_start,
                            body_count)
    return n_pairs, n_active, remembered


@kernel
def resolve_active(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes,
                   vol_radius, vol_coef, box_c, box_u, box_h, boxes, pair_vol, pair_i, pair_f,
                   active, n_active, dt, node_row, body_start, body_count, reverse):
    """A later projection sweep: each of the first sweep's ``n_active`` contact rows once
    (pairs of two sleeping bodies skipped; two boxes with their corners in reverse order
    with ``reverse``). Runs of capsule rows go to :func:`_resolve_capsules`, compiled without
    reference counting; ``boxes`` None: compiled without the box tests."""
    row = np.int64(0)  # typed: a literal 0 would compile the callees twice
    while row < n_active:
        row = _resolve_capsules(pos, prev, w, inv_mass, flags, ground_normal, vol_kind,
                                vol_nodes, vol_radius, pair_vol, pair_i, pair_f, active, row,
                                n_active, dt, node_row, body_start, body_count)
        if row == n_active:
            break
        if boxes is None:  # compiled for a world without boxes: never reached
            break
        _project_pair(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes,
                      vol_radius, vol_coef, box_c, box_u, box_h, pair_vol, pair_i, pair_f,
                      active[row], row, False, dt, node_row, body_start, body_count, reverse)
        row += 1


@hot_kernel
def _resolve_capsules(pos, prev, w, inv_mass, flags, ground_normal, vol_kind, vol_nodes,
                      vol_radius, pair_vol, pair_i, pair_f, active, start, n_active, dt, node_row,
                      body_start, body_count):
    """:func:`resolve_active` from contact row ``start`` on, up to the first awake row with a
    box, which it returns (``n_active`` if none). A capsule row still apart
    (``capsules.still_apart``) is not measured again."""
    for row in range(start, n_active):
        q = active[row]
        va = pair_vol[q, 0]
        vb = pair_vol[q, 1]
        case = _pair_case(flags, vol_kind, vol_nodes, va, vb)
        if case == WITH_BOX:
            return row
        if case == CAPSULES and not still_apart(pos, pair_i, pair_f, row):
            s, t = segment_params(pos, pair_i[row, 0], pair_i[row, 1], pair_i[row, 4],
                                  pair_i[row, 5])
            capsule_contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_f, row,
                            vol_radius[va], vol_radius[vb], s, t, False, dt, node_row, body_start,
                            body_count)
    return n_active


@hot_kernel
def _corner(box_c, box_u, box_h, v, corner):
    """World position of corner ``corner`` (bits 0-2 = sign of x, y, z) of box ``v``."""
    sx = box_h[v, 0] if corner & 1 else -box_h[v, 0]
    sy = box_h[v, 1] if corner & 2 else -box_h[v, 1]
    sz = box_h[v, 2] if corner & 4 else -box_h[v, 2]
    return _box_point(box_c, box_u, v, sx, sy, sz)


@hot_kernel
def _push_frame(pos, w, vol_nodes, v, px, py, pz, nx, ny, nz, amount):
    """Move box ``v``'s frame rigidly so that its point ``p`` moves ``amount`` along ``n``."""
    i0, i1, i2, i3 = vol_nodes[v, 0], vol_nodes[v, 1], vol_nodes[v, 2], vol_nodes[v, 3]
    inv_m, cx, cy, cz, inv_i = rigid_frame(pos, w, i0, i1, i2, i3)
    s = rigid_inverse_mass(inv_m, cx, cy, cz, inv_i, px, py, pz, nx, ny, nz)
    if s > 0.0:
        rigid_move(pos, i0, i1, i2, i3, inv_m, cx, cy, cz, inv_i, px, py, pz, nx, ny, nz,
                   amount / s)


@kernel
def boxes_on_planes(pos, w, vol_nodes, vol_coef, boxes, box_c, box_u, box_h, plane_normal,
                    plane_offset, corner_push, corner_plane, reverse):
    """Push box corners out of the static planes (Jakobsen's C1 for points that are not nodes),
    moving each box as a rigid frame; with ``reverse`` the boxes and their corners go in
    reverse order (see :data:`REVERSED`). Accumulates each corner's push in ``corner_push``
    (B, 8) and remembers the plane in ``corner_plane`` for friction."""
    nb = boxes.shape[0]
    npl = plane_normal.shape[0]
    for bb in range(nb):
        b = nb - 1 - bb if reverse else bb
        v = boxes[b]
        for p in range(npl):
            nx = plane_normal[p, 0]
            ny = plane_normal[p, 1]
            nz = plane_normal[p, 2]
            for cc in range(8):
                corner = 7 - cc if reverse else cc
                box_frame(pos, vol_nodes, vol_coef, v, box_c, box_u, box_h)
                px, py, pz = _corner(box_c, box_u, box_h, v, corner)
                pen = plane_offset[p] - (px * nx + py * ny + pz * nz)
                if pen <= 0.0:
                    continue
                _push_frame(pos, w, vol_nodes, v, px, py, pz, nx, ny, nz, pen)
                corner_push[b, corner] += pen
                corner_plane[b, corner] = p


@kernel
def box_plane_friction(pos, prev, w, flags, ground_normal, vol_nodes, vol_coef, boxes, box_c,
                       box_u, box_h, plane_normal, plane_friction, corner_push, corner_plane,
                       max_rise):
    """Jakobsen friction at box corners that touched a plane this tick; marks the box's nodes
    GROUNDED (with that plane's normal) so that what lands on the box cannot push it down;
    and no box leaves a plane faster than ``max_rise`` m per tick (:func:`_no_launch`)."""
    for b in range(boxes.shape[0]):
        v = boxes[b]
        for corner in range(8):
            push = corner_push[b, corner]
            if push <= 0.0:
                continue
            p = corner_plane[b, corner]
            nx = plane_normal[p, 0]
            ny = plane_normal[p, 1]
            nz = plane_normal[p, 2]
            box_frame(pos, vol_nodes, vol_coef, v, box_c, box_u, box_h)
            px, py, pz = _corner(box_c, box_u, box_h, v, corner)
            vx = 0.0
            vy = 0.0
            vz = 0.0
            for k in range(4):
                i = vol_nodes[v, k]
                c = vol_coef[v, 0, k]
                for a in range(3):
                    sgn = 1.0 if corner & (1 << a) else -1.0
                    c += sgn * vol_coef[v, a + 1, k]
                vx += c * (pos[i, 0] - prev[i, 0])
                vy += c * (pos[i, 1] - prev[i, 1])
                vz += c * (pos[i, 2] - prev[i, 2])
                flags[i] |= GROUNDED
                ground_normal[i, 0] = nx
                ground_normal[i, 1] = ny
                ground_normal[i, 2] = nz
            _, tx, ty, tz, tl = split_normal(vx, vy, vz, nx, ny, nz)
            if tl <= 1e-15:
                continue
            _push_frame(pos, w, vol_nodes, v, px, py, pz, -tx / tl, -ty / tl, -tz / tl,
                        min(tl, plane_friction[p] * push))
        _no_launch(pos, prev, w, vol_nodes, v, corner_push[b], corner_plane[b], plane_normal,
                   max_rise)


@kernel
def _no_launch(pos, prev, w, vol_nodes, v, pushes, planes, plane_normal, max_rise):
    """A box pushed out of a plane this tick leaves it at ``max_rise`` (m per tick) at most.

    Projection leaves a pushed node with the push as velocity; a box squeezed into the ground
    by something that does not give (a foot stepping on a light chair) would be thrown off at
    tens of metres a second. Boxes that fall or are thrown keep their motion: only the
    outward speed the pushes created beyond ``max_rise`` is removed.
    """
    best = -1
    for corner in range(8):
        if pushes[corner] > 0.0 and (best < 0 or pushes[corner] > pushes[best]):
            best = corner
    if best < 0:
        return
    p = planes[best]
    nx = plane_normal[p, 0]
    ny = plane_normal[p, 1]
    nz = plane_normal[p, 2]
    for k in range(4):
        i = vol_nodes[v, k]
        if w[i] == 0.0:
            continue
        up = ((pos[i, 0] - prev[i, 0]) * nx + (pos[i, 1] - prev[i, 1]) * ny
              + (pos[i, 2] - prev[i, 2]) * nz)
        if up > max_rise:
            excess = up - max_rise
            prev[i, 0] += excess * nx
            prev[i, 1] += excess * ny
            prev[i, 2] += excess * nz


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
            vs = pair_vol[q, side]
            vo = pair_vol[q, 1 - side]
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
