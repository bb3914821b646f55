"""Chairs and tables: box props that stand on their legs and carry what is put on them."""

import numpy as np
import pytest
from box_helpers import box_corners

import twig
from twig.errors import PhysicsError


def test_a_chair_stands_on_its_four_legs_with_its_seat_chart_up():
    world = twig.World(seed=0)
    chair = world.add_chair("chair", position=(1.0, 0.05, 0.0), facing=0.7)
    world.run(seconds=2.0)
    corners = box_corners(world, chair)
    assert corners[:, 1].min() > -1e-3  # nothing under the floor...
    feet = corners[corners[:, 1] < 0.01]
    assert len(feet) == 16  # ...and it rests on the 4 bottom corners of each of its 4 legs
    seat = world.atlas(chair)["seat"]
    np.testing.assert_allclose(seat.origin, (1.0, 0.45, 0.0), atol=2e-3)
    np.testing.assert_allclose(seat.normal, (0.0, 1.0, 0.0), atol=2e-3)
    # The chart's z is the chair's front (facing 0.7 rad about +y), away from its back.
    np.testing.assert_allclose(seat.axes[2], (np.sin(0.7), 0.0, np.cos(0.7)), atol=2e-3)
    back = box_corners(world, chair)[-8:]  # the back is the chair's last box
    assert seat.from_world(back)[:, 2].max() < -0.15
    assert world.is_asleep(chair)


def test_what_is_put_on_a_table_stays_on_its_top():
    world = twig.World(seed=0)
    table = world.add_table("table", position=(0.0, 0.0, 0.0), facing=0.2)
    top = world.atlas(table)["top"]
    props = [world.add_clipboard("clipboard", position=top.to_world((-0.3, 0.03, 0.0))),
             world.add_block("cube", position=top.to_world((0.3, 0.1, 0.2)),
                             size=(0.15, 0.15, 0.15), mass=1.0),
             world.add_pen("pen", position=top.to_world((0.2, 0.03, -0.2))),
             world.add_ball("ball", position=top.to_world((0.0, 0.2, 0.0)), radius=0.1)]
    world.run(seconds=3.0)
    top = world.atlas(table)["top"]
    np.testing.assert_allclose(top.origin, (0.0, 0.75, 0.0), atol=2e-3)  # not pushed down
    np.testing.assert_allclose(top.normal, (0.0, 1.0, 0.0), atol=2e-3)
    lowest = {"clipboard": box_corners(world, props[0]), "cube": box_corners(world, props[1]),
              "pen": world.node_pos[props[2].nodes] - (0.0, 0.005, 0.0),
              "ball": world.node_pos[props[3].nodes] - (0.0, 0.1, 0.0)}
    for name, points in lowest.items():
        local = top.from_world(points)
        assert local[:, 1].min() == pytest.approx(0.0, abs=3e-3), name  # resting on the top
        assert (np.abs(local[:, 0]) < 0.6).all() and (np.abs(local[:, 2]) < 0.4).all(), name


def _cube_rests_on(world, furniture, chart, place, height, mass, seconds):
    """Put a 0.3 m cube of ``mass`` kg with its centre ``height`` m above point ``place`` (x, z)
    of ``furniture``'s chart ``chart``; after 1 s to settle it must stay within 5 mm for
    ``seconds`` and fall asleep. Returns the chart as it is then and the cube's corners in it."""
    face = world.atlas(furniture)[chart]
    cube = world.add_block("cube", position=face.to_world((place[0], height, place[1])),
                           size=(0.3, 0.3, 0.3), mass=mass)
    world.run(seconds=1.0)
    settled = world.node_pos[cube.nodes].copy()
    world.run(seconds=seconds)
    assert np.abs(world.node_pos[cube.nodes] - settled).max() < 0.005
    assert world.is_asleep(cube)
    face = world.atlas(furniture)[chart]
    return face, face.from_world(box_corners(world, cube))


@pytest.mark.parametrize("mass, place", [(10.0, (0.0, 0.0)), (30.0, (0.0, 0.0)),
                                         (30.0, (0.2, -0.1)), (30.0, (-0.3, 0.15)),
                                         (60.0, (0.0, 0.0)), (60.0, (-0.3, 0.15))])
def test_a_heavy_cube_put_on_a_table_rests_there_and_sleeps(mass, place):
    """A 30 kg cube on the 20 kg table used to rock and walk off it within 10 s (the corners'
    pushes tilted the frames the same way every iteration; ``narrow.REVERSED``), and a 60 kg
    one crept 2-3 cm in 4 s (friction moved the table under it: ``response.push_apart``'s
    ``held``)."""
    world = twig.World(seed=0)
    table = world.add_table("table", position=(0.0, 0.0, 0.0), facing=0.3)
    _, local = _cube_rests_on(world, table, "top", place, 0.15, mass, 4.0)
    assert local[:, 1].min() == pytest.approx(0.0, abs=3e-3)  # resting on the top


