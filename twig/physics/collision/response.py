"""Contact response by projection (Jakobsen 2001, section 6; Horswill 2009, section VI.D).

A contact point on a volume is an affine combination ``p = sum_k c_k x_k`` of the nodes that carry
the volume (``c = (1 - t, t)`` on a capsule, barycentric box coordinates on a box). Jakobsen's rule
for moving such a point by ``delta`` moves node ``k`` by ``lambda c_k w_k delta`` with
``lambda = 1 / sum_k c_k^2 w_k``, so a touch near a link's end moves mostly that end, and heavy or
pinned nodes move less. Both sides of a contact share the separation this way. Boxes, whose
surface lies outside their frame nodes' hull, respond as rigid frames instead
(:mod:`twig.physics.collision.rigid`).

A contact row (``pair_i``, ``pair_b``, ``pair_f``) holds one contact per active candidate pair:
its columns are declared in :mod:`twig.physics.collision.pair_table`.
"""

from __future__ import annotations

import math

import numpy as np

from twig.physics.collision.pair_table import (
    COEF_A,
    COEF_B,
    MOVE_A,
    MOVE_B,
    MU,
    N0,
    N1,
    N2,
    N3,
    NODES_A,
    NODES_B,
    NORMAL,
    PUSH,
    RIGID_A,
    RIGID_B,
    SIDE_NODES,
    X,
    Y,
    Z,
)
from twig.physics.collision.rigid import rigid_frame, rigid_inverse_mass, rigid_move
from twig.physics.collision.rolling import add_spin_slide, spin_slide
from twig.physics.flags import DRIVEN, GROUNDED
from twig.physics.hot import hot_inline, hot_kernel, inline_kernel, kernel

SELF_APPROACH = 0.05
"""Most approach (m per tick) a body's contacts with itself may undo in one tick."""
WAKE_DEPTH = 0.02
"""A sleeping body wakes when a contact penetrates it deeper than this (m) ..."""
WAKE_SPEED = 0.5
"""... or something hits it faster than this (m/s, relative normal speed)."""
HELD = np.bool_(True)
"""``held`` of :func:`push_apart` for friction pushes. Typed ``bool``, not a literal
``True``: Numba compiles a kernel once per literal value it is called with (seconds each)."""
NOT_HELD = np.bool_(False)
"""``held`` of :func:`push_apart` for other pushes (see :data:`HELD`)."""
LEVER = 2.0
"""Most a node may move per metre of separation a push asks for. Jakobsen's rule moves node
``k`` by ``d c_k w_k / sum c^2 w``: at a contact near a link's immovable end (a planted foot)
the free end would move ``d / c_k``, many times ``d``, and a tangential friction push there
once threw a knee metres away."""


@inline_kernel
def side_weight(w, flags, ground_normal, k, sx, sy, sz):
    """Inverse mass node ``k`` lends to a contact that pushes it along ``s``.

    A node resting on a static plane is immovable against pushes into that plane (shock
    propagation), so a body lying on the ground carries what lands on it instead of being
    driven into the ground and back out every iteration.
    """
    grounded = (flags[k] & GROUNDED) != 0
    if grounded and (sx * ground_normal[k, 0] + sy * ground_normal[k, 1]
                     + sz * ground_normal[k, 2]) < 0.0:
        return 0.0
    return w[k]


@inline_kernel
def contact_point(pos, pair_i, pair_f, q, side):
    """World position of side ``side`` (0 or 1) of contact row ``q``: ``sum_k c_k x_k``."""
    px = 0.0
    py = 0.0
    pz = 0.0
    for k in range(SIDE_NODES):
        i = pair_i[q, NODES_A + SIDE_NODES * side + k]
        c = pair_f[q, COEF_A + SIDE_NODES * side + k]
        px += c * pos[i, 0]
        py += c * pos[i, 1]
        pz += c * pos[i, 2]
    return px, py, pz


