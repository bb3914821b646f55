"""Hybrid control from scripts: play-clip, stop-clip, set-passive, controller, errors."""

import twig
from twig.commands import commands_of
from twig.hybrid import controller, play_clip
from twig.script import Interpreter, parse_script


def _script(world, text):
    lines = []
    script = Interpreter(world, parse_script(text), output=lines.append)
    script.run(max_seconds=20)
    return script, lines


def test_the_commands_are_registered_on_characters():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    names = commands_of(type(kid))
    for name in ("play-clip", "motion-graph-walk", "stop-clip", "set-passive", "controller"):
        assert name in names
    assert names["play-clip"].kind == "durative" and names["controller"].kind == "query"


def test_a_script_plays_a_clip_and_asks_who_controls():
    world = twig.World(seed=0)
    world.add_humanoid("kid")
    script, lines = _script(world, "kid: play-clip walk seconds=1 &\nworld: wait 0.5\n"
                                   "kid: controller\nworld: wait-all\nkid: controller\n")
    assert script.status == "finished"
    assert '"controller": "clip walk"' in lines[0] and '"kinematic": true' in lines[0]
    assert '"controller": "motor"' in lines[1]


def test_an_unknown_clip_fails_and_names_the_clips_there_are():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    action = play_clip(kid, "moonwalk")
    assert action.status == "failed"
    assert "no clip called 'moonwalk'" in action.reason and "walk, walk-left" in action.reason
    assert controller(kid)["controller"] == "motor"
    bad = play_clip(kid, "walk", loops=-1)
    assert bad.status == "failed" and "loops" in bad.reason


def test_stop_clip_hands_back_to_motor_control_and_fails_the_action():
    world = twig.World(seed=0)
    world.add_humanoid("kid")
    script, lines = _script(world, "- kid: play-clip walk loops=0 &\nworld: wait 1\n"
                                   "kid: stop-clip\nworld: wait 1\n")
    kid = world.body("kid")
    assert script.status == "finished" and kid.upright
    assert controller(kid)["controller"] == "motor" and controller(kid)["clip"] is None
    assert any("stopped" in line for line in lines)  # the play-clip action failed


def test_set_passive_is_directed_and_reversible():
    world = twig.World(seed=0)
    world.add_humanoid("kid")
    world.add_ball("ball", position=(2, 0.11, 0))
    _script(world, "kid: set-passive ball\n")
    kid = world.body("kid")
    assert controller(kid)["passive"] == ["ball"]
    _script(world, "kid: set-passive ball passive=false\n")
    assert controller(kid)["passive"] == []


def test_a_script_walks_a_motion_graph_through_points():
    world = twig.World(seed=0)
    world.add_humanoid("kid")
    script, lines = _script(world, "kid: motion-graph-walk (3, 0, 2) (5, 0, 5)\nkid: where\n")
    assert lines[-1].endswith("]")  # where: the hips after the walk
    assert script.status == "finished"
    hips = world.body("kid").hips
    assert abs(hips[0] - 5) < 0.5 and abs(hips[2] - 5) < 0.5


def test_the_viewer_panel_shows_which_controller_has_the_character():
    from twig.view.providers import inspect

    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    assert "controller" not in inspect(world, kid)
    play_clip(kid, "idle", loops=0)
    fields = inspect(world, kid)
    assert fields["controller"] == "clip idle" and fields["kinematic"] is True
    assert fields["clip"] == "idle"
