"""Pairs with a box: a box's frame from its nodes, capsule against box, and box against box
(separating axes, then the corners and edges of one inside the other).

Boxes respond as rigid frames (:mod:`~twig.physics.collision.rigid`); each penetration found
here is projected by :func:`~twig.physics.collision.projection.project_contact`.
"""

from __future__ import annotations

import math

import numpy as np

from twig.physics.collision.geometry import (
    box_projection_radius,
    box_separating_axis,
    closest_params_segments,
    point_in_box,
    segment_box,
)
from twig.physics.collision.pair_table import COEF_A, COEF_B, GAP, SIDE_NODES
from twig.physics.collision.projection import project_contact, set_capsule_coefs
from twig.physics.hot import hot_kernel, kernel

ACC_A = 0
"""Slot of the scratch row ``acc`` (see :func:`_box_vertices_in`) where the depth-weighted
coefficients of the first side's nodes start (SIDE_NODES slots) ..."""
ACC_B = ACC_A + SIDE_NODES
"""... those of the second side's ..."""
ACC_DEPTH = ACC_B + SIDE_NODES
"""... and their total depth (m)."""
ACC_SLOTS = ACC_DEPTH + 1
"""Slots of ``acc``."""


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
    """Store the affine node coefficients of the box point ``l`` in ``pair_f[q, slot:]``
    (``slot``: COEF_A or COEF_B)."""
    for k in range(SIDE_NODES):
        pair_f[q, slot + k] = box_coef(vol_coef, box_h, v, lx, ly, lz, k)


@kernel
def capsule_box(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_radius,
                vol_coef, vc, vb, capsule_first, box_c, box_u, box_h, pair_i, pair_b, pair_f, q,
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
    return project_contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_b, pair_f, q,
                           sign * nx, sign * ny, sign * nz, -gap, px, py, pz, first, dt,
                           node_row, body_start, body_count)


@kernel
def _box_vertices_in(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_coef, vs, vt,
                     s_first, box_c, box_u, box_h, pair_i, pair_b, pair_f, q, nx, ny, nz, first, dt,
                     node_row, body_start, body_count, acc, reverse):
    """Push each vertex of box ``vs`` that lies inside box ``vt`` out along ``n`` (unit, from
    ``vt`` toward ``vs``), one after the other, both boxes responding as rigid frames.

    Sequential pushes at the corners of the overlap find the support forces of a resting box
    by themselves (a box across an edge rests on its two inside corners and the edge). Each
    push tilts both frames a little toward the corners still to come, so the corners go in
    order or, with ``reverse``, in reverse order, alternately by iteration (see
    :data:`~twig.physics.collision.narrow.REVERSED`). ``acc`` collects the depth-weighted
    coefficients of both sides and the total depth (ACC_A, ACC_B, ACC_DEPTH); returns the
    deepest push."""
    deepest = 0.0
    for step in range(8):
        corner = 7 - step if reverse else step
        box_frame(pos, vol_nodes, vol_coef, vs, box_c, box_u, box_h)
        box_frame(pos, vol_nodes, vol_coef, vt, box_c, box_u, box_h)
        sx = box_h[vs, 0] if corner & 1 else -box_h[vs, 0]
        sy = box_h[vs, 1] if corner & 2 else -box_h[vs, 1]
        sz = box_h[vs, 2] if corner & 4 else -box_h[vs, 2]
        px, py, pz = box_corner(box_c, box_u, box_h, vs, corner)
        inside, lx, ly, lz = point_in_box(box_c, box_u, box_h, vt, px, py, pz, 0.0)
        if not inside:
            continue
        deepest = max(deepest, _push_point_out(
            pos, prev, w, inv_mass, flags, ground_normal, vol_coef, vs, vt, s_first, box_c,
            box_u, box_h, pair_i, pair_b, pair_f, q, nx, ny, nz, px, py, pz, sx, sy, sz, lx, ly, lz,
            first, dt, node_row, body_start, body_count, acc))
    return deepest