@inline_kernel
def side_nodes(pair_i, q, side):
    """The four nodes of side ``side`` (0 or 1) of contact row ``q`` (a box's frame nodes)."""
    nodes = NODES_A + SIDE_NODES * side
    return (pair_i[q, nodes + N0], pair_i[q, nodes + N1], pair_i[q, nodes + N2],
            pair_i[q, nodes + N3])


@inline_kernel
def rigid_resting(w, flags, ground_normal, i0, i1, i2, i3, nx, ny, nz, held):
    """Whether a rigid side with frame nodes ``i0..i3`` must not give way along ``n``: a node
    resting on a plane against it (:func:`side_weight` 0), or with ``held``, any grounded
    node."""
    for i in (i0, i1, i2, i3):
        if side_weight(w, flags, ground_normal, i, nx, ny, nz) == 0.0:
            return True
        if held and (flags[i] & GROUNDED) != 0:
            return True
    return False


@inline_kernel
def side_inverse_mass(pos, w, flags, ground_normal, pair_i, pair_b, pair_f, q, side, nx, ny, nz,
                      shock, held=False):
    """Generalised inverse mass of one side of contact row ``q`` for a push along ``n``:
    ``sum_k c_k^2 w_k`` (Jakobsen's rule) or the rigid frame's (boxes). With ``shock``, nodes
    resting on a plane do not give way into it (:func:`side_weight`); with ``held`` too, a box
    resting on a plane does not give way at all (see :func:`push_apart`)."""
    if not pair_b[q, MOVE_A + side]:
        return 0.0
    nodes = NODES_A + SIDE_NODES * side
    if pair_b[q, RIGID_A + side]:
        i0, i1, i2, i3 = side_nodes(pair_i, q, side)
        if shock and rigid_resting(w, flags, ground_normal, i0, i1, i2, i3, nx, ny, nz, held):
            return 0.0
        inv_m, cx, cy, cz, inv_i = rigid_frame(pos, w, i0, i1, i2, i3)
        px, py, pz = contact_point(pos, pair_i, pair_f, q, side)
        return rigid_inverse_mass(inv_m, cx, cy, cz, inv_i, px, py, pz, nx, ny, nz)
    s = 0.0
    for k in range(SIDE_NODES):
        i = pair_i[q, nodes + k]
        c = pair_f[q, COEF_A + SIDE_NODES * side + k]
        s += c * c * (side_weight(w, flags, ground_normal, i, nx, ny, nz) if shock else w[i])
    return s


@inline_kernel
def side_move(pos, w, flags, ground_normal, pair_i, pair_b, pair_f, q, side, nx, ny, nz, lam,
              held=False):
    """Move side ``side`` of contact row ``q`` by the impulse ``lam`` along ``n`` (``held``:
    as in :func:`side_inverse_mass`)."""
    if not pair_b[q, MOVE_A + side]:
        return
    nodes = NODES_A + SIDE_NODES * side
    if pair_b[q, RIGID_A + side]:
        i0, i1, i2, i3 = side_nodes(pair_i, q, side)
        if rigid_resting(w, flags, ground_normal, i0, i1, i2, i3, nx, ny, nz, held):
            return
        inv_m, cx, cy, cz, inv_i = rigid_frame(pos, w, i0, i1, i2, i3)
        px, py, pz = contact_point(pos, pair_i, pair_f, q, side)
        rigid_move(pos, i0, i1, i2, i3, inv_m, cx, cy, cz, inv_i, px, py, pz, nx, ny, nz, lam)
        return
    for k in range(SIDE_NODES):
        i = pair_i[q, nodes + k]
        f = lam * pair_f[q, COEF_A + SIDE_NODES * side + k] * side_weight(w, flags, ground_normal,
                                                                           i, nx, ny, nz)
        pos[i, 0] += f * nx
        pos[i, 1] += f * ny
        pos[i, 2] += f * nz


