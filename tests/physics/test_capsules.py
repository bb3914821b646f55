"""The lean capsule-capsule contact (twig.physics.collision.capsules) does what the general
contact code (``projection.project_contact`` with Jakobsen's affine rule) does for two
capsules, to rounding: the kernels are compiled with fast-math flags
(:data:`twig.physics.hot.OPTIONS`), so the same arithmetic may round differently in each, and
the general path's closest points are formed here in Python."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from twig.physics.collision import pair_table as pt
from twig.physics.collision.capsules import (
    box_separation,
    capsule_contact,
    distance_at,
    drift,
    remember_at,
    segment_params,
    still_apart,
)
from twig.physics.collision.geometry import closest_params_segments, fallback_normal
from twig.physics.collision.projection import project_contact, set_capsule_coefs
from twig.physics.collision.response import LEVER
from twig.physics.flags import GROUNDED, MOVING

DT = 1.0 / 60.0


def _row(mu: float, passive_b: bool) -> tuple[np.ndarray, np.ndarray]:
    """One contact row of two capsules (``pair_b``, ``pair_f``) as ``activate_pair`` sets it
    up."""
    flags = pt.FLAGS.zeros(1)
    flags[0, pt.MOVE_A] = True
    flags[0, pt.MOVE_B] = not passive_b
    row = pt.FLOATS.zeros(1)
    row[0, pt.GAP] = math.inf
    row[0, pt.MU] = mu
    row[0, pt.ALLOWED] = 0.02
    return flags, row


def _distance(pos: np.ndarray) -> float:
    """Distance between the segments 0-1 and 2-3 of ``pos``, as the first sweep measures it."""
    return distance_at(pos, 0, 1, 2, 3, *segment_params(pos, 0, 1, 2, 3))


def _general(pos, prev, w, flags, gn, pair_i, pair_b, pair_f, ra, rb, first):
    """The general path for a capsule pair: closest points, normal, coefficients,
    project_contact."""
    a0, a1 = pair_i[0, pt.NODES_A + pt.N0], pair_i[0, pt.NODES_A + pt.N1]
    b0, b1 = pair_i[0, pt.NODES_B + pt.N0], pair_i[0, pt.NODES_B + pt.N1]
    s, u = closest_params_segments(*pos[a0], *pos[a1], *pos[b0], *pos[b1])
    p = pos[a0] + s * (pos[a1] - pos[a0])
    q = pos[b0] + u * (pos[b1] - pos[b0])
    dx, dy, dz = p[0] - q[0], p[1] - q[1], p[2] - q[2]
    d = math.sqrt(dx * dx + dy * dy + dz * dz)
    gap = d - ra - rb
    if first:
        pair_f[0, pt.GAP] = gap
    if gap >= 0.0:
        return
    if d > 1e-9:
        n = (dx / d, dy / d, dz / d)
    else:
        n = fallback_normal(*(pos[a1] - pos[a0]), *(pos[b1] - pos[b0]),
                            *(0.5 * (pos[a0] + pos[a1] - pos[b0] - pos[b1])))
    set_capsule_coefs(s, pair_f, 0, pt.COEF_A)
    set_capsule_coefs(u, pair_f, 0, pt.COEF_B)
    mid = 0.5 * (rb - ra + d)
    zeros = np.zeros(2, dtype=np.int64)
    pair_f[0, pt.LARGEST] = 0.0  # one projection, as narrow._project_pair counts them
    project_contact(pos, prev, w, w.copy(), flags, gn, pair_i, pair_b, pair_f, 0, *n, -gap,
                    q[0] + n[0] * mid, q[1] + n[1] * mid, q[2] + n[2] * mid, first, DT,
                    np.array([0, 0, 1, 1]), zeros, zeros)
    pair_f[0, pt.SEPARATED] += pair_f[0, pt.LARGEST]


INVERSE_MASSES = arrays(np.float64, 4, elements=st.sampled_from([0.0, 0.2, 1.0, 2.0, 5.0]))
"""Inverse masses of a pair's four nodes: 0 is a locked, planted or kinematic node."""


