"""Capsule-capsule contacts (spheres are capsules of zero length), the common case of a pile.

The same contact as any other pair (see ``projection.project_contact``: record it, cap the
depenetration, measure the impact, wake the sleeping, project by Jakobsen's rule; limbs grip after
the relaxation, in ``response.contact_friction``), here for two capsules in one pass over their
four nodes kept in local variables. The general path calls a dozen helpers per contact that take
arrays, each call counting references with atomic instructions; these kernels are
:data:`~twig.physics.hot.hot_kernel` and their helpers take scalars. A property test checks them
against the general path (tests/physics/test_capsules.py; to rounding: see
:data:`~twig.physics.hot.FAST_MATH`).

Horswill 2009, section VI.D (links as cylinders); Jakobsen 2001, section 6 (``p = c1 x1 + c2
x2``).
"""

from __future__ import annotations

import math

from twig.physics.collision.geometry import closest_params_segments, fallback_normal
from twig.physics.collision.pair_table import (
    ALLOWED,
    AT_A0,
    AT_A1,
    AT_B0,
    AT_B1,
    COEF_A,
    COEF_B,
    DEPTH,
    DISTANCE,
    ENERGY,
    GAP,
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
    SEEN,
    X,
    Y,
    Z,
)
from twig.physics.collision.response import (
    LEVER,
    SELF_APPROACH,
    WAKE_DEPTH,
    WAKE_SPEED,
    capsule_row,
)
from twig.physics.collision.sleep import wake_body
from twig.physics.flags import ASLEEP, GROUNDED, MOVING, STIFF, YIELDING
from twig.physics.hot import hot_inline, hot_kernel


@hot_kernel
def box_separation(pos, a0, a1, b0, b1):
    """How far apart (m) the boxes around the core segments ``a0``-``a1`` and ``b0``-``b1``
    are along the axis that separates them most (negative: they overlap). It bounds the
    distance between the segments from below. Branch-free: in a pile the test on it fails or
    passes unpredictably."""
    sep = -math.inf
    for c in range(3):
        lo_a = min(pos[a0, c], pos[a1, c])
        hi_a = max(pos[a0, c], pos[a1, c])
        lo_b = min(pos[b0, c], pos[b1, c])
        hi_b = max(pos[b0, c], pos[b1, c])
        sep = max(sep, lo_a - hi_b, lo_b - hi_a)
    return sep


@hot_inline
def segment_params(pos, a0, a1, b0, b1):
    """Parameters ``(s, t)`` of the closest points of the core segments ``a0``-``a1`` and
    ``b0``-``b1`` (:func:`~twig.physics.collision.geometry.closest_params_segments`)."""
    return closest_params_segments(pos[a0, 0], pos[a0, 1], pos[a0, 2], pos[a1, 0], pos[a1, 1],
                                   pos[a1, 2], pos[b0, 0], pos[b0, 1], pos[b0, 2], pos[b1, 0],
                                   pos[b1, 1], pos[b1, 2])


@hot_inline
def distance_at(pos, a0, a1, b0, b1, s, t):
    """Distance (m) between the points at parameters ``s`` and ``t`` of the core segments
    ``a0``-``a1`` and ``b0``-``b1``."""
    dx = pos[a0, 0] + s * (pos[a1, 0] - pos[a0, 0]) - (pos[b0, 0] + t * (pos[b1, 0] - pos[b0, 0]))
    dy = pos[a0, 1] + s * (pos[a1, 1] - pos[a0, 1]) - (pos[b0, 1] + t * (pos[b1, 1] - pos[b0, 1]))
    dz = pos[a0, 2] + s * (pos[a1, 2] - pos[a0, 2]) - (pos[b0, 2] + t * (pos[b1, 2] - pos[b0, 2]))
    return math.sqrt(dx * dx + dy * dy + dz * dz)


