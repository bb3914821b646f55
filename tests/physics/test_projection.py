"""Property tests of the projection kernels (Horswill eq. 3-5; Jakobsen sections 3-5)."""

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import twig
from twig.physics.constraints import (
    project_distance,
    project_distance_sqrt_approx,
    project_hinge,
    project_link_run,
    project_rigid,
    rigid_prefix,
)

coord = st.floats(-5.0, 5.0, allow_nan=False)
point = st.tuples(coord, coord, coord)
inv_mass = st.floats(0.05, 20.0)


def _pair(p, q, wi, wj):
    return np.array([p, q], dtype=float), np.array([wi, wj])


@given(point, point, inv_mass, inv_mass, st.floats(0.05, 3.0))
def test_rigid_projection_restores_length_and_keeps_weighted_centre(p, q, wi, wj, rest):
    pos, w = _pair(p, q, wi, wj)
    assume(np.linalg.norm(pos[1] - pos[0]) > 1e-3)
    centre = (pos[0] / wi + pos[1] / wj) / (1 / wi + 1 / wj)
    project_distance(pos, w, 0, 1, rest, rest, 1.0)
    assert math.isclose(np.linalg.norm(pos[1] - pos[0]), rest, rel_tol=1e-9, abs_tol=1e-12)
    new_centre = (pos[0] / wi + pos[1] / wj) / (1 / wi + 1 / wj)
    np.testing.assert_allclose(new_centre, centre, atol=1e-9)


@given(point, point, st.floats(0.0, 2.0), st.floats(0.0, 3.0))
def test_inequality_projection_lands_inside_the_interval(p, q, lo, extra):
    pos, w = _pair(p, q, 1.0, 1.0)
    d0 = np.linalg.norm(pos[1] - pos[0])
    assume(d0 > 1e-3)
    hi = lo + extra
    project_distance(pos, w, 0, 1, lo, hi, 1.0)
    d = np.linalg.norm(pos[1] - pos[0])
    assert lo - 1e-9 <= d <= hi + 1e-9
    if lo <= d0 <= hi:
        assert d == d0  # a satisfied inequality link does not move its nodes


@given(point, point, inv_mass, inv_mass)
def test_zero_length_grab_merges_nodes_at_weighted_centre(p, q, wi, wj):
    pos, w = _pair(p, q, wi, wj)
    assume(np.linalg.norm(pos[1] - pos[0]) > 1e-6)
    centre = (pos[0] / wi + pos[1] / wj) / (1 / wi + 1 / wj)
    project_distance(pos, w, 0, 1, 0.0, 0.0, 1.0)
    np.testing.assert_allclose(pos[0], pos[1], atol=1e-9)
    np.testing.assert_allclose(pos[0], centre, atol=1e-9)


@given(point, point, st.floats(0.1, 2.0), st.floats(0.5, 1.5))
def test_sqrt_approximation_reduces_a_moderate_error(p, q, rest, stretch):
    pos, w = _pair(p, q, 1.0, 1.0)
    d0 = np.linalg.norm(pos[1] - pos[0])
    assume(d0 > 1e-3)
    pos[1] = pos[0] + (pos[1] - pos[0]) / d0 * rest * stretch  # within Taylor range
    err0 = abs(rest * stretch - rest)
    project_distance_sqrt_approx(pos, w, 0, 1, rest)
    assert abs(np.linalg.norm(pos[1] - pos[0]) - rest) <= err0 + 1e-12


@given(point, point, st.floats(0.2, 1.0))
def test_soft_link_repairs_the_given_fraction(p, q, stiffness):
    pos, w = _pair(p, q, 1.0, 1.0)
    d0 = np.linalg.norm(pos[1] - pos[0])
    assume(d0 > 1e-3)
    rest = 0.5 * d0 + 0.1
    project_distance(pos, w, 0, 1, rest, rest, stiffness)
    d = np.linalg.norm(pos[1] - pos[0])
    assert math.isclose(d0 - d, stiffness * (d0 - rest), rel_tol=1e-9, abs_tol=1e-12)


