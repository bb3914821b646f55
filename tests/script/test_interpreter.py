"""Scripts run on a world tick by tick: waiting, '&', wait-all, failures, scene scripts."""

import numpy as np
import pytest

import twig
from twig.errors import SceneError
from twig.script import Interpreter, Session, parse_line, parse_script


def world_with_kid() -> twig.World:
    world = twig.World(seed=0)
    world.add_humanoid("kid", position=(0, 0, 0), height=1.1)
    world.add_ball("ball", position=(1, 0.11, 0))
    return world


def run(world, text, max_seconds=30.0):
    out = []
    script = Interpreter(world, parse_script(text, "test.twig"), output=out.append)
    script.run(max_seconds)
    return script, out


def test_durative_lines_are_waited_for_and_queries_print_their_values():
    world = world_with_kid()
    script, out = run(world, "world: wait 0.5\nworld: time\nworld: wait 0.25\nworld: time")
    assert script.status == "finished"
    assert out == ['t=0.500 world: time -> {"t": 0.5, "tick": 30}',
                   't=0.750 world: time -> {"t": 0.75, "tick": 45}']


def test_ampersand_runs_in_parallel_and_wait_all_joins():
    world = world_with_kid()
    script, out = run(world, """
kid: move-node l_hand (-0.4, 1.0, 0.3) seconds=0.5 hold=true &
kid: move-node r_hand (0.4, 1.0, 0.3) seconds=1.0 hold=true &
world: time
world: wait-all
world: time
kid: where l_hand
""")
    assert script.status == "finished"
    assert out[0].endswith('{"t": 0.0, "tick": 0}')          # '&' did not wait
    assert out[1].endswith('{"t": 1.0, "tick": 60}')         # joined the longer move
    assert np.allclose(world.body("kid").node_position("r_hand"), (0.4, 1.0, 0.3))
    assert out[2].endswith("[-0.4, 1.0, 0.3]")               # held where it arrived


def test_a_failed_action_stops_the_script_with_its_reason_and_line():
    world = world_with_kid()
    script, out = run(world, """world: subscribe action
kid: move-node l_hand (-0.5, 1.2, 0.5) seconds=1 &
world: wait 0.2
kid: pin l_hand
world: wait 2
world: time
""")
    assert script.status == "failed"
    assert script.reason.startswith("test.twig:2: kid: move-node failed: l_hand stopped ")
    assert world.time < 0.3                                   # stopped at once
    assert not any("world: time" in line for line in out)
    assert any('"status": "failed"' in line for line in out)  # the subscribed action event


def test_a_marked_line_reports_its_failure_and_goes_on():
    world = world_with_kid()
    script, out = run(world, "- kid: fly\n- ghost: where\nworld: time")
    assert script.status == "finished"
    assert out[0].startswith("t=0.000 failed (going on): test.twig:1: kid: unknown command "
                             "'fly'")
    assert "no body called 'ghost'" in out[1]
    assert out[2].endswith('{"t": 0.0, "tick": 0}')


def test_an_unmarked_bad_command_stops_the_script():
    world = world_with_kid()
    script, _ = run(world, 'world: wait 0.1\nkid: move-node l_hand "up"\nworld: wait 5')
    assert script.status == "failed"
    assert script.reason == ("test.twig:2: kid: move-node: parameter 'position': expected a "
                             'vector (x, y, z) with components within ±1e6, got "up"')


def test_spawn_checks_fields_like_a_scene_file_and_leaves_nothing_half_made():
    world = world_with_kid()
    before = world.state_hash()
    replies = []
    session = Session(world, replies.append)
    for line in ("world: spawn ball b2 position=(0, 1, 0) radius=-1",
                 "world: spawn cloth c position=(0, 2, 0) pinned=true",
                 "world: spawn dragon d",
                 "world: spawn ball ball position=(0, 1, 0)"):
        session.run(parse_line(line))
    assert [r.kind for r in replies] == ["error"] * 4
    assert "radius: expected a positive finite number" in replies[0].data
    assert "field 'pinned': expected a list of strings" in replies[1].data
    assert "unknown type 'dragon'" in replies[2].data and "known types: stick" in replies[2].data
    assert "a body called 'ball' already exists" in replies[3].data
    assert [b.name for b in world.bodies] == ["kid", "ball"] and world.state_hash() == before
    script, _ = run(world, "world: spawn block crate position=(0, 2, 1) size=(0.3, 0.3, 0.3)\n"
                           "world: wait 1\ncrate: touching within=1")
    assert script.status == "finished" and world.body("crate").centroid[1] < 0.2


def test_push_impulse_and_force_change_velocity_by_the_momentum_given():
    world = twig.World(gravity=(0, 0, 0), ground=False)
    ball = world.add_ball("ball", position=(0, 1, 0), mass=0.5)
    world.set_damping(ball.nodes, air=0.0)
    run(world, "ball: push (0, 0, 1)")                          # 1 N s on 0.5 kg: 2 m/s
    assert ball.velocity == pytest.approx([0, 0, 2], abs=1e-9)
    run(world, "ball: push (1, 0, 0) seconds=1")                # 1 N for 1 s: +2 m/s in x
    assert ball.velocity == pytest.approx([2, 0, 2], abs=1e-9)
    script, _ = run(world, "ball: push (1e6, 0, 0)")
    assert "at most 1000" in script.reason


def test_a_scene_file_runs_its_script_as_the_world_steps(tmp_path):
    (tmp_path / "drop.twig").write_text("ball: pin\nworld: wait 0.5\nball: unpin\n")
    scene = tmp_path / "drop.toml"
    scene.write_text('[scene]\nscript = "drop.twig"\n\n[[object]]\ntype = "ball"\n'
                     'name = "ball"\nposition = [0.0, 2.0, 0.0]\n')
    world = twig.load_scene(scene)
    world.run(seconds=0.4)
    assert world.body("ball").centroid[1] == 2.0                # pinned by the script
    world.run(seconds=0.6)
    assert world.body("ball").centroid[1] < 1.9 and world.script.status == "finished"
    (tmp_path / "drop.twig").write_text("ball: pin\nball: (oops)\n")
    with pytest.raises(SceneError, match=r"drop.toml: \[scene\]: field 'script': .*drop.twig:2:7"):
        twig.load_scene(scene)