@hot_kernel
def remember_at(pos, memory, q, k, a0, a1, b0, b1, value):
    """Write the :data:`~twig.physics.collision.pair_table.MEMORY` that starts at slot ``k``
    of ``memory`` row ``q``: ``value`` (a distance, m) and where nodes ``a0``, ``a1``, ``b0``,
    ``b1`` are now (see :func:`drift`)."""
    memory[q, k + DISTANCE] = value
    _remember_node(pos, memory, q, k + AT_A0, a0)
    _remember_node(pos, memory, q, k + AT_A1, a1)
    _remember_node(pos, memory, q, k + AT_B0, b0)
    _remember_node(pos, memory, q, k + AT_B1, b1)


@hot_kernel
def _remember_node(pos, memory, q, k, i):
    """Write where node ``i`` is now (m) to ``memory[q, k:k + 3]``."""
    memory[q, k + X] = pos[i, 0]
    memory[q, k + Y] = pos[i, 1]
    memory[q, k + Z] = pos[i, 2]


@hot_kernel
def drift(pos, memory, q, k, a0, a1, b0, b1):
    """How much closer segments ``a0``-``a1`` and ``b0``-``b1`` can have come since
    :func:`remember_at` wrote slot ``k`` of ``memory`` row ``q`` (m).

    Moving a segment's ends by at most ``m`` moves every point of it, at the same parameter,
    by at most ``m``; so the distance between two segments changes by at most the largest end
    displacement of each, whatever the segments are. A displacement is bounded by the sum of
    its coordinate changes (cheaper than a square root)."""
    return (max(_l1_moved(pos, memory, q, k + AT_A0, a0), _l1_moved(pos, memory, q, k + AT_A1, a1))
            + max(_l1_moved(pos, memory, q, k + AT_B0, b0),
                  _l1_moved(pos, memory, q, k + AT_B1, b1)))


@hot_kernel
def _l1_moved(pos, memory, q, k, i):
    """Sum of node ``i``'s coordinate changes since ``memory[q, k:k + 3]``, metres."""
    return (abs(pos[i, 0] - memory[q, k + X]) + abs(pos[i, 1] - memory[q, k + Y])
            + abs(pos[i, 2] - memory[q, k + Z]))


@hot_kernel
def still_apart(pos, pair_i, pair_f, q):
    """True when capsule row ``q`` surely does not touch: the gap last measured (``SEEN``)
    exceeds how far its nodes have moved since (:func:`drift`; 1 nm of slack covers rounding).
    A later iteration thus skips, for 10 ns instead of 80, the exact test of a pair that was
    near but not touching."""
    return pair_f[q, SEEN + DISTANCE] - drift(
        pos, pair_f, q, SEEN, pair_i[q, NODES_A + N0], pair_i[q, NODES_A + N1],
        pair_i[q, NODES_B + N0], pair_i[q, NODES_B + N1]) > 1e-9


