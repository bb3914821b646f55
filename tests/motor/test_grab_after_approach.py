"""``grab`` and ``hold`` right after ``approach`` (the usual agent sequence) get the object:
the approach leaves it in reach, a node under a block's skin is grasped by touching the block,
and an object a step away is stepped up to."""

import numpy as np
import pytest

import twig

ITEMS = {
    "ball": lambda w: w.add_ball("item", position=(2.0, 0.11, 1.5)),
    "block": lambda w: w.add_block("item", position=(2.0, 0.25, 1.5), size=(0.3, 0.3, 0.3),
                                   mass=2.0),
    "doll": lambda w: w.add_doll("item", position=(2.0, 0.0, 1.5)),
    "clipboard": lambda w: w.add_clipboard("item", position=(2.0, 0.02, 1.5)),
}


def approach_then(preset: str, item: str, command: str, distance: float = 0.4):
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid", position=(0, 0, 0), preset=preset)
    ITEMS[item](world)
    approach = kid.approach("item", distance=distance)
    world.run(seconds=8)
    assert approach.status == "succeeded", approach.reason
    action = getattr(kid, command)("item")
    world.run(seconds=6)
    return world, kid, action


@pytest.mark.parametrize("preset", ["adult", "child"])
@pytest.mark.parametrize("item", list(ITEMS))
def test_grab_after_approach(preset, item):
    world, kid, grab = approach_then(preset, item, "grab")
    assert grab.status == "succeeded", grab.reason
    assert kid.gripped("right") == "item"
    world.run(seconds=1)  # the item moves with the hand: one of its nodes is at the hand
    gaps = world.body("item").positions - kid.node_position("r_hand")
    assert np.linalg.norm(gaps, axis=1).min() < 0.05


@pytest.mark.parametrize(("preset", "item"), [("adult", "doll"), ("child", "block")])
def test_hold_after_approach(preset, item):
    world, kid, hold = approach_then(preset, item, "hold")
    assert hold.status == "succeeded", hold.reason
    # Carried at the side: the item went up with the hand.
    assert world.body("item").centroid[1] > 0.25 * kid.scale


def test_a_grab_steps_up_to_an_object_a_step_away():
    world, kid, grab = approach_then("adult", "block", "grab", distance=1.2)
    assert grab.status == "succeeded", grab.reason
    gap = world.body("item").centroid - kid.hips
    assert np.hypot(gap[0], gap[2]) < 0.8 * kid.arm_length