@hot_kernel
def push_apart(pos, w, flags, ground_normal, pair_i, q, pair_b, pair_f, nx, ny, nz, depth, held):
    """Separate contact row ``q`` by ``depth`` along ``n`` (first side +n, second side -n),
    using the coefficients in its COEF slots. Returns the separation achieved (0 if both
    sides are immovable).

    ``held`` (friction pushes): a box standing on a plane does not give way at all, in any
    direction (shock propagation, Guendelman et al. 2003). Friction shares a slide by the
    sides' inverse masses, so a 30 kg box on a 5 kg chair moved the chair six times as much
    as itself; the floor's friction, which only feels the chair's own weight here, could not
    hold it, and box and chair walked until the box fell off."""
    if not pair_b[q, RIGID_A] and not pair_b[q, RIGID_B]:
        return _push_affine(pos, w, flags, ground_normal, pair_i, q, pair_b, pair_f, nx, ny, nz,
                            depth, 1.0)
    s = (side_inverse_mass(pos, w, flags, ground_normal, pair_i, pair_b, pair_f, q, 0, nx, ny, nz,
                           True, held)
         + side_inverse_mass(pos, w, flags, ground_normal, pair_i, pair_b, pair_f, q, 1, -nx, -ny,
                             -nz, True, held))
    if s <= 0.0:
        return 0.0
    lam = depth / s
    for side in range(2):  # the lever limit on a capsule or sphere side (see LEVER)
        if not pair_b[q, RIGID_A + side] and pair_b[q, MOVE_A + side]:
            sign = 1.0 - 2.0 * side
            for k in range(SIDE_NODES):
                i = pair_i[q, NODES_A + SIDE_NODES * side + k]
                cw = pair_f[q, COEF_A + SIDE_NODES * side + k] * side_weight(
                    w, flags, ground_normal, i, sign * nx, sign * ny, sign * nz)
                if cw * lam > LEVER * depth:
                    lam = LEVER * depth / cw
    side_move(pos, w, flags, ground_normal, pair_i, pair_b, pair_f, q, 0, nx, ny, nz, lam, held)
    side_move(pos, w, flags, ground_normal, pair_i, pair_b, pair_f, q, 1, -nx, -ny, -nz, lam, held)
    return depth


@hot_kernel
def _push_affine(pos, w, flags, ground_normal, pair_i, q, pair_b, pair_f, nx, ny, nz, depth, scale):
    """:func:`push_apart` when neither side is a box: both are capsules (or spheres), whose
    points are ``c0 x0 + c1 x1`` (the rows' other two coefficients are 0). ``scale`` -1 moves
    the nodes the opposite way (see :func:`push_capsules`)."""
    ca0 = pair_f[q, COEF_A + N0] if pair_b[q, MOVE_A] else 0.0
    ca1 = pair_f[q, COEF_A + N1] if pair_b[q, MOVE_A] else 0.0
    cb0 = pair_f[q, COEF_B + N0] if pair_b[q, MOVE_B] else 0.0
    cb1 = pair_f[q, COEF_B + N1] if pair_b[q, MOVE_B] else 0.0
    return push_capsules(pos, w, flags, ground_normal, pair_i[q, NODES_A + N0],
                         pair_i[q, NODES_A + N1], pair_i[q, NODES_B + N0],
                         pair_i[q, NODES_B + N1], ca0, ca1, cb0, cb1, nx, ny, nz, depth, scale)


@hot_kernel
def _node_share(w, flags, ground_normal, i, sg, nx, ny, nz):
    """Inverse mass node ``i`` lends to a push along ``sg n``: none if it rests on a plane it
    would be pushed into (shock propagation, as in :func:`side_weight`)."""
    wi = w[i]
    # Nested, not "and": Numba compiles this short-circuit into slower code (measured 73
    # against 140 ns per push).
    if (flags[i] & GROUNDED) != 0:  # noqa: SIM102
        if sg * (nx * ground_normal[i, 0] + ny * ground_normal[i, 1]
                 + nz * ground_normal[i, 2]) < 0.0:
            wi = 0.0
    return wi


