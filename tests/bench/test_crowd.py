"""The walking-crowd benchmark times a crowd that really walks."""

import numpy as np

from twig.bench.crowd import crowd_world, measure_crowd


def test_crowd_walks_to_goals_and_stays_up():
    world = crowd_world(9)
    start = np.array([c.hips for c in world.characters])
    world.run(seconds=3.0)
    moved = np.linalg.norm(np.array([c.hips for c in world.characters]) - start, axis=1)
    assert (moved > 0.5).sum() >= 7          # (a goal may fall next to its walker)
    # Nobody steers round anybody here (that is behaviour's job), so a walker may be
    # knocked over now and then; the crowd as a whole stays up.
    assert sum(c.upright for c in world.characters) >= 8


def test_measure_crowd_reports_tick_motor_and_reference():
    r = measure_crowd(4)
    assert r.count == 4 and r.upright == 1.0
    assert 0 < r.motor_ms < r.tick_ms and r.passive_ms > 0