@kernel
def _push_point_out(pos, prev, w, inv_mass, flags, ground_normal, vol_coef, vs, vt, s_first, box_c,
                    box_u, box_h, pair_i, pair_b, pair_f, q, nx, ny, nz, px, py, pz, sx, sy, sz, lx,
                    ly, lz, first, dt, node_row, body_start, body_count, acc):
    """Push point ``p`` of box ``vs`` (box coordinates ``s``), inside box ``vt`` (box
    coordinates ``l``), out along ``n`` (unit, from ``vt`` toward ``vs``) to ``vt``'s extent
    along ``n``, both boxes responding as rigid frames, and add its depth-weighted coefficients
    and depth to ``acc`` (ACC_SLOTS; see :func:`_box_vertices_in`). Returns the depth (m; 0 if
    none)."""
    d = (box_c[vt, 0] * nx + box_c[vt, 1] * ny + box_c[vt, 2] * nz
         + box_projection_radius(box_u, box_h, vt, nx, ny, nz)) - (px * nx + py * ny + pz * nz)
    if d <= 0.0:
        return 0.0
    set_box_coefs(vol_coef, box_h, vs, sx, sy, sz, pair_f, q, COEF_A if s_first else COEF_B)
    set_box_coefs(vol_coef, box_h, vt, lx, ly, lz, pair_f, q, COEF_B if s_first else COEF_A)
    for k in range(SIDE_NODES):
        acc[ACC_A + k] += d * pair_f[q, COEF_A + k]
        acc[ACC_B + k] += d * pair_f[q, COEF_B + k]
    acc[ACC_DEPTH] += d
    sign = 1.0 if s_first else -1.0
    project_contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_b, pair_f, q,
                    sign * nx, sign * ny, sign * nz, d, px, py, pz, first, dt, node_row, body_start,
                    body_count)
    return d


@kernel
def _box_edges_in(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_coef, vs, vt,
                  s_first, box_c, box_u, box_h, pair_i, pair_b, pair_f, q, nx, ny, nz, first, dt,
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
            box_u, box_h, pair_i, pair_b, pair_f, q, nx, ny, nz, px, py, pz, ax, ay, az, lx, ly, lz,
            first, dt, node_row, body_start, body_count, acc))
    return deepest


@hot_kernel
def _box_point(box_c, box_u, v, lx, ly, lz):
    """World position of the point with box coordinates ``l`` (metres) of box ``v``."""
    return (box_c[v, 0] + lx * box_u[v, 0, 0] + ly * box_u[v, 1, 0] + lz * box_u[v, 2, 0],
            box_c[v, 1] + lx * box_u[v, 0, 1] + ly * box_u[v, 1, 1] + lz * box_u[v, 2, 1],
            box_c[v, 2] + lx * box_u[v, 0, 2] + ly * box_u[v, 1, 2] + lz * box_u[v, 2, 2])


@kernel
def box_box(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_coef, va, vb, box_c,
            box_u, box_h, pair_i, pair_b, pair_f, q, first, dt, node_row, body_start, body_count,
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
    acc = np.zeros(ACC_SLOTS)
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
            d = _box_vertices_in(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_coef,
                                 vs, vt, s_first, box_c, box_u, box_h, pair_i, pair_b, pair_f, q,
                                 sg * nx, sg * ny, sg * nz, first, dt, node_row, body_start,
                                 body_count, acc, reverse)
        else:
            d = _box_edges_in(pos, prev, w, inv_mass, flags, ground_normal, vol_nodes, vol_coef, vs,
                              vt, s_first, box_c, box_u, box_h, pair_i, pair_b, pair_f, q, sg * nx,
                              sg * ny, sg * nz, first, dt, node_row, body_start, body_count, acc,
                              reverse)
        deepest = max(deepest, d)
    if acc[ACC_DEPTH] > 0.0:
        for k in range(SIDE_NODES):
            pair_f[q, COEF_A + k] = acc[ACC_A + k] / acc[ACC_DEPTH]
            pair_f[q, COEF_B + k] = acc[ACC_B + k] / acc[ACC_DEPTH]
        return deepest
    if kind != 2:
        # Crossed through each other with no vertex inside: part them at their centres.
        set_box_coefs(vol_coef, box_h, va, 0.0, 0.0, 0.0, pair_f, q, COEF_A)
        set_box_coefs(vol_coef, box_h, vb, 0.0, 0.0, 0.0, pair_f, q, COEF_B)
        return project_contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_b, pair_f,
                               q, nx, ny, nz, overlap, 0.5 * (box_c[va, 0] + box_c[vb, 0]),
                               0.5 * (box_c[va, 1] + box_c[vb, 1]),
                               0.5 * (box_c[va, 2] + box_c[vb, 2]), first, dt, node_row, body_start,
                               body_count)
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
    return project_contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_b, pair_f, q,
                           nx, ny, nz, overlap, px, py, pz, first, dt, node_row, body_start,
                           body_count)


@hot_kernel
def box_corner(box_c, box_u, box_h, v, corner):
    """World position of corner ``corner`` (bits 0-2 = sign of x, y, z) of box ``v``."""
    sx = box_h[v, 0] if corner & 1 else -box_h[v, 0]
    sy = box_h[v, 1] if corner & 2 else -box_h[v, 1]
    sz = box_h[v, 2] if corner & 4 else -box_h[v, 2]
    return _box_point(box_c, box_u, v, sx, sy, sz)