@hot_kernel
def _shift(pos, i, f, nx, ny, nz):
    pos[i, 0] += f * nx
    pos[i, 1] += f * ny
    pos[i, 2] += f * nz


@hot_inline
def push_capsules(pos, w, flags, ground_normal, a0, a1, b0, b1, ca0, ca1, cb0, cb1, nx, ny, nz,
                  depth, scale):
    """Separate the points ``ca0 x_a0 + ca1 x_a1`` (moved along +n) and ``cb0 x_b0 + cb1
    x_b1`` (along -n) by ``depth`` metres with Jakobsen's rule, ``lambda = depth / sum c^2
    w``; a zero coefficient (a capsule's far end at its tip, a passive side) takes no part.
    With ``scale`` -1 every node moves by the opposite of its share: applied to the previous
    positions, that changes the velocities as the push would, leaving the positions alone.
    Returns the separation achieved (0 if nothing can move)."""
    wa0 = _node_share(w, flags, ground_normal, a0, 1.0, nx, ny, nz)
    wa1 = _node_share(w, flags, ground_normal, a1, 1.0, nx, ny, nz)
    wb0 = _node_share(w, flags, ground_normal, b0, -1.0, nx, ny, nz)
    wb1 = _node_share(w, flags, ground_normal, b1, -1.0, nx, ny, nz)
    # A zero coefficient adds +0.0 (see ``capsules._lambda``): no branch per node.
    s = ca0 * ca0 * wa0 + ca1 * ca1 * wa1 + cb0 * cb0 * wb0 + cb1 * cb1 * wb1
    if s <= 0.0:
        return 0.0
    big = max(abs(ca0) * wa0, abs(ca1) * wa1, abs(cb0) * wb0, abs(cb1) * wb1)
    lam = scale * min(depth / s, LEVER * depth / big)  # see LEVER
    if ca0 != 0.0:
        _shift(pos, a0, 1.0 * lam * ca0 * wa0, nx, ny, nz)
    if ca1 != 0.0:
        _shift(pos, a1, 1.0 * lam * ca1 * wa1, nx, ny, nz)
    if cb0 != 0.0:
        _shift(pos, b0, -1.0 * lam * cb0 * wb0, nx, ny, nz)
    if cb1 != 0.0:
        _shift(pos, b1, -1.0 * lam * cb1 * wb1, nx, ny, nz)
    return depth


@inline_kernel
def point_velocity(pos, prev, pair_i, q, pair_f, nodes, coef):
    """Displacement this tick (metres) of the contact point of the side whose nodes and
    coefficients start at ``nodes`` (NODES_A or NODES_B) and ``coef`` (COEF_A or COEF_B)."""
    vx = 0.0
    vy = 0.0
    vz = 0.0
    for k in range(SIDE_NODES):
        i = pair_i[q, nodes + k]
        c = pair_f[q, coef + k]
        vx += c * (pos[i, 0] - prev[i, 0])
        vy += c * (pos[i, 1] - prev[i, 1])
        vz += c * (pos[i, 2] - prev[i, 2])
    return vx, vy, vz


@kernel
def split_normal(vx, vy, vz, nx, ny, nz):
    """Split displacement ``v`` along unit ``n``: returns ``(v.n, t, |t|)`` with the tangential
    part ``t = v - (v.n) n`` as three scalars."""
    vn = vx * nx + vy * ny + vz * nz
    tx = vx - vn * nx
    ty = vy - vn * ny
    tz = vz - vn * nz
    return vn, tx, ty, tz, math.sqrt(tx * tx + ty * ty + tz * tz)