@settings(max_examples=80, deadline=None, derandomize=True)
@given(ends=arrays(np.float64, (4, 3), elements=st.floats(-0.2, 0.2)),
       motion=arrays(np.float64, (4, 3), elements=st.floats(-0.03, 0.03)),
       radii=st.tuples(st.floats(0.03, 0.15), st.floats(0.03, 0.15)),
       sphere=st.booleans(), first=st.booleans(), passive_b=st.booleans(),
       grounded=st.booleans(), driven=st.booleans(), mu=st.floats(0.0, 2.0),
       w=INVERSE_MASSES)
def test_capsule_contact_matches_the_general_contact(ends, motion, radii, sphere,
                                                     first, passive_b, grounded, driven, mu, w):
    pos = ends.copy()
    prev = pos - motion
    flags = np.array([GROUNDED if grounded else 0, 0, MOVING if driven else 0,
                      MOVING if driven else 0], dtype=np.uint8)
    gn = np.zeros((4, 3))
    gn[:, 1] = 1.0
    a1 = 0 if sphere else 1
    pair_i = np.array([[0, a1, a1, a1, 2, 3, 3, 3]], dtype=np.int32)
    lean = (pos.copy(), _row(mu, passive_b))
    general = (pos.copy(), _row(mu, passive_b))
    for _ in range(3):  # a first touch, then projections of a touching pair
        s, u = segment_params(lean[0], 0, a1, 2, 3)
        capsule_contact(lean[0], prev, w, w.copy(), flags, gn, pair_i, *lean[1], 0, *radii, s,
                        u, first, DT, np.array([0, 0, 1, 1]), np.zeros(2, dtype=np.int64),
                        np.zeros(2, dtype=np.int64))
        _general(general[0], prev, w, flags, gn, pair_i, *general[1], *radii, first)
        first = False
    # Both agree to 0.1 nm (fused and reordered rounding, amplified where a depth is the small
    # difference of two lengths, leaves ~1e-12; a wrong coefficient or sign, millimetres).
    np.testing.assert_allclose(lean[0], general[0], rtol=0.0, atol=1e-10)
    # The lean path also remembers where a pair was apart (SEEN slots), which the general
    # path, used for boxes, has no use for.
    np.testing.assert_allclose(lean[1][1][:, :pt.SEEN], general[1][1][:, :pt.SEEN], rtol=1e-9,
                               atol=1e-10, equal_nan=True)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(ends=arrays(np.float64, (4, 3), elements=st.floats(-0.3, 0.3)),
       moves=arrays(np.float64, (4, 3), elements=st.floats(-0.05, 0.05)),
       radii=st.tuples(st.floats(0.0, 0.1), st.floats(0.0, 0.1)))
def test_a_pair_said_still_apart_does_not_touch(ends, moves, radii):
    """``still_apart`` may skip the exact test only when the capsules surely do not touch:
    whatever the nodes did since the gap was measured, a pair it calls apart has a positive
    gap."""
    pos = ends.copy()
    pair_i = np.array([[0, 1, 1, 1, 2, 3, 3, 3]], dtype=np.int32)
    row = pt.FLOATS.zeros(1)
    gap = _distance(pos) - sum(radii)
    if gap < 0.0:
        return
    remember_at(pos, row, 0, pt.SEEN, 0, 1, 2, 3, gap)
    assert still_apart(pos, pair_i, row, 0) == (gap > 1e-9)
    pos += moves
    if still_apart(pos, pair_i, row, 0):
        assert _distance(pos) - sum(radii) > 0.0


@settings(max_examples=300, deadline=None, derandomize=True)
@given(ends=arrays(np.float64, (4, 3), elements=st.floats(-0.3, 0.3)),
       moves=arrays(np.float64, (4, 3), elements=st.floats(-0.05, 0.05)))