@hot_inline
def capsule_contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_b, pair_f, q, ra, rb,
                    s, t, first, dt, node_row, body_start, body_count):
    """Find and project the contact of capsule row ``q`` (radii ``ra``, ``rb`` in metres)
    whose core segments are closest at parameters ``s`` and ``t`` (:func:`segment_params`):
    the normal between those points, the depth; then :func:`_respond`. ``first`` records the
    gap and the impact (the first projection of the tick). Returns the separation pushed (m;
    0 when apart)."""
    a0 = pair_i[q, NODES_A + N0]
    a1 = pair_i[q, NODES_A + N1]
    b0 = pair_i[q, NODES_B + N0]
    b1 = pair_i[q, NODES_B + N1]
    qx = pos[b0, 0] + t * (pos[b1, 0] - pos[b0, 0])
    qy = pos[b0, 1] + t * (pos[b1, 1] - pos[b0, 1])
    qz = pos[b0, 2] + t * (pos[b1, 2] - pos[b0, 2])
    dx = pos[a0, 0] + s * (pos[a1, 0] - pos[a0, 0]) - qx
    dy = pos[a0, 1] + s * (pos[a1, 1] - pos[a0, 1]) - qy
    dz = pos[a0, 2] + s * (pos[a1, 2] - pos[a0, 2]) - qz
    d = math.sqrt(dx * dx + dy * dy + dz * dz)
    gap = d - ra - rb
    if first:
        pair_f[q, GAP] = gap
    if gap >= 0.0:
        remember_at(pos, pair_f, q, SEEN, a0, a1, b0, b1, gap)
        return 0.0
    pair_f[q, SEEN + DISTANCE] = -1.0
    if d > 1e-9:
        nx = dx / d
        ny = dy / d
        nz = dz / d
    else:
        nx, ny, nz = fallback_normal(
            pos[a1, 0] - pos[a0, 0], pos[a1, 1] - pos[a0, 1], pos[a1, 2] - pos[a0, 2],
            pos[b1, 0] - pos[b0, 0], pos[b1, 1] - pos[b0, 1], pos[b1, 2] - pos[b0, 2],
            0.5 * (pos[a0, 0] + pos[a1, 0] - pos[b0, 0] - pos[b1, 0]),
            0.5 * (pos[a0, 1] + pos[a1, 1] - pos[b0, 1] - pos[b1, 1]),
            0.5 * (pos[a0, 2] + pos[a1, 2] - pos[b0, 2] - pos[b1, 2]))
    pair_f[q, COEF_A + N0] = 1.0 - s
    pair_f[q, COEF_A + N1] = s
    pair_f[q, COEF_A + N2] = 0.0
    pair_f[q, COEF_A + N3] = 0.0
    pair_f[q, COEF_B + N0] = 1.0 - t
    pair_f[q, COEF_B + N1] = t
    pair_f[q, COEF_B + N2] = 0.0
    pair_f[q, COEF_B + N3] = 0.0
    if pair_f[q, DEPTH] == 0.0:
        _first_touch(pos, prev, w, inv_mass, flags, pair_i, pair_b, pair_f, q, nx, ny, nz, -gap,
                     first, dt, node_row, body_start, body_count)
    if -gap > pair_f[q, DEPTH]:
        mid = 0.5 * (rb - ra + d)
        pair_f[q, DEPTH] = -gap
        pair_f[q, POINT + X] = qx + nx * mid
        pair_f[q, POINT + Y] = qy + ny * mid
        pair_f[q, POINT + Z] = qz + nz * mid
        pair_f[q, NORMAL + X] = nx
        pair_f[q, NORMAL + Y] = ny
        pair_f[q, NORMAL + Z] = nz
    push = min(-gap, pair_f[q, ALLOWED] - pair_f[q, PUSH])
    if push <= 0.0:
        return 0.0
    _respond(pos, w, inv_mass, flags, ground_normal, pair_b, pair_f, q, a0, a1, b0, b1, nx, ny, nz,
             push)
    return push


@hot_kernel
def capsule_repeats(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_b, pair_f, q, ra, rb,
                    s, t, repeats, repeat_depth, dt, node_row, body_start, body_count):
    """The first projection of the tick of an overlapping capsule row ``q`` whose segments
    are closest at ``s``, ``t`` now, repeated up to ``repeats`` times while it pushes more
    than ``repeat_depth`` metres (the contact point moves as the capsules turn; see
    ``narrow.REPEATS``)."""
    for rep in range(repeats):
        if rep > 0:
            s, t = segment_params(pos, pair_i[q, NODES_A + N0], pair_i[q, NODES_A + N1],
                                  pair_i[q, NODES_B + N0], pair_i[q, NODES_B + N1])
        if capsule_contact(pos, prev, w, inv_mass, flags, ground_normal, pair_i, pair_b, pair_f, q,
                           ra, rb, s, t, rep == 0, dt, node_row, body_start,
                           body_count) <= repeat_depth:
            break


