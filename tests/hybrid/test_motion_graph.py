"""The motion graph: Kovar's transitions, and a spline path followed by branch and bound."""

import numpy as np

import twig
from twig.hybrid import library_clip, motion_graph_walk
from twig.hybrid.motion_graph import build_graph, cardinal_spline, graph_of
from twig.hybrid.similarity import distance_matrix


def test_transitions_are_local_minima_of_the_frame_distances_under_the_threshold():
    clips = (library_clip("walk"), library_clip("walk-left"))
    graph = build_graph(clips, threshold=0.08)
    d = distance_matrix(*clips[0].features, *clips[1].features)
    jumps = [(i, j) for (a, i), targets in graph.jumps.items() if a == 0
             for b, j in targets if b == 1]
    assert jumps
    for i, j in jumps:
        block = d[max(i - 1, 0):i + 2, max(j - 1, 0):j + 2]
        assert d[i, j] == block.min() and d[i, j] < 0.08
    # A loop's last frame goes on to its first.
    assert (0, 0) in graph.jumps[(0, clips[0].frames - 1)]


def test_the_spline_passes_through_its_control_points():
    pts = np.array([[0.0, 0, 0], [0, 0, 3], [2, 0, 6], [5, 0, 7]])
    curve = cardinal_spline(pts, samples=50)
    for p in pts:
        assert np.linalg.norm(curve - p, axis=1).min() < 1e-9


def test_a_character_follows_a_spline_through_three_points():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    points = [(0.0, 0.0, 3.0), (2.0, 0.0, 6.0), (5.0, 0.0, 7.0)]
    action = motion_graph_walk(kid, *points)
    curve = cardinal_spline(np.array([[0.0, 0, 0], *points]), samples=200)
    deviation = []
    while not action.done and world.time < 30:
        world.step()
        hips = kid.hips.copy()
        hips[1] = 0.0
        deviation.append(np.linalg.norm(curve - hips, axis=1).min())
    assert action.succeeded
    assert np.mean(deviation) < 0.5
    assert np.linalg.norm(kid.hips[[0, 2]] - [5.0, 7.0]) < 0.5  # arrived at the last point
    assert kid.upright


def test_the_graph_uses_the_turning_clips_and_is_cached():
    assert graph_of(("walk", "walk-left", "walk-right")) is graph_of(("walk", "walk-left",
                                                                       "walk-right"))
    graph = graph_of(("walk", "walk-left", "walk-right"))
    between = {(a, b) for (a, _), targets in graph.jumps.items() for b, _ in targets if a != b}
    assert {(0, 1), (0, 2), (1, 0), (2, 0)} <= between
