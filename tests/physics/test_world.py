"""Bodies and links come and go safely; same seed, same future; bad input changes nothing."""

import math

import numpy as np
import pytest

import twig
from twig.errors import PhysicsError, UnknownNameError


def _busy_world(seed=0):
    world = twig.World(seed=seed)
    world.add_rope("rope", (0.0, 2.0, 0.0), segments=8)
    world.add_tetrahedron("tetra", (1.0, 1.0, 0.0), velocity=(0.0, 1.0, 0.5))
    world.add_cloth("cloth", (-1.5, 1.5, 0.0), resolution=8)
    world.add_humanoid("adult", (0.0, 0.0, 2.0))
    return world


def test_removing_a_body_keeps_the_others_intact():
    world = _busy_world()
    world.step(30)
    tetra, cloth = world.body("tetra"), world.body("cloth")
    cloth_pos = cloth.positions
    n_nodes, n_links = world.n_nodes, world.n_links
    tetra.remove()
    assert not tetra.alive and cloth.alive
    assert world.n_nodes == n_nodes - 4 and world.n_links == n_links - 6
    np.testing.assert_array_equal(cloth.positions, cloth_pos)  # handle follows the shift
    assert [b.name for b in world.bodies] == ["rope", "cloth", "adult"]
    world.step(60)
    # Bodies do not touch here, so the survivors move exactly as in a world without the tetra.
    for name in ("rope", "cloth", "adult"):
        np.testing.assert_array_equal(world.body(name).positions,
                                      _trajectory_without_tetra(name))
    with pytest.raises(UnknownNameError, match="removed"):
        _ = tetra.positions


def _trajectory_without_tetra(name):
    world = twig.World(seed=0)
    world.add_rope("rope", (0.0, 2.0, 0.0), segments=8)
    world.add_cloth("cloth", (-1.5, 1.5, 0.0), resolution=8)
    world.add_humanoid("adult", (0.0, 0.0, 2.0))
    world.step(90)
    return world.body(name).positions


def test_temporary_grab_link_between_ticks():
    world = twig.World()
    a = world.add_tetrahedron("a", (0.0, 1.0, 0.0))
    b = world.add_tetrahedron("b", (0.6, 1.0, 0.0))
    grab = world.add_link(a.nodes.start, b.nodes.start, grab=True)
    world.step(5)
    np.testing.assert_allclose(world.node_pos[a.nodes.start], world.node_pos[b.nodes.start],
                               atol=1e-3)
    grab.remove()
    assert not grab.alive
    with pytest.raises(UnknownNameError):
        grab.remove()
    world.step(5)


def test_same_scene_and_seed_give_identical_trajectories():
    hashes = []
    for _ in range(2):
        world = _busy_world(seed=7)
        world.run(seconds=2.0)
        hashes.append(world.state_hash())
    assert hashes[0] == hashes[1]


def test_restored_world_has_the_same_future():
    world = _busy_world()
    world.step(20)
    snap = world.snapshot()
    draw = world.rng.random()
    world.step(100)
    future = world.state_hash()
    world.body("tetra").remove()
    world.restore(snap)
    assert world.rng.random() == draw
    world.step(100)
    assert world.state_hash() == future


def test_node_names_and_lookup():
    world = _busy_world()
    hand = world.node_index("adult/l_hand")
    assert world.node_names()[hand] == "adult/l_hand"
    np.testing.assert_array_equal(world.body("adult").node_position("l_hand"),
                                  world.node_pos[hand])
    with pytest.raises(UnknownNameError, match="no node 'l_paw'"):
        world.body("adult").node("l_paw")
    with pytest.raises(UnknownNameError, match="no body called 'kid'"):
        world.body("kid")


@pytest.mark.parametrize("call, message", [
    (lambda w: w.add_body("x", "t", [[0, math.nan, 0]]), "finite"),
    (lambda w: w.add_body("x", "t", [[0, math.inf, 0]]), "finite"),
    (lambda w: w.add_body("x", "t", [[0, 1, 0]], mass=-1.0), "positive"),
    (lambda w: w.add_body("x", "t", [[0, 1, 0]], mass=0.0), "positive"),
    (lambda w: w.add_body("rope", "t", [[0, 1, 0]]), "already exists"),
    (lambda w: w.add_link(0, 1, rest=0.0), "grab=True"),
    (lambda w: w.add_link(0, 0), "two different nodes"),
    (lambda w: w.add_link(0, 10_000), "out of range"),
    (lambda w: w.add_link(0, 1, min=2.0, max=1.0), "min <= max"),
    (lambda w: w.add_link(0, 1, stiffness=0.0), "stiffness"),
    (lambda w: w.set_velocity(0, (1.0, math.nan, 0.0)), "finite"),
    (lambda w: w.set_position(0, (1.0, 2.0)), "shape"),
    (lambda w: w.move_to(0, (0, 1, 0), seconds=-1), "positive"),
    (lambda w: w.add_cloth("c2", (0, 1, 0), resolution=1), "resolution"),
    (lambda w: w.add_cloth("c2", (0, 1, 0), pinned=("top",)), "unknown corners"),
    (lambda w: w.add_plane((0, 0, 0), (0, 0, 0)), "non-zero"),
    (lambda w: w.set_damping(0, air=1.5), "damp_air"),
])
def test_bad_input_raises_a_clear_error_and_changes_nothing(call, message):
    world = _busy_world()
    world.step(3)
    before = (world.state_hash(), world.n_nodes, world.n_links, len(world.bodies))
    with pytest.raises(PhysicsError, match=message):
        call(world)
    assert (world.state_hash(), world.n_nodes, world.n_links, len(world.bodies)) == before
    assert isinstance(PhysicsError("x"), twig.TwigError)


def test_set_link_rest_changes_actuated_links_without_a_rebuild():
    world = twig.World(gravity=(0.0, 0.0, 0.0), ground=False)
    body = world.add_body("pair", "stick", [[0, 0, 0], [1, 0, 0]])
    link = world.add_link(0, 1, body=body)
    world.step()
    version = world.topology_version
    rows = world.link_rows([link.id])
    world.set_link_rest(rows, 1.2)
    world.step(5)
    assert world.topology_version == version
    assert link.length == pytest.approx(1.2, abs=1e-9)
    with pytest.raises(PhysicsError, match="positive"):
        world.set_link_rest(rows, -1.0)
    link.remove()
    with pytest.raises(UnknownNameError):
        world.link_rows([link.id])