@hot_kernel
def relative_slide(pos, prev, pair_i, pair_f, q, nx, ny, nz):
    """This tick's displacement of contact row ``q``'s first point relative to its second,
    split along ``n`` (see :func:`split_normal`)."""
    ax, ay, az = point_velocity(pos, prev, pair_i, q, pair_f, NODES_A, COEF_A)
    bx, by, bz = point_velocity(pos, prev, pair_i, q, pair_f, NODES_B, COEF_B)
    return split_normal(ax - bx, ay - by, az - bz, nx, ny, nz)


@hot_kernel
def hold_static(pos, prev, w, flags, ground_normal, pair_i, pair_b, pair_f, q, nx, ny, nz):
    """Static friction inside the relaxation for a pair with a box (Mueller et al. 2020,
    extended PBD): if the two contact points slid against each other this tick by less than
    ``mu`` times the normal separation applied so far, undo the slide. Pushing a box's corner
    up turns the box, which moves its other corners sideways; without this a resting box creeps
    off its support. A box standing on a plane is held where it stands (``held``, see
    :func:`push_apart`). Limbs against limbs grip in :func:`contact_friction` instead."""
    _, tx, ty, tz, tl = relative_slide(pos, prev, pair_i, pair_f, q, nx, ny, nz)
    if tl <= 1e-15 or tl > pair_f[q, MU] * pair_f[q, PUSH]:
        return
    push_apart(pos, w, flags, ground_normal, pair_i, q, pair_b, pair_f, -tx / tl, -ty / tl,
               -tz / tl, tl, HELD)


@kernel
def contact_friction(pos, prev, w, flags, ground_normal, pair_i, pair_b, pair_f, n_active, inert,
                     hold, node_row, rest_slide, node_roller, vol_radius, vol_inertia, vol_spin,
                     boxes, dt):
    """After the relaxation, once per tick: no bounce, then friction.

    A projection that pushes volumes apart by ``d`` also gives them the separating velocity
    ``d / dt`` in Verlet; deep contacts (a falling weight) would pop apart. People do not
    bounce (Horswill VI.D), so the separating normal velocity, up to what the pushes created,
    is removed by moving the previous positions (velocities change, positions do not). Then
    the contact points' relative tangential displacement this tick is shortened by
    ``mu * push``, never reversed, shared by the two sides with the normal response's weights:
    for a pair with a box by moving the positions (Jakobsen's sliding friction, after
    :func:`hold_static` in the relaxation; a box standing on a plane held, see
    :func:`push_apart`), for capsules and spheres by moving the previous
    positions only (velocity-level friction, Mueller et al. 2020, section 3.6). Limbs thus
    grip without being moved against their links after the relaxation; moved, and held
    inside it, limbs pressed together in a pile were pulled back by the links every tick, and
    the pile never came to rest.

    Velocities alone cannot hold a resting contact: each tick's gravity step slides it within
    the tick, and a stick across two rails crept 2.6 cm/s down a 10-degree slope and slid off at
    40 degrees whatever ``mu``. So where two bodies' capsules barely slid (``|t| <= mu *
    push``), the slide that gravity and the constraints gave the contact points this tick
    (``pos`` less ``inert``, where velocity alone would have put them) is also set aside in
    ``hold`` ((N, 3), m) with what is left of the budget, and the next tick's integration starts
    the nodes back by it (:func:`~twig.physics.integrate.integrate_nodes`): the contact stays
    where it is, with no velocity, as long as ``mu`` times the push covers the slide (Coulomb's
    static friction; the stick grips up to about its friction angle, 45 degrees for ``mu`` 1).
    Only slides up to ``rest_slide`` (m; the tick's gravity step ``|g| dt^2``, 0 to turn the
    hold off) are held: a resting contact slides no more, and a larger slide is something else
    pushing (a body squeezed between two others), which held back would push the pair into each
    other again the next tick; uncapped, a 1000-doll pile kept churning (4 % asleep at 8 s, 23 %
    without the hold, 39 % with the cap). Not within one body (a limb held against its own body
    fought the joints and a lone doll wound itself up), not for spheres (a ball rolls: held, it
    would stay where it rolls away), and not where a node is DRIVEN (a controller's push is not
    weighed against the grip: a child's hands sliding round its parent's back stuck on the
    parent's torso). Only the ``n_active`` contact rows of this tick's active pairs can have
    been pushed. Runs of rows without a box go to :func:`_capsule_friction`, compiled without
    reference counting; ``node_row`` ((N,), a node's body row) tells a body's own pairs. A
    rolling sphere (``node_roller`` ((N,)): the rolling sphere volume on a node, else -1) slips
    by its spin too, and its spin takes its share of the sliding friction (:func:`_roll_push`;
    ``vol_radius``, ``vol_inertia``, ``vol_spin`` as in :mod:`~twig.physics.collision.rolling`,
    ``dt`` s). ``boxes`` is None in a world without boxes: compiled for capsules only (see
    :func:`~twig.physics.tick.array_args`).
    """
    q = np.int64(0)  # typed: a literal 0 would compile the callees twice
    pushed = np.empty(n_active, dtype=np.int64)
    while q < n_active:
        q = _capsule_friction(pos, prev, w, flags, ground_normal, pair_i, pair_b, pair_f, q,
                              n_active, pushed, inert, hold, node_row, rest_slide, node_roller,
                              vol_radius, vol_inertia, vol_spin, dt)
        if q == n_active:
            break
        if boxes is None:  # compiled for a world without boxes: never reached
            break
        push = pair_f[q, PUSH]
        if push > 0.0:
            nx = pair_f[q, NORMAL + X]
            ny = pair_f[q, NORMAL + Y]
            nz = pair_f[q, NORMAL + Z]
            vn, tx, ty, tz, tl = relative_slide(pos, prev, pair_i, pair_f, q, nx, ny, nz)
            if vn > 0.0:
                # Moving prev by +n on the first side slows its separation along n.
                push_apart(prev, w, flags, ground_normal, pair_i, q, pair_b, pair_f, nx, ny, nz,
                           min(vn, push), NOT_HELD)
            if tl > 1e-15:
                # Slow the first side by cut along t and the second by -cut: a "contact"
                # along -t.
                push_apart(pos, w, flags, ground_normal, pair_i, q, pair_b, pair_f, -tx / tl,
                           -ty / tl, -tz / tl, min(tl, pair_f[q, MU] * push), HELD)
        q += 1


