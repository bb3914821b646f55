"""Behaviours from scene files, kid.behavior and the queries, the viewer's providers, and the
trace written by --trace."""

import itertools
import json

import numpy as np
import pytest

import twig
from twig.behavior import add_behaviors
from twig.cli import main
from twig.commands import commands_of, resolve_object
from twig.errors import SceneError, TwigError
from twig.export.trace import TraceError, TraceWriter, read_trace
from twig.view import providers

SCENE = """
[[object]]
type = "humanoid"
name = "kid"
preset = "child"
{behaviors}

[[object]]
type = "ball"
name = "ball"
position = [2.0, 0.11, 2.0]
"""


def scene(tmp_path, behaviors):
    path = tmp_path / "s.toml"
    path.write_text(SCENE.format(behaviors=behaviors))
    return path


def test_a_scene_gives_a_character_behaviours_and_it_plays(tmp_path):
    world = twig.load_scene(scene(tmp_path, 'behaviors = ["play-ball"]'))
    kid = world.body("kid")
    assert kid.behavior is None  # before the first tick nothing is selected
    world.run(2.0)
    assert kid.behavior == "play-ball"
    assert world.behavior.agent("kid").behaviors() == {"goals": "play-ball", "motor": "approach"}
    assert world.behavior.agent("kid").focus == "ball"
    query = commands_of(type(kid))["behavior"]
    assert query.kind == "query"
    target = resolve_object(world, "kid")[0]
    assert query.function(target) == {"goals": "play-ball", "motor": "approach"}
    assert commands_of(type(kid))["focus"].function(target)["focus"] == "ball"
    fields = providers.inspect(world, kid)
    assert fields["behavior"] == "play-ball" and fields["focus"] == "ball"
    assert set(fields["activation"]) == {"play-ball", "freeze", "pain-withdrawal", "approach"}
    focus, error = providers.overlay_segments(world, "focus lines")
    assert error is None and focus.end.shape == (1, 3)
    assert np.allclose(focus.end[0], world.body("ball").positions.mean(axis=0))
    assert fields["mode"] == "standing"  # the motor layer's fields are still there


@pytest.mark.parametrize(("field", "message"), [
    ('behaviors = ["dance"]', "unknown behaviour 'dance'"),
    ('behaviors = { play-ball = { colour = "red" } }', "unknown setting 'colour'"),
    ('behaviors = { play-ball = { ball = "moon" } }', "names 'moon', which is not an object"),
    ('behaviors = { carry = 3 }', "carry: expected an object name"),
    ('behaviors = "play-ball"', "expected a list of names or a table"),
])
def test_bad_behaviours_in_a_scene_name_the_file_object_and_field(tmp_path, field, message):
    with pytest.raises(SceneError, match=message) as err:
        twig.load_scene(scene(tmp_path, field))
    assert "s.toml" in str(err.value) and ("'kid'" in str(err.value))


def test_a_character_gets_one_mind_and_rag_dolls_none(tmp_path):
    world = twig.World()
    kid = world.add_humanoid("kid")
    add_behaviors(kid, [])
    with pytest.raises(TwigError, match="already has behaviours"):
        add_behaviors(kid, [])
    doll = scene(tmp_path, 'control = false\nbehaviors = ["freeze"]')
    with pytest.raises(SceneError, match="only a controlled humanoid"):
        twig.load_scene(doll)


def test_the_trace_holds_behaviour_focus_action_and_pain_events(tmp_path):
    world = twig.load_scene(scene(tmp_path, 'behaviors = ["play-ball"]'))
    path = tmp_path / "t.jsonl"
    with TraceWriter(world, path) as trace:
        world.run(3.0)
        world.add_ball("rock", (2.0, 0.6, world.body("kid").hips[2]), velocity=(-14, 1, 0),
                       mass=1.0)
        world.run(1.0)
    events = read_trace(path)
    assert len(events) == trace.count > 0
    kinds = {e["type"] for e in events}
    assert {"behavior", "focus", "action", "pain"} <= kinds
    assert events[0] == {"t": 0.0, "type": "focus", "agent": "kid", "object": "ball"}
    assert all(a["t"] <= b["t"] for a, b in itertools.pairwise(events))
    pain = next(e for e in events if e["type"] == "pain")
    assert set(pain) >= {"t", "agent", "level"}
    assert json.loads(path.read_text().splitlines()[0]) == events[0]


def test_bad_trace_files_are_reported(tmp_path):
    with pytest.raises(TraceError, match="cannot write"):
        TraceWriter(twig.World(), tmp_path / "missing" / "t.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"t": 0, "type": "focus"}\nnot json\n')
    with pytest.raises(TraceError, match=r"bad\.jsonl:2"):
        read_trace(bad)


def test_twig_run_writes_the_trace(tmp_path, capsys):
    path = tmp_path / "pg.jsonl"
    assert main(["run", "playground", "--seconds", "3", "--trace", str(path)]) == 0
    out = capsys.readouterr().out
    events = read_trace(path)
    assert f"wrote {len(events)} events to {path}" in " ".join(out.split())
    behaviors = {(e["agent"], e["behavior"]) for e in events if e["type"] == "behavior"}
    assert ("kid", "play-ball") in behaviors and ("kid2", "play-ball") in behaviors
    assert ("kid", "doll") in {(e["agent"], e["object"]) for e in events if e["type"] == "grab"}
