"""Constraint projection kernels (Jakobsen 2001, sections 3-5; Horswill 2009, section VI.B).

Each function moves the nodes of one constraint to the nearest configuration that satisfies it,
sharing the correction by effective inverse mass ``w`` (0 = immovable). :func:`relax` repeats
them for K iterations (Gauss-Seidel relaxation).
"""

from __future__ import annotations

import math

import numpy as np

from twig.physics.flags import LOCK_ON_GROUND, LOCKED
from twig.physics.hot import hot_inline, hot_kernel, kernel

LINK_SQRT_APPROX = 1
"""``link_mode`` bit: use Jakobsen's square-root approximation (valid near the rest length)."""

@hot_kernel
def project_distance(pos, w, i, j, lo, hi, stiffness):
    """Bring ``|p_j - p_i|`` into ``[lo, hi]`` (Horswill 2009, eq. 3).

    Rigid links have ``lo == hi``; Jakobsen's inequality sticks have ``lo < hi`` (either may be
    0 or inf); a zero-length grab link has ``lo == hi == 0`` and merges the two nodes at their
    mass-weighted centre. ``stiffness`` in (0, 1] is the fraction of the error repaired.
    """
    dx, dy, dz, s, movable = _distance_correction(pos, w, i, j, lo, hi, stiffness)
    if movable:
        _rigid_apply(pos, w, i, j, dx, dy, dz, s)


@hot_kernel
def _distance_correction(pos, w, i, j, lo, hi, stiffness):
    """The offset ``p_j - p_i`` and the scale ``s`` of :func:`project_distance`'s correction,
    and False instead when the link cannot move (both ends immovable, or coincident)."""
    ws = w[i] + w[j]
    dx = pos[j, 0] - pos[i, 0]
    dy = pos[j, 1] - pos[i, 1]
    dz = pos[j, 2] - pos[i, 2]
    d = math.sqrt(dx * dx + dy * dy + dz * dz)
    if ws == 0.0 or d < 1e-12:
        # Coincident nodes have no direction to separate along; other constraints or the next
        # tick's motion part them (Jakobsen section 6 dislocates them instead).
        return dx, dy, dz, 0.0, False
    # Branch-free clamp (conditional moves): for a rigid link "too long or too short" is a coin
    # flip the CPU would mispredict half the time; a satisfied inequality gets zero correction.
    target = d if d > lo else lo
    target = target if target < hi else hi
    return dx, dy, dz, (d - target) * stiffness / (d * ws), True


@hot_kernel
def _rigid_correction(pos, w, i, j, rest):
    """The offset ``p_j - p_i`` and the scale ``s = (d - rest) / (d (w_i + w_j))`` of its
    correction (eq. 3 with an equality), and False instead when the link cannot move (both ends
    immovable, or coincident)."""
    ws = w[i] + w[j]
    dx = pos[j, 0] - pos[i, 0]
    dy = pos[j, 1] - pos[i, 1]
    dz = pos[j, 2] - pos[i, 2]
    d = math.sqrt(dx * dx + dy * dy + dz * dz)
    if ws == 0.0 or d < 1e-12:
        return dx, dy, dz, 0.0, False
    return dx, dy, dz, (d - rest) / (d * ws), True


@hot_kernel
def _rigid_apply(pos, w, i, j, dx, dy, dz, s):
    """Move node ``i`` by ``w_i s`` and node ``j`` by ``-w_j s`` times the offset."""
    wi = w[i] * s
    wj = w[j] * s
    pos[i, 0] += dx * wi
    pos[i, 1] += dy * wi
    pos[i, 2] += dz * wi
    pos[j, 0] -= dx * wj
    pos[j, 1] -= dy * wj
    pos[j, 2] -= dz * wj


@hot_kernel
def project_rigid(pos, w, i, j, rest):
    """Bring ``|p_j - p_i|`` to ``rest``: :func:`project_distance` for ``lo == hi == rest`` and
    ``stiffness == 1``, bit for bit, without the clamp and the stiffness factor.

    Rigid sticks are most links (every cloth and skeleton link), so :func:`relax` gives them this
    leaner loop: two fewer link columns streamed from memory and a shorter dependency chain per
    projection (Horswill 2009, eq. 3 with an equality).
    """
    dx, dy, dz, s, movable = _rigid_correction(pos, w, i, j, rest)
    if movable:
        _rigid_apply(pos, w, i, j, dx, dy, dz, s)


