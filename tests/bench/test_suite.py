"""The benchmark harness measures real workloads (timings are printed, never asserted)."""

import numpy as np

from twig.bench.suite import (
    cloth_world,
    figures_world,
    measure,
    peer_columns,
    problem_of,
    workloads,
)


def test_workloads_cover_the_issue_list():
    labels = [label for label, _, _ in workloads(quick=False)]
    for n in (32, 64, 128):
        assert f"cloth {n}x{n}, 1 it" in labels and f"cloth {n}x{n}, 4 it" in labels
    for k in ("1 stick figure", "10 stick figures", "100 stick figures", "1000 stick figures"):
        assert k in labels


def test_problem_matches_the_world_constraint_list():
    world = cloth_world(8, 4)
    problem = problem_of(world, ground=False)
    # 8x8 cloth: 2 * 8 * 7 structural + 2 * 7 * 7 shear links; two pinned corners.
    assert len(problem.links) == 2 * 8 * 7 + 2 * 7 * 7
    assert (problem.inv_mass == 0).sum() == 2
    assert figures_world(3).n_nodes == 48


def test_the_timed_figures_stay_awake_like_the_peers_figures():
    world = figures_world(2)
    world.run(seconds=6.0)  # they lie still on the ground long before this
    assert world.node_pos[:, 1].max() < 0.5
    assert not any(world.is_asleep(body) for body in world.bodies)


def test_measure_reports_time_error_and_each_peer():
    result = measure("cloth", cloth_world(8, 4), ground=False, budget=0.01)
    assert result.twig_ms > 0 and np.isfinite(result.twig_error)
    assert set(result.peers) == {label for label, _, _ in peer_columns()}
    for value in result.peers.values():
        assert isinstance(value, str) or (value[0] > 0 and np.isfinite(value[1]))


def test_every_peer_column_names_its_thread_count():
    labels = [label for label, _, _ in peer_columns()]
    assert "pypbd 1 thr" in labels and "warp-cpu 1 thr" in labels
    assert all(label.endswith(" thr") for label in labels)


def test_quick_runs_every_peer_on_one_thread():
    """A multi-threaded peer on a busy machine waits at its barriers for a core: --quick took
    35 to 72 s with it, 17 to 19 s without."""
    assert all(label.endswith(" 1 thr") for label, _, _ in peer_columns(quick=True))
