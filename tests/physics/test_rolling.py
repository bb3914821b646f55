"""A ball rolls on the ground (twig.physics.collision.rolling): the spin its plane friction gives
it, the speeds and accelerations of a rolling sphere, Coulomb's bound and energy."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twig.errors import PhysicsError
from twig.world import World

R = 0.11
"""The default ball's radius, m."""


def _ball(world, velocity=(0.0, 0.0, 0.0), **kwargs):
    ball = world.add_ball("ball", (0.0, R, 0.0), velocity=velocity, **kwargs)
    return ball, ball.nodes.start


def _velocity(world, i):
    return (world.node_pos[i] - world.node_prev[i]) / world.dt


def test_a_ball_rolled_along_the_ground_rolls_on_then_stops():
    world = World()
    ball, i = _ball(world, velocity=(4.0, 0.0, 0.0))
    world.run(seconds=0.5)
    v = _velocity(world, i)
    omega = world.spin(ball)
    # Rolling, not sliding: the contact point is still (omega = v / r about -z).
    assert v[0] > 1.8
    assert omega[2] * -R == pytest.approx(v[0], rel=1e-6)
    world.run(seconds=7.5)
    assert world.node_pos[i, 0] > 4.0  # a block-like ball stopped within 0.33 m
    assert world.is_asleep(ball) and np.all(world.spin(ball) == 0.0)


def test_a_ball_that_does_not_roll_slides_to_a_stop():
    world = World()
    ball, i = _ball(world, velocity=(4.0, 0.0, 0.0), inertia=0.0)
    world.run(seconds=2.0)
    assert world.node_pos[i, 0] < 0.5
    with pytest.raises(PhysicsError, match="no rolling sphere"):
        world.spin(ball)


@pytest.mark.parametrize("k", [2.0 / 3.0, 2.0 / 5.0])
def test_a_ball_launched_without_spin_rolls_at_one_over_one_plus_k(k):
    world = World()
    ball, i = _ball(world, velocity=(3.0, 0.0, 0.0), inertia=k, rolling_resistance=0.0)
    world.set_damping(i, air=0.0, ground=0.0)
    world.run(seconds=1.0)
    assert _velocity(world, i)[0] == pytest.approx(3.0 / (1.0 + k), rel=2e-3)
    assert world.spin(ball)[2] * -R == pytest.approx(3.0 / (1.0 + k), rel=2e-3)


def _slope_world(degrees, friction):
    """A ground tilted by ``degrees`` about z (downhill along +x) with plane ``friction``."""
    world = World(ground=False)
    a = math.radians(degrees)
    normal = np.array([math.sin(a), math.cos(a), 0.0])
    world.add_plane(normal, (0.0, 0.0, 0.0), friction=friction)
    ball = world.add_ball("ball", normal * R, rolling_resistance=0.0)
    world.set_damping(ball.nodes.start, air=0.0, ground=0.0)
    return world, ball, ball.nodes.start, a


def _downhill_acceleration(world, i, a):
    world.run(seconds=0.5)
    v0 = _velocity(world, i) @ (math.cos(a), -math.sin(a), 0.0)
    world.run(seconds=0.5)
    v1 = _velocity(world, i) @ (math.cos(a), -math.sin(a), 0.0)
    return (v1 - v0) / 0.5


def test_a_ball_rolls_down_a_slope_at_g_sin_over_one_plus_k():
    world, ball, i, a = _slope_world(20.0, friction=1.0)
    g = 9.81
    assert _downhill_acceleration(world, i, a) == pytest.approx(
        g * math.sin(a) / (1.0 + 2.0 / 3.0), rel=5e-3)
    # Still rolling: the contact point does not slip.
    speed = _velocity(world, i) @ (math.cos(a), -math.sin(a), 0.0)
    assert -world.spin(ball)[2] * R == pytest.approx(speed, rel=1e-6)


