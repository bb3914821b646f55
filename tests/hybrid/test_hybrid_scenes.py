"""The hybrid scenes: a clip-driven kick knocks a partner back; a kicked ball reaches a goalie."""

import numpy as np

import twig


def test_kick_knocks_the_partner_down_and_it_gets_up_while_the_kicker_stays_kinematic():
    world = twig.load_scene("kick")
    seen = []
    world.events.subscribe(seen.append, types=["controller"])
    partner = world.body("partner")
    lowest = np.inf
    for _ in range(round(world.scene.seconds / 0.1)):
        world.run(0.1)
        lowest = min(lowest, partner.node_position("head")[1])
    kicker = [e["controller"] for e in seen if e["agent"] == "kicker"]
    assert kicker == ["clip kick", "motor"]  # the partner is passive to the kicker
    assert [e["controller"] for e in seen if e["agent"] == "partner"] == [
        "clip idle", "tracking idle", "reflex fall", "clip fall-recovery", "clip idle", "motor"]
    assert lowest < 0.3                      # down on the ground...
    assert partner.upright                   # ...and up again
    assert world.script.status == "finished"


def test_soccer_ball_is_kicked_to_the_goalie_who_grabs_it():
    world = twig.load_scene("soccer")
    ball = world.body("ball")
    world.run(seconds=world.scene.seconds)
    assert world.script.status == "finished"
    assert world.body("goalie").gripped("right") == "ball"
    # The ball hangs from the goalie's hand, within an arm's length of its hips.
    assert np.linalg.norm(ball.centroid[[0, 2]] - world.body("goalie").hips[[0, 2]]) < 0.8


def test_hybrid_control_is_deterministic():
    hashes = []
    for _ in range(2):
        world = twig.load_scene("trip")
        world.run(seconds=4.5)
        hashes.append(world.state_hash())
    assert hashes[0] == hashes[1]