@hot_kernel
def _link_correction(pos, w, link_nodes, link_min, link_max, link_stiffness, k, rigid):
    """Link ``k``'s offset, correction scale and whether it moves: :func:`project_rigid`'s
    (``rigid``: only ``link_min`` is read) or :func:`project_distance`'s."""
    i = link_nodes[k, 0]
    j = link_nodes[k, 1]
    if rigid:
        return _rigid_correction(pos, w, i, j, link_min[k])
    return _distance_correction(pos, w, i, j, link_min[k], link_max[k], link_stiffness[k])


@hot_kernel
def project_link_run(pos, w, link_nodes, link_min, link_max, link_stiffness, start, end, rigid):
    """Links ``start .. end-1`` projected in order (:func:`project_rigid` with ``rigid``, else
    :func:`project_distance`), two at a time where consecutive links share no node (within a
    colour class they never do, see :mod:`twig.physics.ordering`): both corrections are
    computed before either is applied, so the CPU overlaps their square roots and divisions.
    Links without a common node commute, so the result is the sequential sweep's bit for bit,
    about 10 % sooner for rigid links.
    """
    k = start
    while k < end:
        i0 = link_nodes[k, 0]
        j0 = link_nodes[k, 1]
        dx0, dy0, dz0, s0, movable0 = _link_correction(pos, w, link_nodes, link_min, link_max,
                                                       link_stiffness, k, rigid)
        if k + 1 == end or link_nodes[k + 1, 0] in (i0, j0) or link_nodes[k + 1, 1] in (i0, j0):
            if movable0:
                _rigid_apply(pos, w, i0, j0, dx0, dy0, dz0, s0)
            k += 1
            continue
        dx1, dy1, dz1, s1, movable1 = _link_correction(pos, w, link_nodes, link_min, link_max,
                                                       link_stiffness, k + 1, rigid)
        if movable0:
            _rigid_apply(pos, w, i0, j0, dx0, dy0, dz0, s0)
        if movable1:
            _rigid_apply(pos, w, link_nodes[k + 1, 0], link_nodes[k + 1, 1], dx1, dy1, dz1, s1)
        k += 2


@kernel
def rigid_prefix(link_min, link_max, link_stiffness, n_exact):
    """Number of leading links that are rigid (``min == max``, ``stiffness == 1``).

    A scan of at most ``n_exact`` links, once per tick (not per iteration), so the fast path is
    exact for any link order: every cloth and rope link is rigid, so there it
    covers the whole sweep.
    """
    k = 0
    while k < n_exact and link_min[k] == link_max[k] and link_stiffness[k] == 1.0:
        k += 1
    return k


@hot_kernel
def project_distance_sqrt_approx(pos, w, i, j, rest):
    """Rigid link with the square root replaced by its first-order Taylor expansion at ``rest``.

    Jakobsen 2001, section 3: ``delta *= r^2 / (delta.delta + r^2) - 0.5`` (one division, no
    square root), weighted here by inverse mass.
    """
    ws = w[i] + w[j]
    if ws == 0.0:
        return
    dx = pos[j, 0] - pos[i, 0]
    dy = pos[j, 1] - pos[i, 1]
    dz = pos[j, 2] - pos[i, 2]
    r2 = rest * rest
    f = (r2 / (dx * dx + dy * dy + dz * dz + r2) - 0.5) * 2.0 / ws
    wi = w[i] * f
    wj = w[j] * f
    pos[i, 0] -= dx * wi
    pos[i, 1] -= dy * wi
    pos[i, 2] -= dz * wi
    pos[j, 0] += dx * wj
    pos[j, 1] += dy * wj
    pos[j, 2] += dz * wj


