"""The skeleton posed from nodes: rest pose, rigid motion, no flips, and the rotation maths."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from twig.bodies.humanoid import NODE_NAMES
from twig.export.files import humanoid_nodes
from twig.export.rotations import (
    angle_between,
    carried_twist,
    euler_zxy,
    matrices,
    quaternions,
    slerp,
    unit,
)
from twig.export.skeleton import JOINT_NAMES, pose, rest_skeleton

MAX_TURN_PER_FRAME = np.radians(20.0)
"""No bone turns more than this between two frames (1/60 s) in the puppet motion; its limbs
swing at up to ~8 degrees a frame, and a flip or spin of the twist is ~90-180 degrees."""

MAX_TURN_UNDER_MOTOR_CONTROL = {"walk": np.radians(40.0), "hug": np.radians(65.0)}
"""Walking and hugging, measured: 36.9 degrees a frame at most while walking (RightForeArm,
t = 8.75 s: the elbow bent only 8-12 degrees and the plane of that bend sweeping round as
the hand circles the line of the upper arm, which the twist follows; 28.5 at the LeftForeArm
before the characters' last sweeps were limited to those in need, seventeenth session) and
56.5 at the hug (LeftForeArm, t = 8.22 s, as the hug lets go: the elbow moving at 4.4 m/s,
its bend plane turning 64 degrees in a frame). Before the twist was settled over time: 35 and
59 degrees. A flip is 180."""

quaternion = st.tuples(*[st.floats(-1, 1)] * 4).filter(lambda q: np.linalg.norm(q) > 0.1)


def _rot(q) -> np.ndarray:
    return matrices(np.asarray(q, dtype=float))


def _posed(motion):
    body = next(b for b in motion.recording.bodies if b.name == motion.character)
    nodes = humanoid_nodes(motion.recording.arrays()["pos"], body)
    skeleton = rest_skeleton(body.meta["height"], body.meta["preset"])
    return pose(skeleton, nodes)


def test_no_bone_flips_while_the_puppet_turns_around(motion):
    posed = _posed(motion)
    world = quaternions(posed.world)
    turn = angle_between(world[1:], world[:-1])
    if motion.name == "puppet-turn":
        worst = np.unravel_index(np.argmax(turn), turn.shape)
        assert turn.max() < MAX_TURN_PER_FRAME, (JOINT_NAMES[worst[1]], worst[0])
        # The hips really went once around: their heading advanced through 360 degrees.
        forward = posed.world[:, 0, :, 2]
        heading = np.unwrap(np.arctan2(forward[:, 0], forward[:, 2]))
        assert np.degrees(heading[-1] - heading[0]) > 350
    elif motion.name in MAX_TURN_UNDER_MOTOR_CONTROL:
        # Swinging arms and stepping legs, fast but no flips (a flip is 180 degrees).
        worst = np.unravel_index(np.argmax(turn), turn.shape)
        assert turn.max() < MAX_TURN_UNDER_MOTOR_CONTROL[motion.name], (
            JOINT_NAMES[worst[1]], worst[0], np.degrees(turn.max()))
    else:  # a falling rag doll whips its limbs (a shin swings 74 degrees in the frame it
        # lands); a flip would be half a turn
        assert turn.max() < np.radians(100.0)
    assert np.allclose(np.linalg.norm(world, axis=-1), 1.0)


def test_rest_pose_has_no_rotation():
    skeleton = rest_skeleton(1.75)
    posed = pose(skeleton, skeleton.nodes[None])
    np.testing.assert_allclose(posed.world[0], np.broadcast_to(np.eye(3), (19, 3, 3)),
                               atol=1e-12)
    np.testing.assert_allclose(posed.root[0], [0.0, 0.53 * 1.75, 0.0])


@given(quaternion, st.tuples(*[st.floats(-5, 5)] * 3),
       st.sampled_from([(1.75, "adult"), (1.1, "child"), (1.4, "adult")]))
def test_a_figure_moved_rigidly_turns_every_bone_alike(q, shift, build):
    """Rotate and move the rest pose as one: every joint's world rotation is that rotation,
    every local rotation below the hips is the identity, the root follows the pelvis."""
    skeleton = rest_skeleton(*build)
    r = _rot(q)
    nodes = skeleton.nodes @ r.T + np.array(shift)
    posed = pose(skeleton, nodes[None])
    np.testing.assert_allclose(posed.world[0], np.broadcast_to(r, (19, 3, 3)), atol=1e-9)
    np.testing.assert_allclose(posed.local[0, 1:], np.broadcast_to(np.eye(3), (18, 3, 3)),
                               atol=1e-9)
    np.testing.assert_allclose(posed.root[0], skeleton.rest[0] @ r.T + shift, atol=1e-12)


def test_an_elbow_bending_backwards_through_straight_does_not_flip_the_forearm():
    """The hand swings through the straight arm and on past it: the forearm keeps turning
    about the same elbow axis instead of spinning half a turn about itself."""
    skeleton = rest_skeleton(1.75)
    s, e, h = (NODE_NAMES.index(n) for n in ("l_shoulder", "l_elbow", "l_hand"))
    frames = np.repeat(skeleton.nodes[None], 121, axis=0)
    upper = frames[0, e] - frames[0, s]
    length = np.linalg.norm(frames[0, h] - frames[0, e])
    for f, angle in enumerate(np.linspace(1.2, -1.2, 121)):  # forward, straight, backward
        bend = np.array([0.0, -np.cos(angle), np.sin(angle)])
        frames[f, e] = frames[0, s] + np.array([0.0, -np.linalg.norm(upper), 0.0])
        frames[f, h] = frames[f, e] + length * bend
    posed = pose(skeleton, frames)
    fore = quaternions(posed.world[:, JOINT_NAMES.index("LeftForeArm")])
    assert angle_between(fore[1:], fore[:-1]).max() < np.radians(3.0)


def test_a_limb_bending_again_in_another_plane_turns_its_twist_while_straight():
    """The elbow bends forwards, straightens, stays straight for half a second and bends
    again sideways: the arm's twist turns the quarter turn while the arm is straight, so the
    forearm never turns more than 5 degrees a frame, and it lies in the plane of the bend
    whenever the elbow is bent. (Before the twist was settled over time it stayed a quarter
    turn off the new bend and then snapped round: 45 degrees in one frame.)"""
    skeleton = rest_skeleton(1.75)
    s, e, h = (NODE_NAMES.index(n) for n in ("l_shoulder", "l_elbow", "l_hand"))
    bend = np.radians(np.concatenate([np.full(60, 30.0), np.linspace(30.0, 0.0, 11)[1:],
                                      np.zeros(30), np.linspace(0.0, 30.0, 11)[1:],
                                      np.full(60, 30.0)]))
    side = np.where(np.arange(len(bend)) < 85, 0.0, np.pi / 2)  # forwards, then outwards
    way = np.stack([np.sin(side), np.zeros_like(side), np.cos(side)], axis=1)
    frames = np.repeat(skeleton.nodes[None], len(bend), axis=0)
    upper = np.linalg.norm(skeleton.nodes[e] - skeleton.nodes[s])
    length = np.linalg.norm(skeleton.nodes[h] - skeleton.nodes[e])
    frames[:, e] = skeleton.nodes[s] + np.array([0.0, -upper, 0.0])
    frames[:, h] = frames[:, e] + length * (np.cos(bend)[:, None] * np.array([0.0, -1.0, 0.0])
                                            + np.sin(bend)[:, None] * way)
    posed = pose(skeleton, frames)
    fore = quaternions(posed.world[:, JOINT_NAMES.index("LeftForeArm")])
    assert angle_between(fore[1:], fore[:-1]).max() < np.radians(5.0)
    arm = JOINT_NAMES.index("LeftArm")
    twist = (posed.world[:, arm] @ skeleton.rest_frames[arm])[:, :, 1]
    normal = np.cross([0.0, -1.0, 0.0], way)
    off_plane = np.arccos(np.clip(np.abs(np.sum(twist * normal, axis=1)), 0.0, 1.0))
    assert off_plane[bend > np.radians(29.0)].max() < np.radians(0.5)


@given(quaternion)
def test_quaternions_and_matrices_are_inverse(q):
    q = unit(np.asarray(q, dtype=float))
    back = quaternions(matrices(q))
    assert back[3] >= 0
    assert abs(np.dot(back, q)) == pytest.approx(1.0, abs=1e-12)  # q and -q: one rotation


@given(quaternion)
def test_zxy_euler_angles_rebuild_the_matrix(q):
    m = _rot(q)
    z, x, y = euler_zxy(m)
    rz = _rot([0, 0, np.sin(z / 2), np.cos(z / 2)])
    rx = _rot([np.sin(x / 2), 0, 0, np.cos(x / 2)])
    ry = _rot([0, np.sin(y / 2), 0, np.cos(y / 2)])
    np.testing.assert_allclose(rz @ rx @ ry, m, atol=1e-7)  # 1e-8 near gimbal lock


@given(quaternion, quaternion, st.floats(0, 1))
def test_slerp_stays_on_the_short_arc(a, b, s):
    a, b = unit(np.asarray(a, dtype=float)), unit(np.asarray(b, dtype=float))
    mid = slerp(a, b, np.array([s]))
    total = angle_between(a, b)
    np.testing.assert_allclose(angle_between(a, mid) + angle_between(mid, b), total,
                               atol=1e-6)


def test_carried_twist_follows_an_axis_that_turns_over():
    """An axis turned through every direction of a great circle keeps a continuous twist."""
    angle = np.linspace(0, 2 * np.pi, 361)
    axis = np.stack([np.sin(angle), np.cos(angle), np.zeros_like(angle)], axis=1)[:, None]
    twist = carried_twist(axis, np.array([[0.0, 0.0, 1.0]]))[:, 0]
    assert np.allclose(np.sum(twist * axis[:, 0], axis=1), 0.0, atol=1e-12)
    assert np.min(np.sum(twist[1:] * twist[:-1], axis=1)) > np.cos(np.radians(2.0))


def test_a_stretched_shin_is_shared_among_the_joints_not_left_on_the_foot():
    """Issue #36: a shin stretched 2 cm (the foot pulled down) is fitted by bones at their
    rest lengths nearer the nodes, in the sum of squares, than bones aimed from the hips out
    (which left the foot alone 2 cm off): the knee, hip and trunk take a share (measured:
    the foot 16.8 mm, the others 3 mm or less), with the hips centre where it was."""
    from twig.export.skeleton import NODE_NAMES, points, rest_skeleton, rigid_nodes

    skeleton = rest_skeleton(1.75)
    nodes = skeleton.nodes[None].copy()
    nodes[0, NODE_NAMES.index("r_foot"), 1] -= 0.02
    fitted = rigid_nodes(skeleton, nodes)
    error = np.linalg.norm(fitted - nodes, axis=-1)
    assert np.sum(error ** 2) < 0.9 * 0.02 ** 2
    assert error.max() < 0.018
    np.testing.assert_allclose(points(fitted)[:, -1], points(nodes)[:, -1], atol=1e-9)
