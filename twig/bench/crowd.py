"""Motor benchmark (issue #5): a crowd of N characters each walking to random goals.

Characters stand on a grid in an open field; each walks to a random goal and, on arrival, gets
a new one (goals are written to the motor table for the whole crowd at once, as a crowd
controller would, so the Python per-action machinery is not what is timed). Each row reports ms
per tick for the whole tick and for the motor stage alone (posture, gait, gaze, breathing for
every character), and, measured in the same run, the same crowd as passive figures (physics
and collision only) as the reference: the ratio says what motor control costs on top.
Target: 100 walking characters under 4 ms per tick on one core.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from rich.console import Console
from rich.table import Table

from twig.bench.timing import gc_paused
from twig.world import World

SECONDS = 3.0
"""Simulated time timed per run (after one second of warm-up walking)."""
SPACING = 2.0
"""Grid spacing of the crowd, metres."""


def crowd_world(count: int, control: bool = True) -> World:
    """``count`` adults on a grid ``SPACING`` apart; under control, each with a random goal."""
    world = World(seed=count)
    side = int(np.ceil(np.sqrt(count)))
    for k in range(count):
        world.add_humanoid(f"walker{k}", (SPACING * (k % side), 0.0, SPACING * (k // side)),
                           facing=float(world.rng.uniform(-np.pi, np.pi)), control=control)
    if control:
        _new_goals(world, np.ones(count, dtype=bool))
    return world


def _new_goals(world: World, which: np.ndarray) -> None:
    """Fresh random goals (within 4 m, inside the field) for the rows ``which``."""
    table = world.motor.table
    n = int(which.sum())
    side = int(np.ceil(np.sqrt(len(which)))) * SPACING
    hips = world.node_pos[table["node"][which][:, [10, 13]]].mean(axis=1)
    goal = hips + world.rng.uniform(-4.0, 4.0, size=(n, 3))
    goal[:, 1] = 0.0
    goal[:, [0, 2]] = np.clip(goal[:, [0, 2]], 0.0, side)
    table["goal"][which] = goal
    table["goal_on"][which] = True
    table["goal_speed"][which] = 1.3
    table["goal_stop"][which] = 0.3


@dataclass
class CrowdResult:
    count: int
    tick_ms: float
    motor_ms: float
    passive_ms: float
    upright: float


def _timed(world: World, control: bool) -> tuple[float, float]:
    """(ms per tick, ms per tick in the motor stage) over SECONDS of simulated time (the
    garbage collector paused, see :func:`~twig.bench.timing.gc_paused`)."""
    ticks = round(SECONDS / world.dt)
    world.profile.reset()
    with gc_paused():
        t0 = time.perf_counter()
        for _ in range(ticks):
            world.step()
            if control:
                arrived = world.motor.table["arrived"]
                if arrived.any():
                    _new_goals(world, arrived.copy())
        wall = time.perf_counter() - t0
    return 1000.0 * wall / ticks, world.profile.mean_ms("act")


def measure_crowd(count: int) -> CrowdResult:
    """Time a walking crowd of ``count`` and the same crowd passive."""
    world = crowd_world(count)
    world.run(seconds=1.0)  # warm up: kernels loaded, everybody under way
    tick_ms, motor_ms = _timed(world, control=True)
    upright = float(np.mean([c.upright for c in world.characters]))
    passive = crowd_world(count, control=False)
    passive.step()
    passive_ms, _ = _timed(passive, control=False)
    return CrowdResult(count, tick_ms, motor_ms, passive_ms, upright)


def run_crowds(quick: bool, console: Console | None = None) -> list[CrowdResult]:
    """Print the walking-crowd table (N = 1, 10, 100, 1000; quick: up to 100)."""
    console = console or Console()
    sizes = (1, 10, 100) if quick else (1, 10, 100, 1000)
    table = Table(title="walking crowd: motor control + physics (ms per tick, 1 thread)")
    for column in ("characters", "tick ms", "motor ms", "passive ms (reference)",
                   "tick / reference", "upright", "target"):
        table.add_column(column, justify="right")
    results = []
    for n in sizes:
        r = measure_crowd(n)
        results.append(r)
        target = "< 4 ms" + (" met" if r.tick_ms < 4.0 else " NOT met") if n == 100 else ""
        table.add_row(str(n), f"{r.tick_ms:.3f}", f"{r.motor_ms:.3f}", f"{r.passive_ms:.3f}",
                      f"{r.tick_ms / r.passive_ms:.2f}x", f"{100 * r.upright:.0f} %", target)
    console.print(table)
    return results