def test_remembered_distances_bound_the_distance_from_below(ends, moves):
    """The first sweep's memory of a candidate: the box separation never exceeds the segments'
    distance, and a distance remembered with the nodes' positions, less their
    :func:`drift` since, never exceeds the distance now, wherever the nodes went."""
    pos = ends.copy()
    d = _distance(pos)
    assert box_separation(pos, 0, 1, 2, 3) <= d + 1e-12
    memory = pt.SEEN_TABLE.zeros(2)
    seen, distance = pt.CANDIDATE_SEEN, pt.CANDIDATE_SEEN + pt.DISTANCE
    remember_at(pos, memory, 1, seen, 0, 1, 2, 3, d)
    assert memory[1, distance] == d
    assert drift(pos, memory, 1, seen, 0, 1, 2, 3) == 0.0
    pos += moves
    assert memory[1, distance] - drift(pos, memory, 1, seen, 0, 1, 2, 3) <= (
        _distance(pos) + 1e-12)
    # A row never written (zeros) bounds nothing above zero.
    assert memory[0, distance] - drift(pos, memory, 0, seen, 0, 1, 2, 3) <= 0.0


@settings(max_examples=300, deadline=None, derandomize=True)
@given(ends=arrays(np.float64, (4, 3), elements=st.floats(-0.2, 0.2)),
       radii=st.tuples(st.floats(0.0, 0.15), st.floats(0.0, 0.15)),
       w=INVERSE_MASSES, grounded=arrays(np.bool_, 4),
       shape=st.sampled_from(["any", "sphere", "point", "parallel", "planted"]),
       end=st.floats(0.0, 0.05))
def test_a_contact_push_moves_no_node_more_than_twice_the_overlap(ends, radii, w, grounded,
                                                                  shape, end):
    """Whatever the configuration, degenerate ones included (a capsule of zero length, a
    segment parallel to the other, a contact at a capsule's end whose other node alone can
    move: a knee over a planted foot that a stepping foot presses), one projection moves no
    node more than ``LEVER`` times the overlap it repairs. Jakobsen's rule alone moves a
    free node ``depth / c`` for a contact at coefficient ``c`` of it: metres, over a tick's
    iterations, as ``c`` goes to 0."""
    pos = ends.copy()
    if shape == "sphere":
        pos[1] = pos[0]
    elif shape == "point":
        pos[1] = pos[0] + 1e-13
    elif shape == "parallel":
        pos[3] = pos[2] + (pos[1] - pos[0])
    elif shape == "planted":  # a shin (knee 0, planted foot 1) pressed near the foot by an
        pos[0] = pos[1] + (0.0, 0.45, 0.0) + 0.5 * ends[0]  # immovable capsule across it
        pos[2] = pos[1] + end * (pos[0] - pos[1]) + 0.5 * ends[2] * (1.0, 0.0, 1.0)
        pos[3] = pos[2] + ends[3] + (0.0, 0.0, 0.1)
        w = np.array([w[0] or 1.0, 0.0, 0.0, 0.0])
    prev = pos.copy()
    flags = np.where(grounded, GROUNDED, 0).astype(np.uint8)
    gn = np.zeros((4, 3))
    gn[:, 1] = 1.0
    pair_i = np.array([[0, 1, 1, 1, 2, 3, 3, 3]], dtype=np.int32)
    pair_b, row = _row(1.0, False)
    row[0, pt.ALLOWED] = 1.0  # the tick's allowance does not bound it: the rule must
    for k in range(12):  # a first sweep's repeats, then later iterations
        s, t = segment_params(pos, 0, 1, 2, 3)
        overlap = max(0.0, radii[0] + radii[1] - distance_at(pos, 0, 1, 2, 3, s, t))
        before = pos.copy()
        push = capsule_contact(pos, prev, w, w.copy(), flags, gn, pair_i, pair_b, row, 0,
                               *radii, s, t, k == 0, DT, np.array([0, 0, 1, 1]),
                               np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64))
        assert push <= overlap + 1e-12
        moved = np.linalg.norm(pos - before, axis=1).max()
        assert moved <= LEVER * overlap + 1e-12, (k, moved, overlap)
