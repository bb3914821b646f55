"""Scene templates: a job's values set in the scene's tables before the loader checks them."""

import pytest

import twig
from twig.batch.template import apply_overrides, scene_editor
from twig.errors import SceneError


def scene():
    return {"world": {"seed": 0},
            "object": [{"type": "humanoid", "name": "kid", "behaviors": {"approach": {}}},
                       {"type": "ball", "name": "ball", "position": [0, 0.2, 0]}]}


def test_fields_are_set_where_the_keys_point_and_tables_made_on_the_way():
    data = scene()
    position = [1.0, 0.2, 0.0]
    apply_overrides(data, {"kid.height": 1.2, "ball.position": position,
                           "kid.behaviors.play-ball.area": 3.0, "world.iterations": 8,
                           "world.bounds.lower": [-1, 0, -1]}, "here")
    kid, ball = data["object"]
    assert kid["height"] == 1.2 and kid["behaviors"]["play-ball"] == {"area": 3.0}
    assert ball["position"] == position and ball["position"] is not position
    assert data["world"] == {"seed": 0, "iterations": 8, "bounds": {"lower": [-1, 0, -1]}}


def test_a_missing_object_or_a_path_through_a_value_is_named():
    with pytest.raises(SceneError) as error:
        apply_overrides(scene(), {"dog.height": 1.0}, "here")
    assert str(error.value) == ("here: 'dog.height': the scene has no object named 'dog' "
                                "(objects: kid, ball; or 'world.<field>')")
    with pytest.raises(SceneError) as error:
        apply_overrides(scene(), {"ball.position.x": 1.0}, "here")
    assert str(error.value) == ("here: 'ball.position.x': 'position' is [0, 0.2, 0] in the "
                                "scene, not a table")


def test_the_loader_builds_the_overridden_scene():
    world = twig.load_scene("walk", edit=scene_editor({"walker.height": 1.3,
                                                       "walker.position": [2.0, 0.0, 1.0]}, "t"))
    walker = world.body("walker")
    assert walker.hips[0] == pytest.approx(2.0, abs=0.05)
    assert walker.node_position("head")[1] < 1.35
    assert scene_editor({}, "t") is None
