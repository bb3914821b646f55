"""The approach field (Horswill eq. 6): around a wall of three obstacles thanks to the curl
term; saturation and cut-off; walk vectors of many characters in one call."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import twig
from twig.behavior import Approach, Behavior, FieldParams, Freeze, PainWithdrawal, Selector
from twig.behavior.field import approach_field
from twig.errors import TwigError

TARGET = np.array([0.0, 0.0, 6.0])


class GoToFlag(Behavior):
    name = "go-to-flag"

    def activation(self, agent):
        return 1.0

    def update(self, agent):
        agent.approach("flag", 1.0, distance=0.4, speed=1.2)


def walk_past_wall(curl, seconds=30.0):
    """Seconds until the walker's hips are within 0.6 m of the flag behind the wall (None:
    not within ``seconds``), and whether it stayed upright."""
    world = twig.World(seed=0)
    walker = world.add_humanoid("walker")
    for k, x in enumerate((-0.7, 0.0, 0.7)):  # a 2 m wall of three posts across the way
        world.add_static_box(f"post{k}", center=(x, 0.5, 3.0), half_extents=(0.3, 0.5, 0.15))
    world.add_static_box("flag", center=TARGET + np.array([0, 0.05, 0]), half_extents=(0.05,) * 3)
    world.behavior.field = FieldParams(curl=curl)
    world.behavior.add(walker, [Selector("goals", [GoToFlag()]),
                                Selector("motor", [Freeze(), PainWithdrawal(), Approach()])])
    upright = True
    for _ in range(round(seconds / 0.25)):
        world.run(0.25)
        upright &= walker.upright
        if np.hypot(*(walker.hips - TARGET)[[0, 2]]) < 0.6:
            return world.time, upright
    return None, upright


def test_the_curl_term_takes_a_character_around_a_wall_of_three_obstacles():
    arrived, upright = walk_past_wall(curl=1.0)
    assert arrived is not None and arrived < 12.0 and upright
    stuck, _ = walk_past_wall(curl=0.0, seconds=25.0)
    assert stuck is None  # without it: the local minimum in front of the wall


def test_saturation_cutoff_and_the_curl_direction():
    params = FieldParams(gain=1.0, saturation=1.0, c=0.2, d_min=0.04, cutoff=2.0)
    pos = np.zeros((3, 3))
    goal = np.array([[10.0, 0, 0], [0.3, 0, 0], [0, 0, 10.0]])
    obstacles = np.array([[0.0, 0.0, 3.0], [0.0, 0.0, 1.0]])
    ignore = np.array([[True, True], [True, True], [True, False]])
    w = approach_field(pos, goal, obstacles, np.zeros(2), ignore, params)
    np.testing.assert_allclose(w[0], [1.0, 0, 0])       # saturated
    np.testing.assert_allclose(w[1], [0.3, 0, 0])       # proportional near the stop point
    # Obstacle 1 m ahead, v = (0, 0, -1): pushed back (-z) and, by v x up = (1, 0, 0),
    # sideways (+x) by the same amount, c / |v|^2 = 0.2 each.
    r = 0.2 * np.array([1.0, 0, -1.0])
    np.testing.assert_allclose(w[2], np.array([0, 0, 1.0]) + r)
    far = approach_field(pos[2:], goal[2:], obstacles[:1], np.zeros(1), ignore[2:, :1], params)
    np.testing.assert_allclose(far[0], [0, 0, 1.0])     # beyond the cut-off: ignored


@given(st.lists(st.tuples(st.floats(-5, 5), st.floats(-5, 5)), min_size=1, max_size=6),
       st.floats(0.0, 2.0))
def test_walk_vectors_are_horizontal_finite_and_bounded(points, curl):
    params = FieldParams(curl=curl)
    obs = np.array([[x, 0.0, z] for x, z in points])
    pos = np.array([[0.1, 0.9, 0.2], [3.0, 0.9, -1.0]])
    goal = np.array([[4.0, 0.0, 4.0], [-4.0, 0.0, 0.0]])
    w = approach_field(pos, goal, obs, np.full(len(obs), 0.3),
                       np.zeros((2, len(obs)), dtype=bool), params)
    assert np.isfinite(w).all() and (w[:, 1] == 0).all()
    assert (np.linalg.norm(w, axis=1) <= params.max_speed + 1e-9).all()


def test_bad_field_constants_are_refused():
    with pytest.raises(TwigError, match="d_min"):
        FieldParams(d_min=0.0)
    with pytest.raises(TwigError, match="curl"):
        FieldParams(curl=float("nan"))


def test_a_character_led_straight_at_the_merry_go_round_goes_round_it():
    """The flag lies beyond the merry-go-round, in line: the walker goes round it rather
    than pushing into its rim (before the fix the repulsion faded to zero at the edge, and
    a child walked into the rim and stayed there, 150 s, at one playground seed)."""
    world = twig.World(seed=0)
    walker = world.add_humanoid("walker", preset="child")
    world.add_merry_go_round("mgr", (0.0, 0.0, 3.0))
    world.add_static_box("flag", center=TARGET + np.array([0, 0.05, 0]), half_extents=(0.05,) * 3)
    world.behavior.add(walker, [Selector("goals", [GoToFlag()]),
                                Selector("motor", [Freeze(), PainWithdrawal(), Approach()])])
    world.run(15.0)
    assert np.hypot(*(walker.hips - TARGET)[[0, 2]]) < 0.8


@given(st.floats(-0.04, 2.5), st.floats(-0.04, 2.5), st.floats(0.05, 1.5), st.floats(0.0, 2.0))
def test_an_obstacle_pushes_no_less_the_closer_its_edge(near, far, radius, curl):
    """The repulsion never weakens as a character nears an obstacle's edge or goes inside
    it: fading to zero at the edge (``c s / d_min``), it let a child walk into the
    merry-go-round's rim, where attraction alone drove it on."""
    near, far = min(near, far), max(near, far)
    params = FieldParams(curl=curl)
    pos = np.array([[0.0, 0.0, -(radius + near)], [0.0, 0.0, -(radius + far)]])
    r = approach_field(pos, pos.copy(), np.zeros((1, 3)), np.array([radius]),
                       np.zeros((2, 1), dtype=bool), params)
    push = np.linalg.norm(r, axis=1)
    assert push[0] >= push[1] - 1e-12
