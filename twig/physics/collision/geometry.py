"""Closest points and penetration between collision volumes (narrow-phase geometry).

Volumes are capsules (a segment with a radius; a sphere is a capsule of zero length) and oriented
boxes given by a centre, three unit axes and half extents. Every function works on scalars and
small tuples so that Numba keeps them in registers; distances are in metres.

Horswill 2009 (section VI.D) finds the link/link contact normal from the cross product of the two
segment directions, which is undefined for parallel links and wrong when the segments' closest
points are at their ends; here the normal is the direction between the true closest points
(Ericson, *Real-Time Collision Detection*, 5.1.9), with the parallel and degenerate cases handled
explicitly.
"""

from __future__ import annotations

import math

import numpy as np

from twig.physics.hot import inline_kernel, kernel

EPS = 1e-12
"""Squared lengths below this count as zero (degenerate segments, coincident points)."""


@kernel
def _clamp01(x):
    return 0.0 if x < 0.0 else (1.0 if x > 1.0 else x)


@inline_kernel
def closest_params_segments(p1x, p1y, p1z, q1x, q1y, q1z, p2x, p2y, p2z, q2x, q2y, q2z):
    """Parameters ``(s, t)`` in [0, 1] of the closest points ``p1 + s d1`` and ``p2 + t d2``.

    Ericson 5.1.9, with one change for (near-)parallel segments: instead of an arbitrary end,
    ``s`` is the middle of the overlap of the two segments along the first, so that two capsules
    lying side by side are pushed apart at the centre of their overlap and do not spin.
    """
    d1x = q1x - p1x
    d1y = q1y - p1y
    d1z = q1z - p1z
    d2x = q2x - p2x
    d2y = q2y - p2y
    d2z = q2z - p2z
    rx = p1x - p2x
    ry = p1y - p2y
    rz = p1z - p2z
    a = d1x * d1x + d1y * d1y + d1z * d1z
    e = d2x * d2x + d2y * d2y + d2z * d2z
    f = d2x * rx + d2y * ry + d2z * rz
    if a <= EPS and e <= EPS:
        return 0.0, 0.0
    if a <= EPS:
        return 0.0, _clamp01(f / e)
    c = d1x * rx + d1y * ry + d1z * rz
    if e <= EPS:
        return _clamp01(-c / a), 0.0
    b = d1x * d2x + d1y * d2y + d1z * d2z
    denom = a * e - b * b
    if denom > 1e-9 * a * e:
        s = _clamp01((b * f - c * e) / denom)
    else:
        # Parallel: the second segment's ends project to u0, u1 on the first's parameter.
        u0 = -c / a
        u1 = (b - c) / a
        lo = min(u0, u1)
        hi = max(u0, u1)
        lo = 0.0 if lo < 0.0 else lo
        hi = 1.0 if hi > 1.0 else hi
        s = 0.5 * (lo + hi) if lo <= hi else _clamp01(0.5 * (u0 + u1))
    t = (b * s + f) / e
    if t < 0.0:
        t = 0.0
        s = _clamp01(-c / a)
    elif t > 1.0:
        t = 1.0
        s = _clamp01((b - c) / a)
    return s, t


@kernel
def fallback_normal(d1x, d1y, d1z, d2x, d2y, d2z, ox, oy, oz):
    """A unit separation direction when the closest points coincide (cores intersect).

    The cross product of the two directions if it exists (the paper's normal), else any
    perpendicular of the longer direction, else +y; signed so that it points along the offset
    ``o`` between the volumes' centres (from the second volume to the first).
    """
    nx = d1y * d2z - d1z * d2y
    ny = d1z * d2x - d1x * d2z
    nz = d1x * d2y - d1y * d2x
    nn = nx * nx + ny * ny + nz * nz
    if nn <= EPS * max(1e-300, (d1x * d1x + d1y * d1y + d1z * d1z)
                       * (d2x * d2x + d2y * d2y + d2z * d2z)) or nn <= EPS * EPS:
        # Parallel or degenerate: perpendicular of the longer direction toward the offset.
        if d1x * d1x + d1y * d1y + d1z * d1z < d2x * d2x + d2y * d2y + d2z * d2z:
            d1x, d1y, d1z = d2x, d2y, d2z
        dd = d1x * d1x + d1y * d1y + d1z * d1z
        if dd <= EPS:
            nx, ny, nz = ox, oy, oz
        else:
            k = (ox * d1x + oy * d1y + oz * d1z) / dd
            nx, ny, nz = ox - k * d1x, oy - k * d1y, oz - k * d1z
            if nx * nx + ny * ny + nz * nz <= EPS:
                # Offset along the direction too: any perpendicular of d1.
                if abs(d1x) < 0.9 * math.sqrt(dd):
                    nx, ny, nz = 0.0, -d1z, d1y
                else:
                    nx, ny, nz = d1z, 0.0, -d1x
        nn = nx * nx + ny * ny + nz * nz
        if nn <= EPS * EPS:
            return 0.0, 1.0, 0.0
    inv = 1.0 / math.sqrt(nn)
    if nx * ox + ny * oy + nz * oz < 0.0:
        inv = -inv
    return nx * inv, ny * inv, nz * inv


