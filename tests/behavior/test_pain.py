"""Pain withdrawal (Horswill IX): a reflex within 0.2 s of a painful hit, away from its source."""

import numpy as np

import twig
from twig.behavior import add_behaviors


def test_pain_withdrawal_fires_within_0_2_s_and_moves_away_from_the_source():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid", height=1.1)
    agent = add_behaviors(kid, ["freeze"])
    world.run(0.5)
    events = []
    world.events.subscribe(events.append, types=["pain", "behavior"])
    start = kid.hips.copy()
    world.add_ball("rock", (2.0, 0.7, 0.0), velocity=(-14.0, 1.0, 0.0), mass=1.0)  # from +x
    world.run(1.5)
    hit = next(e for e in events if e["type"] == "pain" and e["agent"] == "kid")
    assert hit["source"] == "rock"
    flinch = next(e for e in events if e["type"] == "behavior")
    assert flinch["behavior"] == "pain-withdrawal" and flinch["level"] == "motor"
    assert 0 <= flinch["t"] - hit["t"] <= 0.2
    moved = kid.hips - start
    assert moved[0] < -0.5 and abs(moved[2]) < 0.3  # away from the rock's side
    assert kid.upright and agent.behaviors()["motor"] == "freeze"  # and back to normal


def test_no_flinch_from_what_a_character_deliberately_hits():
    world = twig.World(seed=0)
    a = world.add_humanoid("a", height=1.1)
    world.add_humanoid("b", position=(0.0, 0.0, 0.9), height=1.1, facing=np.pi)
    agent = add_behaviors(a, {"fight": {"rival": "b", "ball": "b", "temper": 10.0}})
    events = []
    world.events.subscribe(events.append, types=["pain", "behavior"])
    world.run(3.0)
    # The blows hurt the one struck, not the fists that strike (driven hands feel no pain).
    assert any(e["type"] == "pain" and e["agent"] == "b" and e["source"] == "a"
               for e in events)
    assert "pain-withdrawal" not in [e["behavior"] for e in events if e["type"] == "behavior"]
    assert agent.behavior == "fight" and agent.behaviors()["motor"] == "approach"


def test_sit_down_and_stand_up_fire_when_urged():
    world = twig.World(seed=0)
    world.add_chair("chair", position=(0.0, 0.0, 1.0))
    kid = world.add_humanoid("kid")
    agent = add_behaviors(kid, {"sit-down": {"chair": "chair"}, "stand-up": {}})
    world.run(0.5)
    assert agent.behaviors()["motor"] == "freeze"
    agent.find("sit-down").urge = 0.8
    world.run(8.0)
    assert kid.mode == "sitting" and agent.behaviors()["motor"] == "sit-down"
    agent.find("sit-down").urge = 0.0
    agent.find("stand-up").urge = 0.8
    world.run(6.0)
    assert kid.mode == "standing" and kid.upright