@hot_inline
def _first_touch(pos, prev, w, inv_mass, flags, pair_i, pair_b, pair_f, q, nx, ny, nz, depth, first,
                 dt, node_row, body_start, body_count):
    """The pair's first penetration this tick: allow its approach along ``n`` on top of the
    depenetration allowance (at most SELF_APPROACH within one body), and, in the first
    projection, record the impact energy ``m_eff v_n^2 / 2`` (true masses; a driven side is
    immovable) and wake sleeping sides hit deep or fast."""
    a0, a1, b0, b1, ca0, ca1, cb0, cb1 = capsule_row(pair_i, pair_f, q)
    closing = 0.0
    for c, n in ((0, nx), (1, ny), (2, nz)):
        a = ca0 * (pos[a0, c] - prev[a0, c]) + ca1 * (pos[a1, c] - prev[a1, c])
        b = cb0 * (pos[b0, c] - prev[b0, c]) + cb1 * (pos[b1, c] - prev[b1, c])
        closing += (a - b) * n
    closing = -closing
    approach = max(0.0, closing)
    if node_row[a0] == node_row[b0]:
        approach = min(approach, SELF_APPROACH)
    pair_f[q, ALLOWED] += approach
    if not first:
        return
    speed = closing / dt
    # A side driven by set-point moves (muscles behind it) counts as immovable.
    m_inv = 0.0
    if pair_b[q, MOVE_A] and not (_driven(flags[a0], ca0) and _driven(flags[a1], ca1)):
        m_inv += ca0 * ca0 * inv_mass[a0] + ca1 * ca1 * inv_mass[a1]
    if pair_b[q, MOVE_B] and not (_driven(flags[b0], cb0) and _driven(flags[b1], cb1)):
        m_inv += cb0 * cb0 * inv_mass[b0] + cb1 * cb1 * inv_mass[b1]
    energy = 0.0
    if speed > 0.0 and m_inv > 0.0:
        energy = 0.5 * speed * speed / m_inv
    if pair_f[q, ENERGY] == 0.0:
        pair_f[q, ENERGY] = energy
    if depth > WAKE_DEPTH or speed > WAKE_SPEED:
        for i in (a0, b0):
            if flags[i] & ASLEEP:
                wake_body(node_row[i], flags, w, inv_mass, body_start, body_count)


@hot_kernel
def _driven(flag, c):
    """Whether a node of coefficient ``c`` leaves its side driven (see ``projection._impact``)."""
    return c == 0.0 or (flag & MOVING) != 0


@hot_kernel
def _share(wi, flag, gx, gy, gz, sg, nx, ny, nz):
    """Inverse mass a node lends to a push along ``sg n``: none if it rests on a plane (normal
    ``g``) it would be pushed into (shock propagation, ``response.side_weight``)."""
    # Nested, not "and": Numba compiles this short-circuit into slower code.
    if (flag & GROUNDED) != 0:  # noqa: SIM102
        if sg * (nx * gx + ny * gy + nz * gz) < 0.0:
            return 0.0
    return wi


@hot_kernel
def _yield(wi, flag, mi, other):
    """Inverse mass of a node in a push against a node of flags ``other``: a YIELDING
    set-point node (weight ``wi`` 0) takes its true inverse mass ``mi`` against a character
    (a STIFF node: another's, or its own, whose trunk a fist driven through it shoved over)."""
    # Nested, not "and": Numba compiles this short-circuit into slower code.
    if (flag & YIELDING) != 0:  # noqa: SIM102
        if (other & STIFF) != 0:
            return mi
    return wi


@hot_kernel
def _lambda(ca0, ca1, cb0, cb1, wa0, wa1, wb0, wb1, depth):
    """Jakobsen's multiplier ``depth / sum c^2 w`` (0 when nothing can move), limited so
    that no node moves more than ``LEVER * depth`` (``response.push_capsules`` does the
    same): where the only movable node is a capsule's far end, ``c_k`` small (a knee over a
    planted foot that a stepping foot presses), the rule alone would move it ``depth / c_k``
    and, iteration after iteration, metres. A zero coefficient adds ``+0.0`` (the inverse
    masses are finite and not negative), so every term is added: which coefficients are
    zero, a capsule's end or not, is a coin flip."""
    s = ca0 * ca0 * wa0 + ca1 * ca1 * wa1 + cb0 * cb0 * wb0 + cb1 * cb1 * wb1
    if s <= 0.0:
        return 0.0
    big = max(ca0 * wa0, ca1 * wa1, cb0 * wb0, cb1 * wb1)
    return min(depth / s, LEVER * depth / big)