def test_on_a_steep_slippery_slope_the_ball_slides_and_spins_up():
    # tan(40 deg) = 0.84 > mu (1 + k) / k = 0.25: the grip cannot make it roll.
    world, ball, i, a = _slope_world(40.0, friction=0.1)
    g = 9.81
    assert _downhill_acceleration(world, i, a) == pytest.approx(
        g * (math.sin(a) - 0.1 * math.cos(a)), rel=5e-3)
    spin = -world.spin(ball)[2]
    speed = _velocity(world, i) @ (math.cos(a), -math.sin(a), 0.0)
    # Friction's torque spins it up at mu g cos / (k r) from rest, slower than it slides.
    assert spin == pytest.approx(0.1 * g * math.cos(a) / (2.0 / 3.0 * R) * world.time,
                                 rel=1e-2)
    assert spin * R < speed


def _beam_world(direction, ball_first):
    """A ball at rest and a locked 2 m beam of radius 5 cm through (0, 0.9, 0) along
    ``direction``; ``ball_first`` adds the ball first, so that it is the other side of the
    contact rows (the second volume of a pair is on the side the normal points from)."""
    world = World(ground=False)
    ball = world.add_ball("ball", (-0.6, 1.3, 0.0)) if ball_first else None
    beam = world.add_stick("beam", (0.0, 0.9, 0.0), length=2.0, direction=direction,
                           radius=0.05, mass=50.0)
    world.lock_nodes(beam.nodes)
    if ball is None:
        ball = world.add_ball("ball", (-0.6, 1.3, 0.0))
    return world, ball, ball.nodes.start


@pytest.mark.parametrize("ball_first", [False, True])
def test_a_ball_on_a_sloping_beam_rolls_down_it(ball_first):
    # Against a body's capsule as on the ground; static friction, which would hold a limb
    # there, does not hold a sphere.
    direction = np.array([1.0, -0.36, 0.0])
    world, ball, i = _beam_world(direction, ball_first)
    world.set_damping(i, air=0.0, ground=0.0)
    down = direction / np.linalg.norm(direction)
    world.run(seconds=0.5)
    v0 = _velocity(world, i) @ down
    world.run(seconds=0.5)
    v1 = _velocity(world, i) @ down
    slope = math.atan(0.36)
    assert (v1 - v0) / 0.5 == pytest.approx(9.81 * math.sin(slope) / (1.0 + 2.0 / 3.0), rel=0.02)
    assert -world.spin(ball)[2] * R == pytest.approx(v1, rel=0.02)  # rolling, not sliding


@settings(max_examples=30, deadline=None)
@given(vx=st.floats(-1.0, 1.0), vz=st.floats(-1.0, 1.0),
       wx=st.floats(-40.0, 40.0), wz=st.floats(-40.0, 40.0), ball_first=st.booleans())
def test_friction_against_a_body_never_adds_energy(vx, vz, wx, wz, ball_first):
    world, ball, i = _beam_world(np.array([1.0, 0.0, 0.0]), ball_first)
    world.set_position(i, (0.0, 0.9 + 0.05 + R, 0.0))  # on top of the level beam, touching
    world.set_velocity(i, (vx, 0.0, vz))
    world.set_spin(ball, (wx, 0.0, wz))
    world.set_damping(i, air=0.0, ground=0.0)
    m = 0.45

    def energy():  # along the contact plane (the normal is vertical here) and spinning
        v = _velocity(world, i)
        w = world.spin(ball)
        return 0.5 * m * (v[0] ** 2 + v[2] ** 2) + 0.5 * (2.0 / 3.0) * m * R * R * (w @ w)

    before = energy()
    world.step()
    assert world.contact_count == 1
    assert energy() <= before * (1 + 1e-9) + 1e-12


def test_backspin_stops_a_ball_short():
    plain, backspun = World(), World()
    _, i = _ball(plain, velocity=(3.0, 0.0, 0.0))
    ball, j = _ball(backspun, velocity=(3.0, 0.0, 0.0))
    backspun.set_spin(ball, (0.0, 0.0, 3.0 / R))  # spinning back as fast as it goes forward
    plain.run(seconds=4.0)
    backspun.run(seconds=4.0)
    assert backspun.node_pos[j, 0] < 0.3 * plain.node_pos[i, 0]


