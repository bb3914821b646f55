"""World-level physics properties: momentum, pins, static nodes, ground, friction, controls."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import twig
from twig.physics import flags


def _random_world(seed, n, gravity=(0.0, 0.0, 0.0), ground=False):
    rng = np.random.default_rng(seed)
    world = twig.World(seed=seed, gravity=gravity, ground=ground)
    pos = rng.uniform(-1, 1, (n, 3)) + np.array([0.0, 2.0, 0.0])
    mass = rng.uniform(0.2, 5.0, n)
    body = world.add_body("cloud", "test", pos, mass=mass, damp_air=0.0,
                          velocity=rng.uniform(-2, 2, (n, 3)))
    first = body.nodes.start
    pairs = rng.choice(n, size=(2 * n, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]] + first
    world.add_links(pairs, body=body)
    # Disturb the links so the projection has work to do.
    world.node_pos[:] += rng.normal(0, 0.05, (n, 3))
    return world, mass


@given(st.integers(0, 10_000), st.integers(2, 30))
def test_momentum_is_conserved_without_gravity_contacts_or_pins(seed, n):
    world, mass = _random_world(seed, n)
    world.add_hinge(0, 1, 2 % n, (0, 1, 0, 1)) if n >= 3 else None
    momentum = (mass[:, None] * (world.node_pos - world.node_prev)).sum(axis=0)
    world.step(3)
    after = (mass[:, None] * (world.node_pos - world.node_prev)).sum(axis=0)
    np.testing.assert_allclose(after, momentum, atol=1e-9 * (1 + np.abs(momentum).max()))


@given(st.integers(0, 10_000), st.integers(3, 25), st.data())
def test_pinned_and_static_nodes_never_move(seed, n, data):
    world, _ = _random_world(seed, n, gravity=(0.0, -9.81, 0.0), ground=True)
    pinned = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    world.pin(pinned)
    static = world.add_body("anvil", "test", [[0.0, 3.0, 0.0], [0.5, 3.0, 0.0]],
                            mass=np.inf, damp_air=0.0)
    world.add_link(static.nodes.start, 0 if 0 not in pinned else n - 1)
    before = world.node_pos.copy()
    for _ in range(20):
        world.step()
        np.testing.assert_array_equal(world.node_pos[pinned], before[pinned])
        np.testing.assert_array_equal(world.node_pos[static.nodes], before[static.nodes])


def test_nothing_sinks_below_the_ground():
    world = twig.World()
    world.add_cloth("cloth", (0.0, 1.0, 0.0), resolution=12, pinned=())
    world.add_tetrahedron("tetra", (0.0, 2.0, 0.0), velocity=(0.0, -10.0, 0.0))
    for _ in range(180):
        world.step()
        assert world.node_pos[:, 1].min() >= -1e-12


def _slider(friction):
    world = twig.World(ground_friction=friction)
    body = world.add_body("block", "test", [[0.0, 0.0, 0.0], [0.2, 0.0, 0.0]],
                          damp_ground=0.0, damp_air=0.0, velocity=(3.0, 0.0, 0.0))
    world.add_links([[0, 1]], body=body)
    return world, body


def test_jakobsen_friction_stops_a_sliding_block_like_coulomb():
    world, body = _slider(friction=0.5)
    world.run(seconds=1.0)
    # Coulomb with mu = 0.5 stops 3 m/s in 3 / (0.5 g) = 0.61 s after 3^2 / (2 * 0.5 g) = 0.92 m.
    assert np.linalg.norm(body.velocity) < 1e-9
    assert 0.8 < body.centroid[0] - 0.1 < 1.05
    frictionless, body2 = _slider(friction=0.0)
    frictionless.run(seconds=1.0)
    np.testing.assert_allclose(body2.velocity, [3.0, 0.0, 0.0], atol=1e-9)


def test_ground_damping_applies_only_in_contact():
    world = twig.World()
    body = world.add_body("ball", "test", [[0.0, 5.0, 0.0]], damp_air=0.0, damp_ground=0.5,
                          velocity=(2.0, 0.0, 0.0))
    world.step(10)
    assert not world.node_flags[0] & flags.GROUNDED
    assert abs(body.velocity[0] - 2.0) < 1e-9  # no air damping: horizontal speed kept
    world.run(seconds=2.0)
    assert world.node_flags[0] & flags.GROUNDED
    assert body.velocity[0] < 0.1


def test_relative_damping_pulls_velocity_toward_the_reference_node():
    world = twig.World(gravity=(0.0, 0.0, 0.0), ground=False)
    body = world.add_body("pair", "test", [[0.0, 0.0, 0.0], [5.0, 0.0, 0.0]], damp_air=0.0)
    world.set_velocity(0, (1.0, 0.0, 0.0))
    world.set_velocity(1, (0.0, 0.0, 0.0))
    world.set_damping(0, relative_to=1, relative=0.2)
    world.step(30)
    assert 0 < body.world.node_vel[0, 0] < 1.0 * 0.8 ** 29
    assert world.node_vel[1, 0] == 0.0


def test_set_velocity_and_acceleration():
    world = twig.World(gravity=(0.0, 0.0, 0.0), ground=False)
    world.add_body("p", "test", [[0.0, 1.0, 0.0]], damp_air=0.0)
    world.set_velocity(0, (1.0, 2.0, 3.0))
    world.step()
    np.testing.assert_allclose(world.node_vel[0], [1.0, 2.0, 3.0])
    world.set_acceleration(0, (6.0, 0.0, 0.0))
    world.step()
    np.testing.assert_allclose(world.node_vel[0], [1.1, 2.0, 3.0])  # dv = a dt
    world.add_force(0, (60.0, 0.0, 0.0))  # 1 kg
    world.step()
    np.testing.assert_allclose(world.node_vel[0], [2.1, 2.0, 3.0])


def test_set_point_move_arrives_in_time_and_stops_by_itself():
    world = twig.World()
    arm = world.add_rope("arm", (0.0, 1.5, 0.0), length=0.6, segments=2,
                         direction=(0.0, -1.0, 0.0))
    hand = arm.nodes.stop - 1
    target = np.array([0.3, 1.3, 0.3])
    world.move_to(hand, target, seconds=0.5)
    world.step(29)
    assert world.is_moving(hand)
    world.step(1)
    assert not world.is_moving(hand)
    np.testing.assert_allclose(world.node_pos[hand], target, atol=1e-12)
    # The hand dragged the elbow along: the chain is still intact.
    assert arm.link_errors().max() < 1e-6


def test_lock_on_ground_contact_locks_where_the_node_lands():
    world = twig.World()
    body = world.add_body("foot", "test", [[0.0, 0.5, 0.0]], velocity=(1.0, 0.0, 0.0))
    world.lock_on_ground(body.nodes)
    world.run(seconds=1.0)
    assert world.node_flags[0] & flags.LOCKED
    landed = world.node_pos[0].copy()
    world.set_velocity(0, (5.0, 0.0, 0.0))
    world.step(10)
    np.testing.assert_array_equal(world.node_pos[0], landed)
    world.lock_on_ground(0, enabled=False)
    world.unlock_nodes(0)
    world.set_velocity(0, (0.0, 3.0, 0.0))
    world.step(5)
    assert world.node_pos[0, 1] > landed[1]
