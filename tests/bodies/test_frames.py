"""Body frames derived from node positions, and the humanoid presets."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import twig
from twig.bodies.frames import (
    arm_reach,
    centre_of_mass,
    facing,
    leg_extension,
    pelvis_frame,
    shoulder_frame,
)
from twig.errors import PhysicsError, SceneError


@given(st.floats(-3.1, 3.1))
def test_frames_of_a_standing_figure_follow_its_heading(heading):
    world = twig.World()
    body = world.add_humanoid("a", (1.0, 0.0, -2.0), facing=heading)
    assert facing(body) == pytest.approx(heading, abs=1e-9)
    for frame in (pelvis_frame(body), shoulder_frame(body)):
        axes = np.array([frame.right, frame.up, frame.forward])
        assert np.allclose(axes @ axes.T, np.eye(3), atol=1e-9)
        assert np.allclose(frame.up, (0, 1, 0), atol=1e-9)
        assert np.allclose(frame.forward, (math.sin(heading), 0, math.cos(heading)), atol=1e-9)
    # The figure's right hand is on its right.
    right_hand = body.node_position("r_hand") - pelvis_frame(body).origin
    assert right_hand @ pelvis_frame(body).right > 0.1


def test_centre_of_mass_leg_extension_and_reach():
    world = twig.World()
    body = world.add_humanoid("a", (0.0, 0.0, 0.0))
    com = centre_of_mass(body)
    assert 0.5 * 1.75 < com[1] < 0.62 * 1.75  # about at the pelvis, as in people
    assert abs(com[0]) < 1e-9
    for side in ("l", "r"):
        assert leg_extension(body, side) == pytest.approx(1.0, abs=0.01)
        assert arm_reach(body, side) == pytest.approx(1.0, abs=0.02)
    world.move_to(body.node("l_foot"), body.node_position("l_hip") + np.array([0, -0.3, 0.3]), 0.5)
    world.lock_nodes(body.node("l_hip"))
    world.run(seconds=0.6)
    assert leg_extension(body, "l") < 0.9
    with pytest.raises(PhysicsError, match="side"):
        leg_extension(body, "left")


def test_presets_give_a_parent_and_a_child():
    world = twig.World()
    parent = world.add_humanoid("parent", (0, 0, 0))
    child = world.add_humanoid("kid", (2, 0, 0), preset="child")
    assert parent.positions[:, 1].max() == pytest.approx(0.935 * 1.75)
    assert child.positions[:, 1].max() == pytest.approx(0.935 * 1.1)
    head = world.volumes["radius"][world.volumes["body"] == child.id][2]
    assert head == pytest.approx(0.1 * 1.3 * 1.1 / 1.75)  # a child's head is large for its size
    assert world.add_humanoid("tall", (4, 0, 0), height=1.9).positions[:, 1].max() > 1.7
    with pytest.raises(PhysicsError, match="unknown preset 'giant'"):
        world.add_humanoid("giant", (6, 0, 0), preset="giant")
    assert "giant" not in [b.name for b in world.bodies]


def test_preset_from_a_scene_file(tmp_path):
    scene = tmp_path / "family.toml"
    scene.write_text('[[object]]\ntype = "humanoid"\nname = "kid"\npreset = "child"\n'
                     '[[object]]\ntype = "humanoid"\nname = "lost"\npreset = 3\n')
    with pytest.raises(SceneError, match=r"#2 .*field 'preset': expected a string"):
        twig.load_scene(scene)