@hot_kernel
def project_hinge(pos, w, root, joint, end, f0, f1, f2, f3, plane, bend_min):
    """Knee/elbow joint limits: the hinge plane and the side the joint bends to.

    Horswill 2009, eq. 4-5 (the knee), when ``plane``: ``n = (r - e) x f`` normalised, with
    forward ``f = (p[f1] - p[f0]) x (p[f3] - p[f2])`` taken from the body's own nodes; the error
    ``dj = ((j - e).n) n`` is removed by moving the joint by ``-dj`` and the end by ``+dj``, each
    share weighted by inverse mass (the paper's halves for equal masses).

    Then, unless ``bend_min`` is ``-inf``, the anti-hyperextension limit: the joint's offset
    from the root-end line, measured along the part of ``f`` perpendicular to that line, must be
    at least ``bend_min`` metres (a knee bends forward, an elbow, given a backward ``f``, bends
    back). A violation is repaired along that direction with the PBD gradients ``b`` at the
    joint and ``-(1 - t) b``, ``-t b`` at root and end (``t`` the joint's place along the
    line), which keeps the mass-weighted centre.
    """
    ax = pos[f1, 0] - pos[f0, 0]
    ay = pos[f1, 1] - pos[f0, 1]
    az = pos[f1, 2] - pos[f0, 2]
    bx = pos[f3, 0] - pos[f2, 0]
    by = pos[f3, 1] - pos[f2, 1]
    bz = pos[f3, 2] - pos[f2, 2]
    fx = ay * bz - az * by
    fy = az * bx - ax * bz
    fz = ax * by - ay * bx
    if plane:
        _hinge_plane(pos, w, root, joint, end, fx, fy, fz)
    if bend_min > -math.inf:
        _bend_limit(pos, w, root, joint, end, fx, fy, fz, bx, by, bz, bend_min)


@hot_kernel
def _hinge_plane(pos, w, root, joint, end, fx, fy, fz):
    """Eq. 4-5: move the joint (and the end) into the plane of the limb and forward."""
    ws = w[joint] + w[end]
    if ws == 0.0:
        return
    rx = pos[root, 0] - pos[end, 0]
    ry = pos[root, 1] - pos[end, 1]
    rz = pos[root, 2] - pos[end, 2]
    nx = ry * fz - rz * fy
    ny = rz * fx - rx * fz
    nz = rx * fy - ry * fx
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    if nn < 1e-12:
        # Leg parallel to forward: the plane is undefined, nothing sensible to enforce.
        return
    nx /= nn
    ny /= nn
    nz /= nn
    e = ((pos[joint, 0] - pos[end, 0]) * nx + (pos[joint, 1] - pos[end, 1]) * ny
         + (pos[joint, 2] - pos[end, 2]) * nz) / ws
    sj = w[joint] * e
    se = w[end] * e
    pos[joint, 0] -= nx * sj
    pos[joint, 1] -= ny * sj
    pos[joint, 2] -= nz * sj
    pos[end, 0] += nx * se
    pos[end, 1] += ny * se
    pos[end, 2] += nz * se


@hot_kernel
def _bend_limit(pos, w, root, joint, end, fx, fy, fz, ux, uy, uz, bend_min):
    """One-sided limit: ``(j - line).b >= bend_min`` with ``b`` the unit part of ``f``
    perpendicular to the root-end line. It fades out where the limb points along ``f`` (no
    side is defined) and where it points up along ``u = p[f3] - p[f2]`` (an arm raised above
    the shoulder may bend either way), so the joint is never snapped across.

    The limit is tested before the fade is worked out: most joints of a pile keep it, and
    the fade costs three square roots and four divisions (a limb along ``f`` gives ``b = 0``
    and a NaN offset, which fails the test and then fades out)."""
    lx = pos[end, 0] - pos[root, 0]
    ly = pos[end, 1] - pos[root, 1]
    lz = pos[end, 2] - pos[root, 2]
    ll = lx * lx + ly * ly + lz * lz
    if ll < 1e-12:
        return
    k = (fx * lx + fy * ly + fz * lz) / ll
    bx = fx - k * lx
    by = fy - k * ly
    bz = fz - k * lz
    bl = math.sqrt(bx * bx + by * by + bz * bz)
    nbx = bx / bl
    nby = by / bl
    nbz = bz / bl
    jx = pos[joint, 0] - pos[root, 0]
    jy = pos[joint, 1] - pos[root, 1]
    jz = pos[joint, 2] - pos[root, 2]
    c = jx * nbx + jy * nby + jz * nbz - bend_min
    if c >= 0.0:
        return
    fl = math.sqrt(fx * fx + fy * fy + fz * fz)
    if fl < 1e-12:
        return
    # Near a limb along forward, which side is "forward" is ill-defined: the limit fades out
    # (fully off within ~12 degrees of it) instead of switching, which would snap the joint.
    fade = min(1.0, max(0.0, (bl / fl - 0.2) / 0.3))
    ul = math.sqrt(ux * ux + uy * uy + uz * uz)
    if ul > 1e-12:
        rise = (ux * lx + uy * ly + uz * lz) / (ul * math.sqrt(ll))
        fade *= min(1.0, max(0.0, (0.3 - rise) / 0.3))
    if fade == 0.0:
        return
    t = (jx * lx + jy * ly + jz * lz) / ll
    t = min(1.0, max(0.0, t))
    denom = w[joint] + w[root] * (1.0 - t) * (1.0 - t) + w[end] * t * t
    if denom == 0.0:
        return
    lam = -c * fade / denom
    sj = w[joint] * lam
    sr = -w[root] * (1.0 - t) * lam
    se = -w[end] * t * lam
    pos[joint, 0] += nbx * sj
    pos[joint, 1] += nby * sj
    pos[joint, 2] += nbz * sj
    pos[root, 0] += nbx * sr
    pos[root, 1] += nby * sr
    pos[root, 2] += nbz * sr
    pos[end, 0] += nbx * se
    pos[end, 1] += nby * se
    pos[end, 2] += nbz * se


