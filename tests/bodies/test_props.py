"""The rag doll, the pen and the clipboard; every prop type is reachable from Python."""

import math

import numpy as np
import pytest

import twig
from twig.bodies.humanoid import NODE_NAMES
from twig.bodies.stationery import CLIPBOARD_NODES
from twig.bodies.tethers import add_grip_tethers
from twig.errors import PhysicsError


def test_the_doll_is_a_small_passive_humanoid_recorded_as_a_doll():
    world = twig.World(seed=0)
    doll = world.add_doll("doll", position=(0.0, 0.0, 0.0))
    assert doll.type == "doll" and doll.node_names == NODE_NAMES
    mine = world.links["body"] == doll.id
    assert world.link_visible[mine].sum() == 13
    assert doll.positions[:, 1].max() == pytest.approx(0.45 * 0.935, rel=1e-6)  # head node
    assert (1.0 / world.node_inv_mass[doll.nodes]).sum() == pytest.approx(0.4)
    assert world.body_state["pain_threshold"][world.body_state["id"] == doll.id] == math.inf


def test_the_doll_flops_to_the_ground_and_lies_still_feeling_nothing():
    world = twig.World(seed=0)
    doll = world.add_doll("doll", position=(0.0, 0.5, 0.0))
    world.add_block("brick", position=(0.0, 1.0, 0.0), size=(0.2, 0.1, 0.1), mass=3.0)
    world.run(seconds=1.0)
    assert "brick" in world.touched(doll, within=1.0)  # the brick hit it...
    world.run(seconds=3.0)
    assert world.node_pos[doll.nodes, 1].min() >= 0.0
    assert world.node_pos[doll.nodes, 1].max() < 0.15  # lying down, not standing
    assert world.pain(doll) == 0.0 and not world.pain_events  # ...and it felt nothing
    assert world.is_asleep(doll)


def test_a_pen_has_a_tip_and_a_top_and_lies_on_its_side():
    world = twig.World(seed=0)
    pen = world.add_pen("pen", position=(0.0, 0.3, 0.0), direction=(0.0, 0.0, 2.0))
    assert pen.node_names == ("tip", "top")
    np.testing.assert_allclose(pen.node_position("tip") - pen.node_position("top"),
                               (0.0, 0.0, 0.14))
    world.run(seconds=2.0)
    np.testing.assert_allclose(world.node_pos[pen.nodes, 1], 0.005, atol=1e-6)
    assert pen.link_errors().max() < 1e-6


@pytest.mark.parametrize("held_by", ["clip", "bottom_left"])
def test_the_clipboard_can_be_dragged_by_its_clip_or_a_corner(held_by):
    world = twig.World(seed=0)
    clipboard = world.add_clipboard("clipboard", position=(0.0, 0.01, 0.0))
    assert clipboard.node_names == CLIPBOARD_NODES
    front = world.atlas(clipboard)["front"]
    assert front.from_world(clipboard.node_position("clip"))[1] > 0.02  # the clip stands out
    assert front.from_world(clipboard.node_position("bottom_left"))[0] < -0.1
    corner = clipboard.node_position(held_by)
    # Dragged along the ground by that node, it follows without coming apart.
    hand = world.add_ball("hand", position=corner, radius=0.02)
    world.set_collision(hand, mask=0)
    world.add_link(hand.nodes.start, clipboard.node(held_by), grab=True)
    world.move_to(hand.nodes.start, corner + np.array([1.0, 0.0, 0.0]), seconds=2.0)
    world.run(seconds=2.0)
    world.lock_nodes(hand.nodes.start)  # the dragger stops
    world.run(seconds=1.0)
    assert clipboard.centroid[0] > 0.6  # it came along, trailing behind the corner
    assert clipboard.node_position(held_by)[0] == pytest.approx(corner[0] + 1.0, abs=3e-3)
    assert clipboard.link_errors().max() < 0.01
    np.testing.assert_allclose(world.atlas(clipboard)["front"].normal, (0, 1, 0), atol=0.02)


@pytest.mark.parametrize("call, message", [
    (lambda w: w.add_doll("d", (0, 0, 0), height=-0.45), r"d: height: expected a positive"),
    (lambda w: w.add_doll("d", (0, 0, 0), mass=0), r"d: mass: expected a positive"),
    (lambda w: w.add_pen("p", (0, 0, 0), direction=(0, 0, 0)), r"p: direction must be non-zero"),
    (lambda w: w.add_clipboard("c", (0, 0, 0), size=(0.2, 0, 0.3)), r"c: size must be positive"),
    (lambda w: w.add_clipboard("c", (0, 0, 0), yaw="left"), r"c: yaw: expected a number"),
    (lambda w: w.add_merry_go_round("m", radius=-1), r"m: radius: expected a positive"),
    (lambda w: w.add_block("b", (0, 0, 0), friction=-0.5), r"b: friction: expected a friction"),
])
def test_bad_props_are_refused_and_nothing_is_added(call, message):
    world = twig.World()
    with pytest.raises(PhysicsError, match=message):
        call(world)
    assert world.n_nodes == 0 and world.n_links == 0 and len(world.volumes) == 0


ISSUE_TYPES = ("humanoid", "ball", "doll", "merry_go_round", "chair", "table", "clipboard", "pen",
               "weight", "box_model", "rope", "cloth")


@pytest.mark.parametrize("kind", ISSUE_TYPES)
def test_every_type_of_the_issue_has_a_world_method(kind):
    assert callable(getattr(twig.World, f"add_{kind}"))


def test_grip_tethers_measure_each_node_along_the_doll():
    """A tether's length is the path from the grip along the rigid links: the next node's is
    its link, and no node of the doll as built lies farther than its tether."""
    world = twig.World()
    doll = world.add_doll("doll", (0.0, 0.3, 0.0))
    hand = world.add_ball("hand", (0.0, 1.0, 0.0))
    foot, knee = doll.node("l_foot"), doll.node("l_knee")
    ids = add_grip_tethers(world, hand.nodes.start, doll, foot)
    rows = world.link_rows(ids)
    ends = world.link_nodes[rows]
    assert (ends[:, 0] == hand.nodes.start).all()
    assert sorted(ends[:, 1]) == [n for n in range(doll.nodes.start, doll.nodes.stop)
                                  if n != foot]
    along = dict(zip(ends[:, 1], world.link_max[rows], strict=True))
    shin = np.linalg.norm(world.node_pos[foot] - world.node_pos[knee])
    assert along[knee] == pytest.approx(shin)
    straight = np.linalg.norm(world.node_pos[ends[:, 1]] - world.node_pos[foot], axis=1)
    assert (straight <= world.link_max[rows] + 1e-9).all()
    assert (world.link_min[rows] == 0.0).all()
    world.remove_links(ids)
    assert not np.isin(world.links["id"], ids).any()