@kernel
def segment_box(ax, ay, az, bx, by, bz, box_c, box_u, box_h, v, hx, hy, hz):
    """Closest approach of the segment ``a``-``b`` to the solid box ``v``.

    ``box_c`` (V, 3) centres, ``box_u`` (V, 3, 3) rows = unit axes, ``box_h`` (V, 3) half
    extents. Returns ``(dist, t, lx, ly, lz, nx, ny, nz)``: when the segment misses the box,
    ``dist`` > 0 is the exact distance, ``t`` the segment parameter of the closest point,
    ``l`` the closest box point in box coordinates and ``n`` the unit world direction from the
    box to the segment; when the segment enters the box, ``dist`` = ``-depth`` <= 0 where
    ``depth`` is the smallest translation along ``n`` that separates the segment from the box
    (or, given a motion hint ``h`` = the segment's displacement relative to the box this tick,
    not all zeros, the translation back out through the face it came in by: a fast, deep entry
    is undone the way it happened, not through the nearest side), ``t`` the parameter of its
    deepest point and ``l`` that point in box coordinates.

    The squared distance from the box is a convex piecewise quadratic in ``t`` with breaks
    where the segment crosses a slab boundary; each piece is minimised in closed form.
    """
    # Segment in box coordinates: x(t) = A + t B.
    A = np.empty(3)
    B = np.empty(3)
    for i in range(3):
        A[i] = ((ax - box_c[v, 0]) * box_u[v, i, 0] + (ay - box_c[v, 1]) * box_u[v, i, 1]
                + (az - box_c[v, 2]) * box_u[v, i, 2])
        B[i] = ((bx - ax) * box_u[v, i, 0] + (by - ay) * box_u[v, i, 1]
                + (bz - az) * box_u[v, i, 2])
    brk = np.empty(8)
    brk[0] = 0.0
    nb = 1
    for i in range(3):
        if B[i] != 0.0:
            for sgn in (-1.0, 1.0):
                tb = (sgn * box_h[v, i] - A[i]) / B[i]
                if 0.0 < tb < 1.0:
                    brk[nb] = tb
                    nb += 1
    brk[nb] = 1.0
    nb += 1
    brk[:nb].sort()
    best_t = 0.0
    best = math.inf
    # A flat stretch of minimal distance (a capsule lying along a face) is reported at its
    # middle, so the contact sits under the capsule's centre instead of at one end.
    flat_lo = 0.0
    flat_hi = -1.0
    for k in range(nb - 1):
        t0 = brk[k]
        t1 = brk[k + 1]
        tm = 0.5 * (t0 + t1)
        num = 0.0
        den = 0.0
        for i in range(3):
            x = A[i] + tm * B[i]
            if x > box_h[v, i]:
                num += (A[i] - box_h[v, i]) * B[i]
                den += B[i] * B[i]
            elif x < -box_h[v, i]:
                num += (A[i] + box_h[v, i]) * B[i]
                den += B[i] * B[i]
        tt = t0 if den == 0.0 else min(max(-num / den, t0), t1)
        d2 = 0.0
        for i in range(3):
            x = A[i] + tt * B[i]
            g = x - box_h[v, i] if x > box_h[v, i] else (
                x + box_h[v, i] if x < -box_h[v, i] else 0.0)
            d2 += g * g
        if d2 < best - 1e-15:
            best = d2
            best_t = tt
            flat_lo, flat_hi = (t0, t1) if den == 0.0 else (tt, -1.0)
        elif den == 0.0 and d2 <= best + 1e-15 and flat_hi >= 0.0 and t0 <= flat_hi + 1e-12:
            flat_hi = t1
    if flat_hi >= flat_lo:
        best_t = 0.5 * (flat_lo + flat_hi)
    if best > 0.0:
        lx = min(max(A[0] + best_t * B[0], -box_h[v, 0]), box_h[v, 0])
        ly = min(max(A[1] + best_t * B[1], -box_h[v, 1]), box_h[v, 1])
        lz = min(max(A[2] + best_t * B[2], -box_h[v, 2]), box_h[v, 2])
        gx = A[0] + best_t * B[0] - lx
        gy = A[1] + best_t * B[1] - ly
        gz = A[2] + best_t * B[2] - lz
        dist = math.sqrt(best)
        nx = (gx * box_u[v, 0, 0] + gy * box_u[v, 1, 0] + gz * box_u[v, 2, 0]) / dist
        ny = (gx * box_u[v, 0, 1] + gy * box_u[v, 1, 1] + gz * box_u[v, 2, 1]) / dist
        nz = (gx * box_u[v, 0, 2] + gy * box_u[v, 1, 2] + gz * box_u[v, 2, 2]) / dist
        return dist, best_t, lx, ly, lz, nx, ny, nz
    # The segment enters the box: clip it to the box (Liang-Barsky) ...
    t_in = 0.0
    t_out = 1.0
    for i in range(3):
        if B[i] != 0.0:
            ta = (-box_h[v, i] - A[i]) / B[i]
            tb = (box_h[v, i] - A[i]) / B[i]
            if ta > tb:
                ta, tb = tb, ta
            t_in = max(t_in, ta)
            t_out = min(t_out, tb)
    if t_out < t_in:
        t_out = t_in = best_t
    # ... and find the smallest translation that separates the segment from the box: the
    # separating-axis test over the box's faces and the segment direction crossed with each
    # box axis (a segment piercing a box diagonally may leave most cheaply sideways).
    t_deep = 0.5 * (t_in + t_out)
    mx = A[0] + 0.5 * B[0]
    my = A[1] + 0.5 * B[1]
    mz = A[2] + 0.5 * B[2]
    hint = hx != 0.0 or hy != 0.0 or hz != 0.0
    # The hint in box coordinates.
    gx = hx * box_u[v, 0, 0] + hy * box_u[v, 0, 1] + hz * box_u[v, 0, 2]
    gy = hx * box_u[v, 1, 0] + hy * box_u[v, 1, 1] + hz * box_u[v, 1, 2]
    gz = hx * box_u[v, 2, 0] + hy * box_u[v, 2, 1] + hz * box_u[v, 2, 2]
    depth = math.inf
    best_entry = math.inf
    lx0 = 0.0
    ly0 = 1.0
    lz0 = 0.0
    for k in range(6):
        if k < 3:
            ax_ = 1.0 if k == 0 else 0.0
            ay_ = 1.0 if k == 1 else 0.0
            az_ = 1.0 if k == 2 else 0.0
        else:
            # (segment direction) x (box axis k - 3), in box coordinates.
            ex = 1.0 if k == 3 else 0.0
            ey = 1.0 if k == 4 else 0.0
            ez = 1.0 if k == 5 else 0.0
            ax_ = B[1] * ez - B[2] * ey
            ay_ = B[2] * ex - B[0] * ez
            az_ = B[0] * ey - B[1] * ex
            ll = math.sqrt(ax_ * ax_ + ay_ * ay_ + az_ * az_)
            if ll < 1e-9 or hint:
                continue
            ax_ /= ll
            ay_ /= ll
            az_ /= ll
        rb = box_h[v, 0] * abs(ax_) + box_h[v, 1] * abs(ay_) + box_h[v, 2] * abs(az_)
        rs = 0.5 * abs(B[0] * ax_ + B[1] * ay_ + B[2] * az_)
        dist = mx * ax_ + my * ay_ + mz * az_
        overlap = rb + rs - abs(dist)
        sgn = 1.0 if dist >= 0.0 else -1.0
        if hint:
            # A fast entry is undone through the face it came in by.
            entry = min(gx * ax_ + gy * ay_ + gz * az_, -(gx * ax_ + gy * ay_ + gz * az_))
            sgn = 1.0 if gx * ax_ + gy * ay_ + gz * az_ <= 0.0 else -1.0
            overlap = rb + rs - sgn * dist
            if entry < best_entry:
                best_entry = entry
                depth = overlap
                lx0, ly0, lz0 = sgn * ax_, sgn * ay_, sgn * az_
        elif overlap < depth:
            depth = overlap
            lx0, ly0, lz0 = sgn * ax_, sgn * ay_, sgn * az_
    lx = A[0] + t_deep * B[0]
    ly = A[1] + t_deep * B[1]
    lz = A[2] + t_deep * B[2]
    nx = lx0 * box_u[v, 0, 0] + ly0 * box_u[v, 1, 0] + lz0 * box_u[v, 2, 0]
    ny = lx0 * box_u[v, 0, 1] + ly0 * box_u[v, 1, 1] + lz0 * box_u[v, 2, 1]
    nz = lx0 * box_u[v, 0, 2] + ly0 * box_u[v, 1, 2] + lz0 * box_u[v, 2, 2]
    return -max(depth, 0.0), t_deep, lx, ly, lz, nx, ny, nz