def _hinge_error(pos, root, joint, end, f0, f1, f2, f3):
    f = np.cross(pos[f1] - pos[f0], pos[f3] - pos[f2])
    n = np.cross(pos[root] - pos[end], f)
    n /= np.linalg.norm(n)
    return abs((pos[joint] - pos[end]) @ n)


@given(st.lists(point, min_size=4, max_size=4), inv_mass, inv_mass)
def test_hinge_projection_puts_the_knee_in_the_leg_plane(pts, wj, we):
    """Horswill eq. 4-5: one projection zeroes the knee's distance to the plane (fixed frame)."""
    hip, knee, foot, _ = (np.array(p) for p in pts)
    # Pelvis frame nodes 4-7 fixed (w = 0): forward = (x) x (y) = +z.
    pos = np.array([hip, knee, foot, [0, 0, 0], [1, 0, 0], [0, 0, 0], [0, 1, 0]], dtype=float)
    w = np.array([0.0, wj, we, 0.0, 0.0, 0.0, 0.0])
    leg = pos[0] - pos[2]
    assume(np.linalg.norm(np.cross(leg, [0, 0, 1])) > 1e-2)
    normal = np.cross(leg, [0, 0, 1]) / np.linalg.norm(np.cross(leg, [0, 0, 1]))
    shift = pos[2] - pos[0]  # the foot moves along n; the plane rotates about the hip
    project_hinge(pos, w, 0, 1, 2, 3, 4, 5, 6, True, -math.inf)
    assert _hinge_error(pos, 0, 1, 2, 3, 4, 5, 6) < 1e-6 * (1 + np.abs(shift).max()) or \
        abs((pos[1] - pos[2]) @ normal) < 1e-9


def _bend(pos):
    """Knee offset from the hip-foot line along forward +z (made perpendicular to the line)."""
    line = pos[2] - pos[0]
    b = np.array([0.0, 0.0, 1.0]) - line * line[2] / (line @ line)
    return (pos[1] - pos[0]) @ (b / np.linalg.norm(b))


@given(st.lists(point, min_size=3, max_size=3), inv_mass, inv_mass, inv_mass,
       st.floats(0.0, 0.05), st.booleans())
def test_bend_limit_keeps_the_knee_forward_and_the_centre_of_mass(pts, wr, wj, we, bend_min,
                                                                  ends_fixed):
    """Anti-hyperextension: one projection puts a knee between a fixed hip and foot at least
    ``bend_min`` in front of their line; with all three free it moves the knee forward and
    keeps their mass-weighted centre; a satisfied limit moves nothing."""
    pos = np.array([*pts, [0, 0, 0], [1, 0, 0], [0, 0, 0], [0, 1, 0]], dtype=float)
    line = pos[2] - pos[0]
    # A limb hanging down (the limit fades out for limbs raised or along forward).
    n = np.linalg.norm(line)
    assume(n > 0.1 and abs(line[2]) < 0.8 * n and line[1] < -0.1 * n)
    if ends_fixed:
        wr = we = 0.0
    w = np.array([wr, wj, we, 0.0, 0.0, 0.0, 0.0])
    m = np.where(w[:3] > 0, 1.0 / np.where(w[:3] > 0, w[:3], 1.0), 0.0)
    before = _bend(pos)
    centre = (m[:, None] * pos[:3]).sum(axis=0)
    start = pos.copy()
    project_hinge(pos, w, 0, 1, 2, 3, 4, 5, 6, False, bend_min)
    if before >= bend_min - 1e-9:
        np.testing.assert_allclose(pos, start, atol=1e-9)
    elif ends_fixed:
        assert _bend(pos) == pytest.approx(bend_min, abs=1e-9)
    else:
        assert _bend(pos) > before
        np.testing.assert_allclose((m[:, None] * pos[:3]).sum(axis=0), centre, atol=1e-9)