@pytest.mark.parametrize("mass, place, facing", [(10.0, (0.0, 0.0), 0.0),
                                                 (30.0, (0.04, 0.03), 0.7),
                                                 (60.0, (-0.03, 0.02), -0.4)])
def test_a_load_heavier_than_the_chair_rests_on_its_seat(mass, place, facing):
    """A box of 2 to 12 times the 5 kg chair's mass used to slide across the seat and fall off
    it, or throw the chair off the floor: friction between box and seat moved the light chair
    (shock propagation held it only against pushes into the floor). Turned 0.7 rad on the
    seat, the cube overhangs the seat's corners: it rests on the crossings of its edges with
    the seat's (``box_pairs._box_edges_in``), without which it tipped over a corner."""
    world = twig.World(seed=0)
    chair = world.add_chair("chair", position=(0.0, 0.0, 0.0), facing=facing)
    seat, local = _cube_rests_on(world, chair, "seat", place, 0.16, mass, 5.0)
    assert world.is_asleep(chair)
    assert local[:, 1].min() == pytest.approx(0.0, abs=3e-3)
    assert seat.origin[1] == pytest.approx(0.45, abs=3e-3)


@pytest.mark.parametrize("kind, size, mass, drop", [
    ("table", (0.2, 0.05, 0.3), 2.0, 0.225),  # a flat board, landing at 2.1 m/s
    ("chair", (0.3, 0.2, 0.3), 2.0, 0.25),
    ("chair", (0.3, 0.2, 0.3), 5.0, 0.15),
])
def test_a_block_dropped_on_furniture_lands_on_it(kind, size, mass, drop):
    """Such blocks used to sink through the top: a box pushed out at its four corners spent
    the pair's allowance for the tick (its approach plus the depenetration allowance) on the
    first two, and went a little deeper every tick (``response.SEPARATED``)."""
    world = twig.World(seed=0)
    furniture = (world.add_table if kind == "table" else world.add_chair)("f", (0.0, 0.0, 0.0))
    face = world.atlas(furniture)["top" if kind == "table" else "seat"]
    block = world.add_block("block", face.to_world((0.0, size[1] / 2 + drop, 0.0)), size=size,
                            mass=mass)
    world.run(seconds=3.0)
    local = world.atlas(furniture)["top" if kind == "table" else "seat"].from_world(
        box_corners(world, block))
    assert local[:, 1].min() == pytest.approx(0.0, abs=3e-3)  # on the top, not through it
    assert world.is_asleep(block)


def test_a_child_dropped_on_a_chair_stays_sitting_on_its_seat():
    world = twig.World(seed=0)
    chair = world.add_chair("chair", position=(0.0, 0.0, 0.0))
    child = world.add_humanoid("child", position=(0.0, 0.5, 0.0), preset="child")
    world.run(seconds=3.0)
    seat = world.atlas(chair)["seat"]
    assert seat.origin[1] == pytest.approx(0.45, abs=5e-3)  # the chair holds
    pelvis = seat.from_world(child.node_position("pelvis"))
    assert 0.0 < pelvis[1] < 0.15 and abs(pelvis[0]) < 0.225 and abs(pelvis[2]) < 0.225
    assert chair.link_errors().max() < 0.01


def test_a_heavy_load_on_the_seat_stays_at_seat_height():
    world = twig.World(seed=0)
    chair = world.add_chair("chair", position=(0.0, 0.0, 0.0))
    load = world.add_block("load", position=(0.0, 0.61, 0.0), size=(0.3, 0.3, 0.3), mass=30.0)
    world.run(seconds=3.0)
    seat = world.atlas(chair)["seat"]
    assert seat.from_world(box_corners(world, load))[:, 1].min() == pytest.approx(0.0, abs=5e-3)
    assert seat.origin[1] == pytest.approx(0.45, abs=5e-3)
    assert chair.link_errors().max() < 0.01


@pytest.mark.parametrize("call, message", [
    (lambda w: w.add_chair("c", (0, 0, 0), seat_height=-0.4), r"c: seat_height: expected a pos"),
    (lambda w: w.add_chair("c", (0, 0, 0), facing=float("nan")), r"c: facing: expected a finite"),
    (lambda w: w.add_table("t", (0, 0, 0), width=0), r"t: width: expected a positive"),
    (lambda w: w.add_table("t", (0, 0, 0), friction=-1), r"t: friction: expected a friction"),
    (lambda w: w.add_table("t", (0, 0)), r"t: position: expected shape"),
])
def test_bad_furniture_is_refused_and_nothing_is_added(call, message):
    world = twig.World()
    with pytest.raises(PhysicsError, match=message):
        call(world)
    assert world.n_nodes == 0 and world.n_links == 0 and len(world.volumes) == 0
