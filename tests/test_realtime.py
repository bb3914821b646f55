"""The real-time loop: pace, queued work between ticks, pause and single step, errors."""

import time

import pytest

import twig
from twig.errors import TwigError
from twig.realtime import RealTime


def test_runs_at_wall_clock_pace_and_applies_work_between_ticks():
    world = twig.World()
    world.add_ball("ball", position=(0, 1, 0))
    world.step()                          # load the kernels before timing
    loop = RealTime(world, speed=2.0).start()
    try:
        time.sleep(0.5)
        tick = loop.submit(lambda: world.tick).result(timeout=2)
        assert 40 <= tick <= 81          # 1 + 0.5 s at twice real time is 61 ticks
        with pytest.raises(ZeroDivisionError):
            loop.submit(lambda: 1 / 0).result(timeout=2)
        assert loop.submit(lambda: "still up").result(timeout=2) == "still up"
    finally:
        loop.stop()
    assert loop.submit(lambda: 1).exception(timeout=1) is not None


def test_pause_and_single_step():
    world = twig.World()
    loop = RealTime(world, paused=True).start()
    try:
        time.sleep(0.2)
        assert loop.submit(lambda: world.tick).result(timeout=2) == 0
        loop.step_once()
        loop.step_once()
        time.sleep(0.3)
        assert loop.submit(lambda: world.tick).result(timeout=2) == 2
    finally:
        loop.stop()


def test_speed_is_validated():
    loop = RealTime(twig.World())
    with pytest.raises(TwigError, match="speed"):
        loop.speed = 0
    with pytest.raises(TwigError, match="speed"):
        RealTime(twig.World(), speed=float("nan"))
