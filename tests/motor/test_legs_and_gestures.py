"""Sitting, standing up, kicking, and gestures from files (issue #5)."""

import numpy as np
import pytest

import twig
from twig.motor.gestures import GestureError, builtin_gestures, load_gesture


def test_sit_on_a_chair_and_stand_up_again():
    world = twig.World()
    kid = world.add_humanoid("kid")
    chair = world.add_chair("chair", (1.0, 0.0, 2.0), facing=np.pi)
    act = kid.sit(chair)
    world.run(seconds=8.0)
    assert act.status == "succeeded", act.reason
    seat = world.atlas(chair)["seat"]
    assert kid.mode == "sitting"
    assert abs(seat.from_world(kid.hips)[1]) < 0.15      # the hips rest on the seat
    assert np.linalg.norm(seat.from_world(kid.hips)[[0, 2]]) < 0.25
    up = kid.stand_up()
    world.run(seconds=3.0)
    assert up.status == "succeeded" and kid.upright


def test_sit_on_the_ground_and_on_nothing_sensible():
    world = twig.World()
    kid = world.add_humanoid("kid", preset="child")
    ball = world.add_ball("ball", (2.0, 0.15, 0.0))
    bad = kid.sit(ball)
    assert bad.status == "failed" and "'ball' is not something to sit on" in bad.reason
    missing = kid.sit("chair")  # there is no chair in this world
    assert missing.status == "failed" and "no object 'chair'" in missing.reason
    act = kid.sit()
    world.run(seconds=4.0)
    assert act.status == "succeeded", act.reason
    assert kid.hips[1] < 0.25 and kid.node_position("head")[1] > 0.5   # sitting up


def test_kick_sends_the_ball_off():
    world = twig.World()
    kid = world.add_humanoid("kid")
    ball = world.add_ball("ball", (0.5, 0.15, 1.5))
    start = ball.centroid
    act = kid.kick(ball, toward=(0.5, 0.0, 10.0))
    top = 0.0
    for _ in range(8 * 60):
        world.step()
        top = max(top, float(np.linalg.norm(ball.velocity)))
    assert act.status == "succeeded", act.reason
    assert top > 1.0                                       # it was struck, not pushed
    assert ball.centroid[2] - start[2] > 0.5 and kid.upright


def test_gesture_files_cover_the_repertoire():
    assert {"wave", "point", "shrug", "beckon", "arms-crossed", "hands-on-hips"} <= set(
        builtin_gestures())


@pytest.mark.parametrize("preset", ["adult", "child"])
@pytest.mark.parametrize("name", ["wave", "point", "shrug", "beckon", "arms-crossed",
                                  "hands-on-hips"])
def test_every_gesture_plays_on_an_adult_and_a_child(preset, name):
    world = twig.World()
    kid = world.add_humanoid("kid", preset=preset)
    world.step(10)
    gesture = load_gesture(name)
    hand = next(iter(gesture.keys))
    act = kid.gesture(name)
    reach = 0.0
    while not act.done and world.time < 6.0:
        world.step()
        shoulder = kid.node_position(f"{hand[0]}_shoulder")
        reach = max(reach, np.linalg.norm(kid.node_position(f"{hand[0]}_hand") - shoulder))
    assert act.status == "succeeded", act.reason
    assert kid.upright
    # Normalisation: how far the hand got scales with the body (arm lengths, not metres).
    assert 0.3 * kid.arm_length < reach < 1.05 * kid.arm_length


def test_a_gesture_can_be_mirrored_onto_the_other_hand():
    world = twig.World()
    kid = world.add_humanoid("kid")
    act = kid.gesture("point", hand="left")
    world.run(seconds=1.0)
    hand = kid.node_position("l_hand")
    assert np.linalg.norm(hand - kid.node_position("l_shoulder")) > 0.7 * kid.arm_length
    world.run(seconds=1.0)
    assert act.status == "succeeded"


def test_bad_gesture_files_fail_the_action_with_the_field(tmp_path):
    world = twig.World()
    kid = world.add_humanoid("kid")
    missing = tmp_path / "bad.toml"
    missing.write_text('frame = "arm"\n[[key]]\nt = 0.0\nright = [0, 0, 1]\n'
                       '[[key]]\nright = [0, 1, 0]\n')
    act = kid.gesture(str(missing))
    assert act.status == "failed" and "[[key]] #2: field 't'" in act.reason
    assert "no gesture 'moonwalk'" in kid.gesture("moonwalk").reason
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('frame = "elbow"\n')
    with pytest.raises(GestureError, match="field 'frame'"):
        load_gesture(wrong)