@hot_kernel
def project_angle(pos, w, a, b, c, cos_lo, cos_hi):
    """Keep the angle at ``b`` between ``a - b`` and ``c - b`` within a dot-product range.

    Jakobsen 2001, section 5 (dot product constraint): ``cos_lo <= u.v <= cos_hi`` with ``u, v``
    the unit vectors from ``b``. Enforced through the ``a``-``c`` distance given by the law of
    cosines at the current arm lengths, so ``b`` (the joint) is not pushed.
    """
    ux = pos[a, 0] - pos[b, 0]
    uy = pos[a, 1] - pos[b, 1]
    uz = pos[a, 2] - pos[b, 2]
    vx = pos[c, 0] - pos[b, 0]
    vy = pos[c, 1] - pos[b, 1]
    vz = pos[c, 2] - pos[b, 2]
    la = math.sqrt(ux * ux + uy * uy + uz * uz)
    lc = math.sqrt(vx * vx + vy * vy + vz * vz)
    if la < 1e-12 or lc < 1e-12:
        return
    cos = (ux * vx + uy * vy + uz * vz) / (la * lc)
    if cos > cos_hi:
        target_cos = cos_hi
    elif cos < cos_lo:
        target_cos = cos_lo
    else:
        return
    target = math.sqrt(max(0.0, la * la + lc * lc - 2.0 * la * lc * target_cos))
    project_distance(pos, w, a, c, target, target, 1.0)


@kernel
def project_planes(pos, w, radius, flags, lock_pos, plane_normal, plane_offset, plane_friction,
                   depth, contact_normal, contact_friction):
    """Push nodes out of every static half-space ``n.p < offset + radius`` (Jakobsen C1).

    Accumulates each node's normal correction in ``depth`` (for friction) and remembers the
    normal and friction of the plane; a LOCK_ON_GROUND node becomes LOCKED where it lands.
    """
    for k in range(plane_normal.shape[0]):
        nx = plane_normal[k, 0]
        ny = plane_normal[k, 1]
        nz = plane_normal[k, 2]
        off = plane_offset[k]
        for i in range(pos.shape[0]):
            pen = off + radius[i] - (pos[i, 0] * nx + pos[i, 1] * ny + pos[i, 2] * nz)
            if pen <= 0.0 or w[i] == 0.0:
                continue
            pos[i, 0] += nx * pen
            pos[i, 1] += ny * pen
            pos[i, 2] += nz * pen
            depth[i] += pen
            contact_normal[i, 0] = nx
            contact_normal[i, 1] = ny
            contact_normal[i, 2] = nz
            contact_friction[i] = plane_friction[k]
            if flags[i] & LOCK_ON_GROUND:
                flags[i] |= LOCKED
                lock_pos[i, 0] = pos[i, 0]
                lock_pos[i, 1] = pos[i, 1]
                lock_pos[i, 2] = pos[i, 2]
                w[i] = 0.0