@hot_inline
def capsule_row(pair_i, pair_f, q):
    """Nodes ``a0, a1, b0, b1`` and coefficients ``ca0, ca1, cb0, cb1`` of capsule row ``q``
    (its sides' points are ``ca0 x_a0 + ca1 x_a1`` and ``cb0 x_b0 + cb1 x_b1``)."""
    return (pair_i[q, NODES_A + N0], pair_i[q, NODES_A + N1], pair_i[q, NODES_B + N0],
            pair_i[q, NODES_B + N1], pair_f[q, COEF_A + N0], pair_f[q, COEF_A + N1],
            pair_f[q, COEF_B + N0], pair_f[q, COEF_B + N1])


@hot_inline
def _slide(pos, prev, i0, i1, c0, c1):
    """Displacement this tick (m) of the point ``c0 x_i0 + c1 x_i1`` (the sum as
    :func:`point_velocity` forms it: the other two coefficients of a capsule row are 0)."""
    return (0.0 + c0 * (pos[i0, 0] - prev[i0, 0]) + c1 * (pos[i1, 0] - prev[i1, 0]),
            0.0 + c0 * (pos[i0, 1] - prev[i0, 1]) + c1 * (pos[i1, 1] - prev[i1, 1]),
            0.0 + c0 * (pos[i0, 2] - prev[i0, 2]) + c1 * (pos[i1, 2] - prev[i1, 2]))


