"""Background jobs: computed off the world's thread, applied at their due tick whatever the
machine (scripts block for them, the real-time loop serves while it waits), and the
motion-graph walk planned that way."""

import threading
import time

import twig
from twig.background import Job, background
from twig.hybrid.commands import (
    PLAN_SECONDS,
    PLAN_SECONDS_PER_METRE,
    motion_graph_walk,
    stop_clip,
)
from twig.hybrid.supervisor import supervisor
from twig.realtime import RealTime


def _job(world, release: threading.Event, due: int, applied: list) -> Job:
    """A job whose computation finishes when the test sets ``release``."""

    def compute(job):
        release.wait(30)
        return "result"

    return Job("test", compute, due, lambda r: applied.append((world.tick, r)), applied.append)


def test_the_real_time_loop_serves_and_holds_the_tick_until_a_result_is_in():
    world = twig.World()
    world.add_ball("ball", position=(0, 1, 0))
    world.step()
    loop = RealTime(world, speed=4.0).start()
    release, applied = threading.Event(), []
    try:
        due = loop.submit(lambda: background(world).submit(
            _job(world, release, world.tick + 10, applied)).due).result(timeout=5)
        time.sleep(0.5)                    # 0.5 s at 4x: 120 ticks would have run
        start = time.monotonic()
        held = loop.submit(lambda: world.tick).result(timeout=5)
        assert time.monotonic() - start < 0.5     # queued work still runs at once
        assert held == due - 1 and not applied
        release.set()
        time.sleep(0.3)
        assert loop.submit(lambda: world.tick).result(timeout=5) > due
        assert applied == [(due, "result")]       # at the end of tick due - 1
    finally:
        release.set()
        loop.stop()


def test_a_paused_loop_single_steps_up_to_the_due_tick_and_then_waits():
    world = twig.World()
    loop = RealTime(world, paused=True).start()
    release, applied = threading.Event(), []
    try:
        loop.submit(lambda: background(world).submit(_job(world, release, 5, applied)))
        loop.step_once(20)
        time.sleep(0.3)
        assert loop.submit(lambda: world.tick).result(timeout=5) == 4
        release.set()
        time.sleep(0.3)
        assert loop.submit(lambda: world.tick).result(timeout=5) == 20
        assert applied == [(5, "result")]
    finally:
        release.set()
        loop.stop()


def test_stepping_a_world_waits_for_the_result_at_the_due_tick():
    world = twig.World()
    release, applied = threading.Event(), []
    background(world).submit(_job(world, release, 3, applied))
    timer = threading.Timer(0.3, release.set)
    timer.start()
    world.step(10)
    assert applied == [(3, "result")]


def test_a_newer_job_with_the_same_key_cancels_the_waiting_one():
    world = twig.World()
    first, second = [], []
    never = threading.Event()
    background(world).submit(_job(world, never, 50, first))
    background(world).submit(Job("test", lambda job: 2, 5, second.append, second.append))
    never.set()
    world.step(60)
    assert first == ["replaced by a newer request"] and second == [2]


def _planned_tick(world, kid, length: float) -> int:
    return world.tick + round((PLAN_SECONDS + PLAN_SECONDS_PER_METRE * length) / world.dt)


def test_a_motion_graph_walk_starts_at_its_planned_tick():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    world.step(5)
    start = _planned_tick(world, kid, 3.0)
    action = motion_graph_walk(kid, (3.0, 0.0, float(kid.hips[2])))
    while world.tick < start:
        assert supervisor(kid).goal is None and not action.done
        world.step()
    assert supervisor(kid).goal is not None and not action.done


def test_stop_clip_cancels_a_walk_being_planned():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    action = motion_graph_walk(kid, (4.0, 0.0, 0.0))
    world.step(3)
    stop_clip(kid)
    world.step(100)
    assert action.status == "failed" and action.reason == "stopped"
    assert supervisor(kid).goal is None


def test_a_snapshot_taken_while_planning_gives_the_same_future():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    motion_graph_walk(kid, (2.0, 0.0, 1.0))
    world.step(2)
    snap = world.snapshot()
    hashes = []
    for _ in range(2):
        world.step(60)
        hashes.append(world.state_hash())
        world.restore(snap)
    assert hashes[0] == hashes[1]
    assert supervisor(kid).goal is None       # restored to before the walk started


def test_a_world_saved_while_planning_loads_with_the_same_future(tmp_path):
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    motion_graph_walk(kid, (2.0, 0.0, 1.0))
    world.step(2)
    world.save(tmp_path / "planning.twig")
    world.step(60)
    loaded = twig.World.load(tmp_path / "planning.twig")
    loaded.step(60)
    assert loaded.state_hash() == world.state_hash()
    assert supervisor(loaded.body("kid")).goal is not None
