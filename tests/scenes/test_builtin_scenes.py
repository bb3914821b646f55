"""Every built-in scene runs headless; Jakobsen's and Horswill's test scenes behave physically."""

import numpy as np
import pytest

import twig
from twig.scenes import list_scenes


@pytest.mark.parametrize("name", [s.name for s in list_scenes()])
def test_every_builtin_scene_runs_and_stays_finite(name):
    world = twig.load_scene(name)
    world.run(seconds=min(world.scene.seconds, 2.0))
    assert np.isfinite(world.node_pos).all()
    assert world.node_pos[:, 1].min() >= -1e-9 or not world.planes["normal"].size


def test_stick_in_box_stays_inside_and_keeps_its_length():
    world = twig.load_scene("stick-in-box")
    stick = world.body("stick")
    lower, upper = np.array([-1.0, 0.0, -1.0]), np.array([1.0, 2.0, 1.0])
    walls_hit = set()
    for _ in range(round(world.scene.seconds / world.dt)):
        world.step()
        p = stick.positions
        assert (p >= lower - 1e-9).all() and (p <= upper + 1e-9).all()
        assert abs(np.linalg.norm(p[1] - p[0]) - 1.0) < 0.01
        walls_hit |= {(axis, side) for axis in range(3) for side, bound in
                      ((0, lower), (1, upper)) if np.isclose(p[:, axis], bound[axis] +
                      (0.02 if side == 0 else -0.02), atol=1e-6).any()}
    assert len(walls_hit) >= 3  # it was thrown around, not just dropped
    assert np.linalg.norm(stick.velocity) < 0.01  # and came to rest


def test_cloth_hangs_stays_bounded_and_its_pins_never_move():
    world = twig.load_scene("cloth")
    cloth = world.body("cloth")
    pins = np.flatnonzero(world.node_flags & 1)
    assert len(pins) == 2
    start = world.node_pos.copy()
    speeds = []
    for _ in range(round(world.scene.seconds / world.dt)):
        world.step()
        np.testing.assert_array_equal(world.node_pos[pins], start[pins])
        assert np.abs(world.node_pos - start[pins].mean(axis=0)).max() < 2.5  # bounded
        speeds.append(np.linalg.norm(world.node_vel, axis=1).max())
    assert cloth.centroid[1] < start[:, 1].mean() - 0.4  # hangs down from the pins
    assert max(speeds[-60:]) < 0.5 * max(speeds[:120])  # the swing dies down
    assert np.median(cloth.link_errors()) < 0.02


def test_tetrahedron_bounces_without_exploding_and_rests_without_drift():
    world = twig.load_scene("tetra")
    tetra = world.body("tetra")
    worst = 0.0
    for _ in range(round(3.0 / world.dt)):
        world.step()
        worst = max(worst, tetra.link_errors().max())
    assert worst < 0.1
    assert tetra.link_errors().max() < 0.01
    rest = tetra.positions
    world.run(seconds=2.0)
    assert np.abs(tetra.positions - rest).max() < 1e-4
    assert tetra.link_errors().max() < 0.01


def test_chain_swinging_from_a_pin_conserves_length():
    world = twig.load_scene("chain")
    chain = world.body("chain")
    pin = chain.nodes.start
    errors = []
    swung = False
    for _ in range(round(world.scene.seconds / world.dt)):
        world.step()
        e = chain.link_errors()
        errors.append(e.mean())
        assert e.max() < 0.15
        reach = np.linalg.norm(world.node_pos[chain.nodes.stop - 1] - world.node_pos[pin])
        assert reach <= 2.0 * 1.001  # tethered: never longer than the chain
        swung |= world.node_pos[chain.nodes.stop - 1, 0] < -0.5
    assert swung  # it swung through to the other side
    assert np.mean(errors) < 0.02
