"""Eq. 1: weighted position and velocity differences, translation and facing excluded."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from twig.bodies.humanoid import NODE_NAMES
from twig.hybrid import library_clip, similarity
from twig.hybrid.similarity import VELOCITY_WEIGHT, WEIGHTS, features, yaw_matrix

W = dict(zip(NODE_NAMES, WEIGHTS, strict=True))


def test_trunk_and_hips_weigh_more_than_the_wrists():
    assert WEIGHTS.sum() == np.float64(1.0) or abs(WEIGHTS.sum() - 1) < 1e-12
    for trunk in ("chest", "pelvis", "l_hip", "r_hip"):
        assert W[trunk] >= 5 * W["l_hand"] and W[trunk] >= 5 * W["r_hand"]
    assert W["l_hand"] == min(WEIGHTS)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 26), st.floats(-np.pi, np.pi), st.floats(-50, 50), st.floats(-50, 50))
def test_moving_or_turning_a_pose_does_not_change_it(frame, turn, dx, dz):
    clip = library_clip("walk")
    pos, vel = clip.nodes[frame], clip.velocities[frame]
    rot = yaw_matrix(turn)
    moved = pos @ rot.T + (dx, 0.0, dz)
    a = features(pos[None], vel[None])
    b = features(moved[None], (vel @ rot.T)[None])
    assert similarity(a[0][0], a[1][0], b[0][0], b[1][0]) < 1e-9


def test_it_reads_in_metres_and_counts_velocity_by_a_tenth_of_a_second():
    clip = library_clip("idle")
    pos, vel = clip.nodes[0], clip.velocities[0]
    base = features(pos[None], vel[None])
    shifted = features((pos + np.array([0, 0.1, 0]))[None], vel[None])   # everything 10 cm higher
    faster = features(pos[None], (vel + np.array([0, 1.0, 0]))[None])    # everything 1 m/s upward
    assert abs(similarity(base[0][0], base[1][0], shifted[0][0], shifted[1][0]) - 0.1) < 1e-9
    assert abs(similarity(base[0][0], base[1][0], faster[0][0], faster[1][0])
               - VELOCITY_WEIGHT) < 1e-9


def test_lying_is_far_from_standing_and_a_walk_frame_is_found_in_the_walk():
    walk, rec = library_clip("walk"), library_clip("fall-recovery")
    frame, s = walk.best_frame(walk.nodes[7], walk.velocities[7])
    assert frame == 7 and s < 1e-9
    _, lying = walk.best_frame(rec.nodes[0], rec.velocities[0])
    assert lying > 0.3
