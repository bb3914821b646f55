"""Inspection and overlay providers, and the history the panel plots."""

import numpy as np
import pytest

import twig
from twig.view import physics_layer, providers, registry
from twig.view.history import History, numeric_series
from twig.view.panel import describe
from twig.view.providers import INSPECTORS, OVERLAYS, Segments, add_inspector, add_overlay


def test_physics_inspector_reports_pain_speed_and_touch():
    world = twig.World()
    kid = world.add_humanoid("kid")
    world.lock_nodes(kid.nodes)
    world.add_block("crate", position=(0, 3, 0), size=(0.4, 0.4, 0.4), mass=60)
    world.run(seconds=1)
    fields = providers.inspect(world, kid)
    assert fields["type"] == "humanoid"
    assert fields["pain"] == pytest.approx(world.pain(kid), abs=1e-4) and fields["pain"] > 0
    assert fields["touching"] == ["crate"]
    assert fields["speed"] == 0.0 and fields["asleep"] in (True, False)


def test_layers_above_add_fields_and_overlays(monkeypatch):
    monkeypatch.setattr(registry, "INSPECTORS", dict(INSPECTORS))
    monkeypatch.setattr(registry, "OVERLAYS", dict(OVERLAYS))
    world = twig.World()
    kid = world.add_humanoid("kid")

    def behaviour(world, body):
        if body.type != "humanoid":
            return None
        return {"behavior": "approach", "activation": {"approach": 0.8, "freeze": 0.1},
                "actions": ["walk-to ball"]}

    def gaze(world):
        head = world.node_pos[kid.node("head")]
        return Segments(head[None], head[None] + (0.0, 0.0, 1.0))

    add_inspector("behaviour", behaviour)
    add_overlay("gaze lines", gaze, color=(0, 120, 255))
    fields = providers.inspect(world, kid)
    assert fields["behavior"] == "approach" and fields["pain"] == 0.0
    assert providers.OVERLAYS["gaze lines"].source(world).end.shape == (1, 3)
    text = describe("kid", fields)
    assert "**behavior**: approach" in text and "approach 0.8" in text
    assert "**actions**: walk-to ball" in text and "**pain**: 0 J" in text
    series = numeric_series(fields)
    assert series["activation"] == {"approach": 0.8, "freeze": 0.1}
    assert series["pain"] == {"pain": 0.0} and series["speed"] == {"speed": 0.0}
    assert set(series) == {"pain", "speed", "activation", "heading", "walking", "steps"}


def test_velocity_overlay_draws_moving_bodies_only():
    world = twig.World()
    world.add_ball("ball", position=(0, 1, 0), velocity=(2, 0, 0))
    world.lock_nodes(world.add_humanoid("kid", position=(3, 0, 0)).nodes)
    world.step()
    seg = physics_layer.velocity_segments(world)
    assert len(seg.start) == 1
    np.testing.assert_allclose(seg.end - seg.start, [[1.0, seg.end[0, 1] - seg.start[0, 1], 0]],
                               atol=0.05)


def test_history_keeps_the_last_seconds_and_gaps_missing_series():
    history = History(seconds=1.0)
    for k in range(120):
        fields = {"pain": k * 0.1, "name": "x"}
        if k >= 100:
            fields["activation"] = {"approach": 1.0}
        history.add(k / 60, fields)
    charts = history.charts()
    t, pain = charts["pain"][0], charts["pain"][1]["pain"]
    assert t[-1] == 119 / 60 and t[-1] - t[0] <= 1.0 and len(t) >= 60
    assert pain[-1] == pytest.approx(11.9)
    approach = charts["activation"][1]["approach"]
    assert np.isnan(approach[:-20]).all() and (approach[-20:] == 1.0).all()
    history.add(0.5, {"pain": 0.0})                   # time went back: a restored snapshot
    assert len(history.charts()["pain"][0]) == 1


def test_a_failing_provider_shows_its_error_instead_of_stopping_the_world(monkeypatch):
    monkeypatch.setattr(registry, "INSPECTORS", dict(INSPECTORS))
    monkeypatch.setattr(registry, "OVERLAYS", dict(OVERLAYS))
    world = twig.World()
    kid = world.add_humanoid("kid")
    add_inspector("broken", lambda world, body: {"focus": body.nodes[99]})
    add_overlay("broken lines", lambda world: 1 / 0)
    fields = providers.inspect(world, kid)
    assert fields["broken error"].startswith("TypeError") and fields["type"] == "humanoid"
    seg, error = providers.overlay_segments(world, "broken lines")
    assert len(seg.start) == 0 and error == "broken lines overlay: ZeroDivisionError: " \
        "division by zero"
