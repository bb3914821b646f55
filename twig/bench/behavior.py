"""Benchmark of autonomous characters (issue #6): the playground scene's whole tick (physics,
motor, behaviour and attention) and 100 autonomous characters in a large playground, in median
milliseconds per tick, with the behaviour layer's share timed apart.

Targets: playground under 0.5 ms per tick, 100 characters under 10 ms per tick (one core).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from twig.behavior import add_behaviors
from twig.world import World

WARMUP_SECONDS = 2.0
"""Simulated seconds run before timing (characters get going, caches fill)."""


@dataclass
class TickCost:
    """Median wall milliseconds per tick: the whole tick and the behaviour stage alone."""

    label: str
    characters: int
    tick_ms: float
    behavior_ms: float
    target_ms: float


def crowd_world(groups: int = 25, spacing: float = 10.0) -> World:
    """``groups`` families on a square grid ``spacing`` m apart, each a parent watching three
    children who play with their own ball, run back to hug the parent, and (one of them)
    fight over the ball: ``4 * groups`` autonomous characters."""
    world = World(seed=0)
    side = max(1, round(groups ** 0.5))
    for g in range(groups):
        x, z = spacing * (g % side), spacing * (g // side)
        parent, ball = f"parent{g}", f"ball{g}"
        world.add_ball(ball, (x + 1.5, 0.11, z + 3.0))
        add_behaviors(world.add_humanoid(parent, (x, 0.0, z)),
                      {"interests": {f"kid{g}a": [0.6, 1.0, 0.8]}})
        for k, dx in enumerate((0.9, -0.9, 2.5)):
            kid = world.add_humanoid(f"kid{g}{'abc'[k]}", (x + dx, 0.0, z + 0.5),
                                     preset="child")
            spec = {"play-ball": {"ball": ball, "centre": [x + 1.0, z + 4.0], "area": 3.0},
                    "hug-parent": {"parent": parent}}
            if k == 2:
                spec["fight"] = {"rival": f"kid{g}a", "ball": ball}
            add_behaviors(kid, spec)
    return world


def measure(label: str, world: World, target_ms: float, seconds: float) -> TickCost:
    """Run ``world`` warm, then time ``seconds`` of ticks one by one, and the behaviour
    stage inside them."""
    world.run(WARMUP_SECONDS)
    system = world.behavior
    spent: list[float] = []
    ticks = []
    last = world.profile.last
    for _ in range(round(seconds / world.dt)):
        t0 = time.perf_counter()
        world.step()
        ticks.append(time.perf_counter() - t0)
        spent.append(last["sense"] + last["decide"])
    return TickCost(label, len(system.agents), 1e3 * statistics.median(ticks),
                    1e3 * statistics.median(spent), target_ms)


def run_behavior_bench(quick: bool, console: Console) -> list[TickCost]:
    """Time the playground and the crowd and print the table."""
    from twig.scenes import load_scene

    seconds = 1.0 if quick else 5.0
    rows = [measure("playground scene", load_scene("playground"), 0.5, seconds),
            measure("100 autonomous characters" if not quick else "20 autonomous characters",
                    crowd_world(25 if not quick else 5), 10.0, seconds)]
    table = Table("workload", "characters", "tick ms (median)", "behaviour ms", "target ms",
                  title="autonomous characters: whole tick (physics + motor + behaviour + "
                        "attention), one thread")
    for r in rows:
        table.add_row(r.label, str(r.characters), f"{r.tick_ms:.3f}", f"{r.behavior_ms:.3f}",
                      f"{r.target_ms:g}")
    console.print(table)
    return rows
