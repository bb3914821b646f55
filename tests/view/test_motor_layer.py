"""The motor layer's inspection fields and overlays, as the viewer reads them."""

import numpy as np

import twig
from twig.view.providers import inspect, overlay_segments


def test_character_panel_and_overlays_follow_the_motor_state():
    world = twig.World()
    kid = world.add_humanoid("kid")
    world.add_ball("ball", (1.0, 0.15, 2.0))
    kid.walk_to((0.0, 0.0, 3.0))
    kid.look_at("ball")
    world.run(seconds=1.0)
    fields = inspect(world, kid)
    assert fields["mode"] == "standing" and fields["actions"] == ["walk-to"]
    assert fields["walking"] > 1.0 and fields["steps"] >= 1
    walk, error = overlay_segments(world, "walk vectors")
    assert error is None and len(walk.start) == 1
    assert (walk.end - walk.start)[0, 2] > 0.5          # heading up +z
    gaze, _ = overlay_segments(world, "gaze lines")
    toward = world.body("ball").centroid - kid.node_position("head")
    direction = (gaze.end - gaze.start)[0]
    assert direction @ toward / (np.linalg.norm(direction) * np.linalg.norm(toward)) > 0.99
    assert "mode" not in inspect(world, world.body("ball"))