@settings(max_examples=40, deadline=None)
@given(vx=st.floats(-5.0, 5.0), vz=st.floats(-5.0, 5.0),
       wx=st.floats(-60.0, 60.0), wy=st.floats(-60.0, 60.0), wz=st.floats(-60.0, 60.0),
       k=st.floats(0.1, 1.0), mu=st.floats(0.0, 1.5))
def test_plane_friction_never_adds_energy_and_keeps_coulombs_bound(vx, vz, wx, wy, wz, k, mu):
    world = World(ground=False)
    world.add_plane((0.0, 1.0, 0.0), (0.0, 0.0, 0.0), friction=mu)
    ball, i = _ball(world, velocity=(vx, 0.0, vz), inertia=k, rolling_resistance=0.0)
    world.set_damping(i, air=0.0, ground=0.0)
    world.set_spin(ball, (wx, wy, wz))
    m = 0.45

    def energy():
        v = _velocity(world, i)
        w = world.spin(ball)
        return 0.5 * m * (v[0] ** 2 + v[2] ** 2) + 0.5 * k * m * R * R * (w @ w)

    before = energy()
    v_before = _velocity(world, i)
    world.step()
    assert energy() <= before * (1 + 1e-9) + 1e-12
    # The centre's change along the ground is at most mu times the push (g dt a tick).
    dv = _velocity(world, i) - v_before
    assert math.hypot(dv[0], dv[2]) <= mu * 9.81 * world.dt * (1 + 1e-6) + 1e-9
    # Spin about the normal has no slip to meet and, without rolling resistance, is kept.
    assert world.spin(ball)[1] == pytest.approx(wy)


def test_a_ball_spinning_in_place_stops_and_sleeps():
    world = World()
    ball, i = _ball(world)
    world.set_spin(ball, (0.0, 10.0, 0.0))  # about the vertical, no slip
    world.run(seconds=0.5)
    # Pivot friction: c_rr g / r = 5.35 rad/s^2.
    assert world.spin(ball)[1] == pytest.approx(10.0 - 0.06 * 9.81 / R * world.time, rel=1e-3)
    world.run(seconds=1.0)
    # It sleeps, not having moved for a second; its spin stops with it.
    assert world.is_asleep(ball) and np.all(world.spin(ball) == 0.0)
    assert np.allclose(world.node_pos[i], (0.0, R, 0.0))
    world.set_spin(ball, (0.0, 0.0, -20.0))  # wakes it: it rolls off along +x
    world.run(seconds=0.5)
    assert not world.is_asleep(ball) and world.node_pos[i, 0] > 0.3


def test_spin_is_state():
    world = World()
    ball, _ = _ball(world, velocity=(2.0, 0.0, 0.0))
    world.run(seconds=0.3)
    snap = world.snapshot()
    spin = world.spin(ball)
    before = world.state_hash()
    world.set_spin(ball, spin + np.array([0.0, 0.0, 1.0]))
    assert world.state_hash() != before
    world.restore(snap)
    assert np.array_equal(world.spin(ball), spin) and world.state_hash() == before


def test_rolling_needs_a_free_sphere_and_sane_numbers():
    world = World()
    doll = world.add_doll("doll", (2.0, 0.0, 0.0))
    with pytest.raises(PhysicsError, match="body of one node"):
        world.add_sphere(doll.nodes.start, 0.1, inertia=0.4)
    with pytest.raises(PhysicsError, match="no rolling sphere"):
        world.spin(doll)
    with pytest.raises(PhysicsError, match="sphere: node index out of range"):
        world.add_sphere(9999, 0.1, inertia=0.4)
    bodies = len(world.bodies)
    for bad in ({"inertia": -0.1}, {"rolling_resistance": math.nan}, {"inertia": "heavy"}):
        with pytest.raises(PhysicsError, match=r"ball: (inertia|rolling_resistance)"):
            world.add_ball("ball", (0.0, R, 0.0), **bad)
    assert len(world.bodies) == bodies  # a refused ball adds nothing