@hot_inline
def _unheld(pos, inert, hold, i0, i1, c0, c1):
    """The slide (m) that gravity and the constraints gave the point ``c0 x_i0 + c1 x_i1`` this
    tick (``pos - inert``, see :func:`~twig.physics.integrate.integrate_nodes`), less what the
    contact rows before this one already hold back from the next tick (``hold``)."""
    return (c0 * (pos[i0, 0] - inert[i0, 0] + hold[i0, 0])
            + c1 * (pos[i1, 0] - inert[i1, 0] + hold[i1, 0]),
            c0 * (pos[i0, 1] - inert[i0, 1] + hold[i0, 1])
            + c1 * (pos[i1, 1] - inert[i1, 1] + hold[i1, 1]),
            c0 * (pos[i0, 2] - inert[i0, 2] + hold[i0, 2])
            + c1 * (pos[i1, 2] - inert[i1, 2] + hold[i1, 2]))


@hot_inline
def _roll_push(prev, w, flags, ground_normal, a0, a1, b0, b1, ca0, ca1, cb0, cb1, ex, ey, ez,
               slip, budget, roll_a, roll_b, vol_radius, vol_inertia, vol_spin, nx, ny, nz, dt):
    """Sliding friction of a contact with a rolling sphere on one side or both (volumes
    ``roll_a``, ``roll_b``; -1: not rolling): the contact points' ``slip`` (m, along ``-e``)
    is cut, within Coulomb's bound, by a push along ``e`` shared by the nodes' velocities
    (:func:`push_capsules` on the previous positions) and the spins, a rolling side lending
    its point ``1 / k`` times its node's inverse mass more through its spin (see
    :mod:`~twig.physics.collision.rolling`). ``budget`` is ``mu`` times the push as for a
    contact without spin; the slip that many times the normal impulse cuts grows with the
    spins' share."""
    wa0 = _node_share(w, flags, ground_normal, a0, 1.0, ex, ey, ez)
    wa1 = _node_share(w, flags, ground_normal, a1, 1.0, ex, ey, ez)
    wb0 = _node_share(w, flags, ground_normal, b0, -1.0, ex, ey, ez)
    wb1 = _node_share(w, flags, ground_normal, b1, -1.0, ex, ey, ez)
    linear = ca0 * ca0 * wa0 + ca1 * ca1 * wa1 + cb0 * cb0 * wb0 + cb1 * cb1 * wb1
    spin_a = (ca0 + ca1) ** 2 * wa0 / vol_inertia[roll_a] if roll_a >= 0 else 0.0
    spin_b = (cb0 + cb1) ** 2 * wb0 / vol_inertia[roll_b] if roll_b >= 0 else 0.0
    total = linear + spin_a + spin_b
    if total <= 0.0:
        return
    cut = min(slip, budget * total / linear) if linear > 0.0 else min(slip, budget)
    lam = cut / total
    if linear > 0.0:
        push_capsules(prev, w, flags, ground_normal, a0, a1, b0, b1, ca0, ca1, cb0, cb1, ex, ey,
                      ez, lam * linear, -1.0)
    if spin_a > 0.0:
        f = lam * spin_a
        add_spin_slide(vol_radius, vol_spin, roll_a, nx, ny, nz, 1.0, dt, f * ex, f * ey, f * ez)
    if spin_b > 0.0:
        f = -lam * spin_b
        add_spin_slide(vol_radius, vol_spin, roll_b, nx, ny, nz, -1.0, dt, f * ex, f * ey,
                       f * ez)


