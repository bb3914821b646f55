"""Eq. 1: weighted position and velocity differences, translation and facing excluded; a
kinematic controller bids for control when the character is that close to one of its frames."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import twig
from twig.bodies.humanoid import NODE_NAMES
from twig.hybrid import library_clip, play_clip, similarity, supervisor
from twig.hybrid.controllers import MotorControl
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


@pytest.mark.parametrize(("clip", "frame", "lift", "threshold", "bids"), [
    ("walk", 9, 0.0, 0.25, True),          # on the frame, turned and moved: similarity 0
    ("walk", 9, 0.2, 0.25, True),          # 20 cm higher: similarity 0.2 m, under 0.25
    ("walk", 9, 0.3, 0.25, False),         # 30 cm higher: 0.3 m, over it
    ("walk", 9, 0.3, 0.35, True),          # ... under a looser threshold
    ("fall-recovery", 0, 0.0, 0.25, False),  # lying on the ground: far from every walk frame
])
def test_a_clip_bids_for_control_when_the_pose_is_near_one_of_its_frames(
        clip, frame, lift, threshold, bids):
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    seen = []
    world.events.subscribe(seen.append, types=["controller"])
    play_clip(kid, "walk", loops=0, threshold=threshold)  # the user's clip
    sup = supervisor(kid)
    walk = sup.goal
    sup.switch(MotorControl(), "a dynamic controller has the character")
    # The character's pose and velocities: a frame, turned and moved on the ground, lifted.
    source = walk.fitted(sup) if clip == "walk" else library_clip(clip)
    turn = yaw_matrix(0.8)
    pos = source.nodes[frame] @ turn.T + (2.0, lift, -3.0)
    world.node_pos[kid.nodes] = pos
    world.node_prev[kid.nodes] = pos - (source.velocities[frame] @ turn.T) * world.dt
    best, s = walk.match(sup)
    if clip == "walk":
        assert best == frame and s == pytest.approx(lift, abs=1e-9)
    assert (walk.precondition(sup) is not None) == bids == (s < threshold)
    world.step()  # the supervisor arbitrates (and the clip, if it took over, plays a tick)
    if bids:
        assert sup.active is walk and seen[-1]["reason"] == "similar to the clip"
        assert seen[-1]["transition"] == "dynamic->kinematic"
        # It plays on from the frame it matched (half a 30 fps frame a tick).
        assert walk.t == pytest.approx((frame + 0.5) / walk.clip.fps)
    else:  # motor control keeps it (or, lying, hands it to the rag doll): no bid
        assert sup.active is not walk
        assert not [e for e in seen if e["reason"] == "similar to the clip"]