@hot_kernel
def _moved(x, y, z, c, wi, sg, lam, nx, ny, nz):
    """A node at ``(x, y, z)`` after its share ``sg lam c w`` of a push along ``n``."""
    if c == 0.0:
        return x, y, z
    f = sg * lam * c * wi
    return x + f * nx, y + f * ny, z + f * nz


@hot_inline
def _push(p, ca0, ca1, cb0, cb1, w, inv_mass, flags, gn, a0, a1, b0, b1, nx, ny, nz, depth):
    """The twelve coordinates ``p`` of nodes a0, a1, b0, b1 after separating the pair by
    ``depth`` along ``n`` (first side +n), and whether anything moved."""
    wa0 = _share(_yield(w[a0], flags[a0], inv_mass[a0], flags[b0]), flags[a0],
                 gn[a0, 0], gn[a0, 1], gn[a0, 2], 1.0, nx, ny, nz)
    wa1 = _share(_yield(w[a1], flags[a1], inv_mass[a1], flags[b0]), flags[a1],
                 gn[a1, 0], gn[a1, 1], gn[a1, 2], 1.0, nx, ny, nz)
    wb0 = _share(_yield(w[b0], flags[b0], inv_mass[b0], flags[a0]), flags[b0],
                 gn[b0, 0], gn[b0, 1], gn[b0, 2], -1.0, nx, ny, nz)
    wb1 = _share(_yield(w[b1], flags[b1], inv_mass[b1], flags[a0]), flags[b1],
                 gn[b1, 0], gn[b1, 1], gn[b1, 2], -1.0, nx, ny, nz)
    lam = _lambda(ca0, ca1, cb0, cb1, wa0, wa1, wb0, wb1, depth)
    if lam == 0.0:
        return p, False
    xa0, ya0, za0 = _moved(p[0], p[1], p[2], ca0, wa0, 1.0, lam, nx, ny, nz)
    xa1, ya1, za1 = _moved(p[3], p[4], p[5], ca1, wa1, 1.0, lam, nx, ny, nz)
    xb0, yb0, zb0 = _moved(p[6], p[7], p[8], cb0, wb0, -1.0, lam, nx, ny, nz)
    xb1, yb1, zb1 = _moved(p[9], p[10], p[11], cb1, wb1, -1.0, lam, nx, ny, nz)
    return (xa0, ya0, za0, xa1, ya1, za1, xb0, yb0, zb0, xb1, yb1, zb1), True


@hot_inline
def _respond(pos, w, inv_mass, flags, gn, pair_b, pair_f, q, a0, a1, b0, b1, nx, ny, nz, push):
    """Separate the pair by ``push`` along ``n`` (first side +n). The nodes stay in local
    variables until written back."""
    move_a = pair_b[q, MOVE_A]
    move_b = pair_b[q, MOVE_B]
    ca0 = pair_f[q, COEF_A + N0] if move_a else 0.0
    ca1 = pair_f[q, COEF_A + N1] if move_a else 0.0
    cb0 = pair_f[q, COEF_B + N0] if move_b else 0.0
    cb1 = pair_f[q, COEF_B + N1] if move_b else 0.0
    p = (pos[a0, 0], pos[a0, 1], pos[a0, 2], pos[a1, 0], pos[a1, 1], pos[a1, 2],
         pos[b0, 0], pos[b0, 1], pos[b0, 2], pos[b1, 0], pos[b1, 1], pos[b1, 2])
    p, moved = _push(p, ca0, ca1, cb0, cb1, w, inv_mass, flags, gn, a0, a1, b0, b1, nx, ny, nz,
                     push)
    if moved:
        pair_f[q, PUSH] += push
    # A sphere's two nodes are one, with coefficient 0 on the second: write that one first.
    for i, k in ((a1, 3), (a0, 0), (b1, 9), (b0, 6)):
        pos[i, 0] = p[k]
        pos[i, 1] = p[k + 1]
        pos[i, 2] = p[k + 2]