@given(st.floats(0.3, 2.8), st.floats(0.0, 1.2), st.floats(0.5, 2.0))
def test_angle_limit_brings_a_jointed_pair_into_range(angle, lo, arm):
    """A bent joint outside [lo, lo + 1] rad is brought into range; arm links keep lengths."""
    hi = lo + 1.0
    world = twig.World(gravity=(0.0, 0.0, 0.0), ground=False, iterations=30)
    pts = [[arm, 0.0, 0.0], [0.0, 0.0, 0.0], [arm * math.cos(angle), arm * math.sin(angle), 0.0]]
    world.add_body("limb", "test", pts, damp_air=0.0)
    world.add_links([[0, 1], [1, 2]])
    world.add_angle_limit(0, 1, 2, min_angle=lo, max_angle=hi)
    world.step()
    pos = world.node_pos
    u, v = pos[0] - pos[1], pos[2] - pos[1]
    got = math.acos(np.clip(u @ v / np.linalg.norm(u) / np.linalg.norm(v), -1, 1))
    assert lo - 0.02 <= got <= hi + 0.02
    assert world.link_errors().max() < 0.02
    if lo <= angle <= hi:
        assert math.isclose(got, angle, abs_tol=1e-9)


@given(point, point, inv_mass, st.sampled_from([0.0, 1.0]), st.floats(0.0, 3.0))
def test_rigid_fast_path_matches_the_general_projection_bit_for_bit(p, q, wi, wj, rest):
    pos, w = _pair(p, q, wi, wj)
    general = pos.copy()
    project_rigid(pos, w, 0, 1, rest)
    project_distance(general, w, 0, 1, rest, rest, 1.0)
    assert np.array_equal(pos, general)


def test_relax_takes_the_rigid_fast_path_for_the_leading_rigid_links_only():
    world = twig.World(ground=False)
    world.add_cloth("cloth", (0, 2, 0), resolution=6, tethers=True)
    world.add_link(0, 7, min=0.1, max=0.1, stiffness=0.5)
    world.add_link(1, 8, sqrt_approx=True)
    nodes, lo, hi, stiffness, n_exact, _ = world.solver_links()
    assert nodes.shape[0] == world.n_links
    rigid = (lo == hi) & (stiffness == 1.0)
    n_rigid = rigid_prefix(lo, hi, stiffness, n_exact)
    assert rigid[:n_rigid].all() and (n_rigid == n_exact or not rigid[n_rigid])
    assert rigid_prefix(lo, hi, stiffness, 0) == 0
    world.step(60)
    assert np.isfinite(world.node_pos).all()


link = st.tuples(st.integers(0, 5), st.integers(0, 5)).filter(lambda ij: ij[0] != ij[1])
limits = st.tuples(st.floats(0.0, 2.0), st.floats(0.0, 2.0), st.floats(0.05, 1.0))


@given(st.lists(st.tuples(link, limits), min_size=1, max_size=12),
       st.lists(point, min_size=6, max_size=6), st.lists(inv_mass, min_size=6, max_size=6),
       st.booleans())
def test_links_projected_two_at_a_time_match_the_sequential_sweep_bit_for_bit(links, pts, ws,
                                                                              rigid):
    """Consecutive links without a common node are computed together; those that share one
    go one by one, so the run equals the plain loop whatever the links (rigid ones: the lean
    projection on ``min``)."""
    nodes = np.array([ij for ij, _ in links], dtype=np.uint32)
    lo = np.array([min(a, b) for _, (a, b, _) in links])
    hi = np.array([max(a, b) for _, (a, b, _) in links])
    stiffness = np.array([k for _, (_, _, k) in links])
    pos = np.array(pts, dtype=float)
    w = np.array(ws)
    sequential = pos.copy()
    for k in range(len(links)):
        if rigid:
            project_rigid(sequential, w, nodes[k, 0], nodes[k, 1], lo[k])
        else:
            project_distance(sequential, w, nodes[k, 0], nodes[k, 1], lo[k], hi[k],
                             stiffness[k])
    project_link_run(pos, w, nodes, lo, hi, stiffness, 0, len(links), rigid)
    assert np.array_equal(pos, sequential)