@hot_kernel
def _capsule_friction(pos, prev, w, flags, ground_normal, pair_i, pair_b, pair_f, start, n_active,
                      pushed, inert, hold, node_row, rest_slide, node_roller, vol_radius,
                      vol_inertia, vol_spin, dt):
    """:func:`contact_friction` of rows ``start`` on up to the first with a box, which it
    returns (``n_active`` if none): capsules and spheres, pushed through their previous
    positions, the hold and rolling spheres' spins only. ``pushed`` ((n_active,) int64) is
    scratch for the rows that pushed, listed first without a branch (about half the rows of a
    pile did)."""
    end = start
    count = 0
    while end < n_active and not pair_b[end, RIGID_A] and not pair_b[end, RIGID_B]:
        pushed[count] = end
        count += not pair_f[end, PUSH] <= 0.0
        end += 1
    for x in range(count):
        q = pushed[x]
        push = pair_f[q, PUSH]
        a0, a1, b0, b1, ca0, ca1, cb0, cb1 = capsule_row(pair_i, pair_f, q)
        ax, ay, az = _slide(pos, prev, a0, a1, ca0, ca1)
        bx, by, bz = _slide(pos, prev, b0, b1, cb0, cb1)
        nx = pair_f[q, NORMAL + X]
        ny = pair_f[q, NORMAL + Y]
        nz = pair_f[q, NORMAL + Z]
        # A rolling sphere's contact point moves with its spin too (n points from b to a).
        roll_a = node_roller[a0] if a0 == a1 else -1
        roll_b = node_roller[b0] if b0 == b1 else -1
        if roll_a >= 0:
            sx, sy, sz = spin_slide(vol_radius, vol_spin, roll_a, nx, ny, nz, 1.0, dt)
            ax += sx
            ay += sy
            az += sz
        if roll_b >= 0:
            sx, sy, sz = spin_slide(vol_radius, vol_spin, roll_b, nx, ny, nz, -1.0, dt)
            bx += sx
            by += sy
            bz += sz
        vn, tx, ty, tz, tl = split_normal(ax - bx, ay - by, az - bz, nx, ny, nz)
        budget = pair_f[q, MU] * push
        # Static (Coulomb's "stick"): the points barely slid this tick, no side is a sphere (a
        # ball would be held where it rolls) or driven (a controller's push is not weighed
        # against the grip). Then the slide that gravity and the constraints made
        # this tick is held back from the next one, as far as the budget allows.
        sl = 0.0
        if (rest_slide > 0.0 and tl <= budget and a0 != a1 and b0 != b1
                and node_row[a0] != node_row[b0]
                and not (flags[a0] | flags[a1] | flags[b0] | flags[b1]) & DRIVEN):
            fx, fy, fz = _unheld(pos, inert, hold, a0, a1, ca0, ca1)
            gx, gy, gz = _unheld(pos, inert, hold, b0, b1, cb0, cb1)
            _, sx, sy, sz, sl = split_normal(fx - gx, fy - gy, fz - gz, nx, ny, nz)
        if not pair_b[q, MOVE_A]:
            ca0 = 0.0
            ca1 = 0.0
        if not pair_b[q, MOVE_B]:
            cb0 = 0.0
            cb1 = 0.0
        if vn > 0.0:
            # Moving prev by +n on the first side slows its separation along n.
            push_capsules(prev, w, flags, ground_normal, a0, a1, b0, b1, ca0, ca1, cb0, cb1,
                          nx, ny, nz, min(vn, push), 1.0)
        if tl > 1e-15 and (roll_a >= 0 or roll_b >= 0):
            _roll_push(prev, w, flags, ground_normal, a0, a1, b0, b1, ca0, ca1, cb0, cb1,
                       -tx / tl, -ty / tl, -tz / tl, tl, budget, roll_a, roll_b, vol_radius,
                       vol_inertia, vol_spin, nx, ny, nz, dt)
        elif tl > 1e-15:
            # Slow the first side by cut along t and the second by -cut: a "contact" along -t.
            push_capsules(prev, w, flags, ground_normal, a0, a1, b0, b1, ca0, ca1, cb0, cb1,
                          -tx / tl, -ty / tl, -tz / tl, min(tl, budget), -1.0)
        if 1e-15 < sl <= rest_slide:
            push_capsules(hold, w, flags, ground_normal, a0, a1, b0, b1, ca0, ca1, cb0, cb1,
                          -sx / sl, -sy / sl, -sz / sl, min(sl, budget - tl), 1.0)
    return end