@kernel
def relax(pos, w, radius, flags, lock_pos, link_nodes, link_min, link_max, link_stiffness,
          n_rigid, n_exact, hinge_nodes, hinge_plane, hinge_bend, angle_nodes, angle_cos,
          plane_normal, plane_offset, plane_friction, iterations, depth, contact_normal,
          contact_friction):
    """K Gauss-Seidel relaxation iterations over all constraints (Jakobsen 2001, section 4).

    The link arrays come already permuted into solver order (a node-disjoint colouring, see
    :mod:`twig.physics.ordering`) so the sweep reads them sequentially; then come hinges, angle
    limits and finally the static planes so that non-penetration holds when the loop ends.
    ``link_stiffness`` is the per-iteration fraction already derived from the per-tick one.
    The first ``n_exact`` links are solved exactly, the rest with the square-root approximation;
    the leading ``n_rigid`` of them, rigid (``min == max``, stiffness 1; all of them for a
    cloth; see :func:`rigid_prefix`), take the lean :func:`project_rigid` loop (separate loops
    instead of a test per link). The tick calls this once per iteration, between contacts.
    """
    for _ in range(iterations):
        project_link_run(pos, w, link_nodes, link_min, link_max, link_stiffness, 0, n_rigid,
                         True)
        project_link_run(pos, w, link_nodes, link_min, link_max, link_stiffness, n_rigid,
                         n_exact, False)
        for k in range(n_exact, link_nodes.shape[0]):
            project_distance_sqrt_approx(pos, w, link_nodes[k, 0], link_nodes[k, 1], link_min[k])
        for h in range(hinge_nodes.shape[0]):
            project_hinge(pos, w, hinge_nodes[h, 0], hinge_nodes[h, 1], hinge_nodes[h, 2],
                          hinge_nodes[h, 3], hinge_nodes[h, 4], hinge_nodes[h, 5],
                          hinge_nodes[h, 6], hinge_plane[h], hinge_bend[h])
        for a in range(angle_nodes.shape[0]):
            project_angle(pos, w, angle_nodes[a, 0], angle_nodes[a, 1], angle_nodes[a, 2],
                          angle_cos[a, 0], angle_cos[a, 1])
        project_planes(pos, w, radius, flags, lock_pos, plane_normal, plane_offset,
                       plane_friction, depth, contact_normal, contact_friction)


@kernel
def relax_marked(pos, w, radius, flags, lock_pos, link_nodes, link_min, link_max,
                 link_stiffness, n_rigid, n_exact, marked, plane_normal, plane_offset,
                 plane_friction, depth, contact_normal, contact_friction):
    """One more sweep over the links that touch a ``marked`` node ((N,) uint8), then the
    planes: after ground friction, it gives the links of the nodes friction slowed the last
    word, so a heap of limbs on the ground does not rest with its links stretched (friction
    would otherwise cut the sideways repairs the constraints made). Links elsewhere are not
    touched, so distant bodies do not change each other's motion."""
    sweep_rows(pos, w, link_nodes, link_min, link_max, link_stiffness, n_rigid, n_exact,
               marked_rows(link_nodes, marked), marked)
    project_planes(pos, w, radius, flags, lock_pos, plane_normal, plane_offset, plane_friction,
                   depth, contact_normal, contact_friction)


@kernel
def marked_rows(link_nodes, marked):
    """The rows (solver order) of the links that touch a ``marked`` node ((N,) uint8)."""
    rows = np.empty(link_nodes.shape[0], dtype=np.int64)
    count = 0
    for k in range(link_nodes.shape[0]):  # branch-free: a mispredicted test per link costs more
        rows[count] = k
        count += marked[link_nodes[k, 0]] | marked[link_nodes[k, 1]]
    return rows[:count]


@hot_kernel
def sweep_rows(pos, w, link_nodes, link_min, link_max, link_stiffness, n_rigid, n_exact, rows,
               marked):
    """One Gauss-Seidel sweep over the links ``rows`` (solver order) that touch a ``marked``
    node ((N,) uint8) (:func:`project_link`)."""
    for r in range(rows.shape[0]):
        k = rows[r]
        i = link_nodes[k, 0]
        j = link_nodes[k, 1]
        if marked[i] or marked[j]:
            project_link(pos, w, i, j, link_min[k], link_max[k], link_stiffness[k],
                         k < n_rigid, k < n_exact)


@hot_inline
def project_link(pos, w, i, j, lo, hi, stiffness, rigid, exact):
    """Project the link between nodes ``i`` and ``j`` with its own projection: ``rigid``
    (:func:`project_rigid`), else ``exact`` (:func:`project_distance`), else square-root
    approximated (:func:`project_distance_sqrt_approx`)."""
    if rigid:
        project_rigid(pos, w, i, j, lo)
    elif exact:
        project_distance(pos, w, i, j, lo, hi, stiffness)
    else:
        project_distance_sqrt_approx(pos, w, i, j, lo)
