"""When a body falls asleep: it must not have drifted, and trembling in place does not count.

The kernel is driven with made-up motion (a two-node body whose positions each tick are given)
so that each case is exactly the motion it names; scenario tests in test_collision.py check
piles and blocks in a world.
"""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from twig.physics.collision.sleep import update_sleep
from twig.physics.flags import ASLEEP, MOVING

DT = 1.0 / 60.0
TICKS = 60  # one second
DRIFT = 0.03  # m: sleep_speed 0.03 m/s * sleep_seconds 1 s
JITTER = 0.1  # m/s


def ticks_to_sleep(offsets: np.ndarray, flags: int = 0) -> int | None:
    """Feed a two-node body the per-tick offsets ((T, 3), metres from its start, both nodes
    alike) and return the tick at which it fell asleep, or None."""
    start = np.array([[0.0, 0.1, 0.0], [0.3, 0.1, 0.0]])
    pos = start.copy()
    anchor = np.zeros((2, 3))
    node_flags = np.full(2, flags, dtype=np.uint8)
    still = np.zeros(1, dtype=np.int32)
    for k, offset in enumerate(offsets):
        prev = pos.copy()
        pos = start + offset
        update_sleep(pos, prev, anchor, node_flags, np.array([0]), np.array([2]),
                     np.array([True]), still, DRIFT, JITTER * DT, TICKS)
        if node_flags[0] & ASLEEP:
            return k
    return None


def test_a_body_quivering_in_place_falls_asleep():
    # +-0.7 mm every tick: 4 cm/s from tick to tick (too fast for "every node under
    # sleep_speed each tick", the rule before), but it goes nowhere.
    offsets = np.zeros((2 * TICKS, 3))
    offsets[1::2, 0] = 0.0007
    assert ticks_to_sleep(offsets) == TICKS - 1  # the first second's last tick


def test_a_body_creeping_away_stays_awake_and_a_slower_one_sleeps():
    t = np.arange(3 * TICKS)[:, None] * DT
    assert ticks_to_sleep(t * (0.04, 0.0, 0.0)) is None  # 4 cm/s: 4 cm a second
    assert ticks_to_sleep(t * (0.02, 0.0, 0.0)) is not None  # 2 cm a second


def test_a_fast_tremble_and_a_driven_body_stay_awake():
    offsets = np.zeros((3 * TICKS, 3))
    offsets[1::2, 1] = 0.002  # 12 cm/s from tick to tick
    assert ticks_to_sleep(offsets) is None
    assert ticks_to_sleep(np.zeros((3 * TICKS, 3)), flags=MOVING) is None


@given(st.lists(st.tuples(*[st.floats(-1.0, 1.0)] * 3), min_size=2 * TICKS,
                max_size=2 * TICKS), st.floats(0.1, 3.0))
def test_asleep_exactly_after_a_second_within_the_drift(directions, scale):
    """Random motion: the body sleeps at the end of the first second in which it stayed
    within DRIFT of where that second began and never stepped faster than JITTER, not before."""
    steps = np.array(directions) * scale * JITTER * DT / np.sqrt(3.0)
    offsets = np.cumsum(steps, axis=0)
    slept = ticks_to_sleep(offsets)
    step_ok = np.linalg.norm(np.diff(offsets, axis=0, prepend=0.0), axis=1) <= JITTER * DT

    def at_rest(first: int) -> bool:
        window = offsets[first:first + TICKS]
        return bool(step_ok[first:first + TICKS].all()
                    and (np.linalg.norm(window - window[0], axis=1) <= DRIFT).all())

    if at_rest(0):
        assert slept == TICKS - 1
    if slept is not None:
        assert at_rest(slept - TICKS + 1)