@kernel
def box_projection_radius(box_u, box_h, v, nx, ny, nz):
    """Half the extent of box ``v`` along the unit direction ``n``: ``sum_i h_i |u_i . n|``."""
    r = 0.0
    for i in range(3):
        r += box_h[v, i] * abs(box_u[v, i, 0] * nx + box_u[v, i, 1] * ny + box_u[v, i, 2] * nz)
    return r


@kernel
def box_separating_axis(box_c, box_u, box_h, va, vb):
    """Separating-axis test of boxes ``va`` and ``vb`` over their 15 candidate axes.

    Returns ``(overlap, nx, ny, nz, kind, i, j)``: the smallest overlap along any axis (<= 0
    means separated), that unit axis pointing from ``vb`` to ``va``, and which axis it is
    (kind 0: face of ``va`` number ``i``; 1: face of ``vb`` number ``j``; 2: the cross product
    of edge ``i`` of ``va`` and edge ``j`` of ``vb``). Face axes win near-ties so that resting
    boxes keep a stable face contact.
    """
    dx = box_c[va, 0] - box_c[vb, 0]
    dy = box_c[va, 1] - box_c[vb, 1]
    dz = box_c[va, 2] - box_c[vb, 2]
    best = math.inf
    bx = 0.0
    by = 1.0
    bz = 0.0
    kind = 0
    bi = 0
    bj = 0
    for k in range(15):
        if k < 3:
            lx, ly, lz = box_u[va, k, 0], box_u[va, k, 1], box_u[va, k, 2]
        elif k < 6:
            lx, ly, lz = box_u[vb, k - 3, 0], box_u[vb, k - 3, 1], box_u[vb, k - 3, 2]
        else:
            i = (k - 6) // 3
            j = (k - 6) % 3
            ux, uy, uz = box_u[va, i, 0], box_u[va, i, 1], box_u[va, i, 2]
            wx, wy, wz = box_u[vb, j, 0], box_u[vb, j, 1], box_u[vb, j, 2]
            lx = uy * wz - uz * wy
            ly = uz * wx - ux * wz
            lz = ux * wy - uy * wx
            ll = lx * lx + ly * ly + lz * lz
            if ll < 1e-6:
                continue
            inv = 1.0 / math.sqrt(ll)
            lx *= inv
            ly *= inv
            lz *= inv
        dist = dx * lx + dy * ly + dz * lz
        overlap = (box_projection_radius(box_u, box_h, va, lx, ly, lz)
                   + box_projection_radius(box_u, box_h, vb, lx, ly, lz) - abs(dist))
        if overlap <= 0.0:
            return overlap, lx, ly, lz, -1, 0, 0
        # Edge axes must beat faces clearly (5 %) to be chosen.
        if overlap < (best if k < 6 else 0.95 * best):
            best = overlap
            sgn = 1.0 if dist >= 0.0 else -1.0
            bx, by, bz = sgn * lx, sgn * ly, sgn * lz
            if k < 3:
                kind, bi, bj = 0, k, 0
            elif k < 6:
                kind, bi, bj = 1, 0, k - 3
            else:
                kind, bi, bj = 2, (k - 6) // 3, (k - 6) % 3
    return best, bx, by, bz, kind, bi, bj


@kernel
def point_in_box(box_c, box_u, box_h, v, px, py, pz, tol):
    """Box coordinates of ``p`` and whether it lies inside box ``v`` grown by ``tol``."""
    rx = px - box_c[v, 0]
    ry = py - box_c[v, 1]
    rz = pz - box_c[v, 2]
    lx = rx * box_u[v, 0, 0] + ry * box_u[v, 0, 1] + rz * box_u[v, 0, 2]
    ly = rx * box_u[v, 1, 0] + ry * box_u[v, 1, 1] + rz * box_u[v, 1, 2]
    lz = rx * box_u[v, 2, 0] + ry * box_u[v, 2, 1] + rz * box_u[v, 2, 2]
    inside = (abs(lx) <= box_h[v, 0] + tol and abs(ly) <= box_h[v, 1] + tol
              and abs(lz) <= box_h[v, 2] + tol)
    return inside, lx, ly, lz
