"""The pile benchmark builds a sane pile and reports what it measures."""

import numpy as np
import pytest

from twig.bench import pile
from twig.bench.pile import PileRun, pile_world, run_pile, verdict


def test_pile_world_drops_dolls_inside_a_four_walled_pen():
    world = pile_world(40)
    assert len(world.bodies) == 40
    assert len(world.planes) == 5  # the ground and four walls
    world.run(seconds=2.0)
    # Every doll stays in the pen and above the ground.
    assert world.node_pos[:, 1].min() >= 0.0
    walls = world.planes["offset"][1:]
    assert np.abs(world.node_pos[:, [0, 2]]).max() <= abs(walls).max() + 1e-6


def test_run_pile_counts_tests_candidates_and_contacts():
    fast = run_pile(10, True, seconds=1.0, replays=2)
    ref = run_pile(10, False, seconds=1.0, replays=1)
    for run in (fast, ref):
        assert run.fall_ms > 0 and run.settled_ms > 0
        assert run.tests > 0  # counted on the ticks that rebuild the pair list
        assert run.candidates >= run.contacts > 0
    assert ref.rebuilds > 0.9  # the reference rebuilds its pair list every tick
    assert fast.rebuilds < 1.0


def test_the_table_says_which_windows_meet_the_target():
    run = PileRun(fall_ms=0.9, settled_ms=1.1, tests=0, candidates=0, contacts=0, rebuilds=0,
                  asleep=0)
    assert verdict(100, run) == "< 1 ms NOT met (settled)"
    assert verdict(1000, run) == "< 16 ms met"
    assert verdict(10, run) == ""
    slow = PileRun(fall_ms=17.0, settled_ms=18.0, tests=0, candidates=0, contacts=0, rebuilds=0,
                   asleep=0)
    assert verdict(1000, slow) == "< 16 ms NOT met (fall and settled)"


def test_replays_that_end_in_different_states_are_refused(monkeypatch):
    """The fastest replay measures the pile only if every replay did the same work."""
    made = []

    def nudged(count, fast=True):
        world = pile_world(count, fast)
        if made:  # the second replay's first doll starts 1 mm higher
            world.set_position(slice(0, 16), world.node_pos[:16] + np.array([0.0, 1e-3, 0.0]))
        made.append(world)
        return world

    monkeypatch.setattr(pile, "pile_world", nudged)
    with pytest.raises(RuntimeError, match="2 different states"):
        run_pile(4, True, seconds=0.2, replays=2)
