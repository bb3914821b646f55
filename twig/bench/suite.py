"""``twig bench``: speed of the physics tick against real peers on the same constraint list.

Workloads (issue #2): cloth 32^2, 64^2, 128^2 (structural + shear links, two pinned corners) at 1
and 4 iterations, and N independent 16-node stick figures on the ground (N = 1, 10, 100, 1000).
Each row prints twig's ms per tick, constraint projections per second, each peer's time as a
ratio ``peer ms / twig ms`` (above 1 = twig faster) and every engine's mean link error after the
same 2 s from the same start, since a faster but less converged solver is no win. Start-up
costs are measured in fresh processes.

Thread counts are part of every column label: twig and Warp's CPU backend run on one thread;
pypbd is OpenMP-parallel and is run twice, on one thread (the like-for-like comparison) and on
every core.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from rich.console import Console
from rich.table import Table

from twig.bench.crowd import run_crowds
from twig.bench.peers import (
    ConstraintProblem,
    Peer,
    PeerError,
    PypbdPeer,
    available_peers,
    mean_link_error,
)
from twig.bench.pile import run_piles
from twig.world import World

TARGET_SECONDS = 0.4
"""Wall time each engine is timed for per workload (after a warm-up)."""
REPEATS = 5
"""The timing budget is split into this many batches; the fastest batch counts, for every engine
alike, so a burst of load from elsewhere on a shared machine does not decide a ratio."""
ERROR_TICKS = 120
"""Ticks every engine runs from the same start before its link error is taken (2 s)."""


@dataclass
class Result:
    """One workload: twig's timing and each peer's ratio and error."""

    workload: str
    projections: int
    twig_ms: float
    twig_error: float
    peers: dict[str, tuple[float, float] | str] = field(default_factory=dict)


def cloth_world(n: int, iterations: int) -> World:
    """Cloth benchmark: n x n, structural + shear, far corners pinned, no ground."""
    world = World(iterations=iterations, ground=False)
    world.add_cloth("cloth", (0.0, 2.0, 0.0), size=1.0, resolution=n)
    return world


def figures_world(count: int) -> World:
    """``count`` humanoid stick figures (16 nodes each) standing on a grid, 1.5 m apart.

    Nothing holds them up: they fold onto the ground as rag dolls, with their capsules,
    self-collision and ground contact. Sleeping is off, as it is for the peers: figures at
    rest would otherwise fall asleep within seconds and the timing would measure nothing.
    """
    world = World()
    world.sleeping = False
    side = int(np.ceil(np.sqrt(count)))
    for k in range(count):
        world.add_humanoid(f"fig{k}", (1.5 * (k % side), 0.0, 1.5 * (k // side)),
                           control=False)
    return world


def problem_of(world: World, ground: bool) -> ConstraintProblem:
    """The world's rigid links as a peer problem (peers have no hinges or inequalities)."""
    rigid = (world.link_min == world.link_max) & (world.link_min > 0)
    return ConstraintProblem(
        pos=world.node_pos, inv_mass=np.where(world.node_flags & 1, 0.0, world.node_inv_mass),
        links=world.link_nodes[rigid], rest=world.link_min[rigid], iterations=world.iterations,
        dt=world.dt, gravity=tuple(world.gravity), ground=ground,
        damping=float(world.nodes["damp_air"][0]))


def peer_columns(quick: bool = False
                 ) -> list[tuple[str, Callable[[ConstraintProblem], Peer] | None, str]]:
    """(column label with thread count, peer factory or None, reason it cannot run) per column.

    pypbd gets a column on one thread and one on every core (``os.cpu_count()``; not with
    ``quick``: its OpenMP threads wait at every barrier for a core a busy machine gives to
    someone else, which made ``--quick`` take from 35 s to over 70 s); Warp's CPU backend
    runs each launch on one thread.
    """
    cores = 1 if quick else os.cpu_count() or 1
    columns: list[tuple[str, Callable[[ConstraintProblem], Peer] | None, str]] = []
    for name, cls, reason in available_peers():
        if name != PypbdPeer.name:
            columns.append((f"{name} 1 thr", cls, reason))
            continue
        for threads in sorted({1, cores}):
            factory = None if cls is None else functools.partial(cls, threads=threads)
            columns.append((f"{name} {threads} thr", factory, reason))
    return columns


def _time(step: Callable[[int], None], budget: float) -> float:
    """Seconds per tick: warm up, size batches to ``budget / REPEATS`` seconds, keep the fastest."""
    step(5)
    t0 = time.perf_counter()
    step(5)
    per = max((time.perf_counter() - t0) / 5, 1e-7)
    ticks = max(10, int(budget / REPEATS / per))
    best = float("inf")
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        step(ticks)
        best = min(best, (time.perf_counter() - t0) / ticks)
    return best


def measure(name: str, world: World, ground: bool, budget: float, quick: bool = False
            ) -> Result:
    """Time twig and every installed peer (:func:`peer_columns`) on one workload."""
    problem = problem_of(world, ground)
    world.step(ERROR_TICKS)
    twig_err = mean_link_error(problem, world.node_pos)
    twig_s = _time(world.step, budget)
    result = Result(name, len(problem.links) * problem.iterations, 1e3 * twig_s, twig_err)
    for label, factory, reason in peer_columns(quick):
        if factory is None:
            result.peers[label] = reason
            continue
        try:
            peer = factory(problem)
        except PeerError as e:
            result.peers[label] = str(e)
            continue
        peer.step(ERROR_TICKS)
        peer_err = mean_link_error(problem, peer.positions())
        result.peers[label] = (_time(peer.step, budget) / twig_s, peer_err)
    return result


def startup_seconds(cold: bool = True) -> tuple[float | None, float | None, float]:
    """Seconds to the first tick in fresh processes: with an empty JIT cache compiling in this
    process (as ``import twig`` does), with an empty cache compiling the stages in parallel
    processes first (as the ``twig`` command does, :mod:`twig.warmup`; as many as
    :func:`~twig.warmup.default_workers`, so one under ``taskset -c 1``), and with
    the cache warm. Without ``cold``, the warm start only (the two cold ones are None: each
    compiles every kernel, a minute or more)."""
    tick = "w = twig.World(); w.add_stick('s', (0, 1, 0)); w.step()"
    serial = f"import time; t = time.perf_counter(); import twig; {tick}"
    parallel = ("import time; t = time.perf_counter(); import twig; "
                f"from twig.warmup import compile_kernels; compile_kernels(); {tick}")
    done = "; print(time.perf_counter() - t)"
    if not cold:
        return None, None, float(subprocess.run([sys.executable, "-c", serial + done],
                                                check=True, capture_output=True,
                                                text=True).stdout.split()[-1])
    runs = []
    for codes in ((serial, serial), (parallel,)):
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            runs += [float(subprocess.run([sys.executable, "-c", code + done], env=env,
                                          check=True, capture_output=True,
                                          text=True).stdout.split()[-1])
                     for code in codes]
    return runs[0], runs[2], runs[1]


def workloads(quick: bool) -> list[tuple[str, Callable[[], World], bool]]:
    """(label, world factory, ground) for each benchmark row."""
    cloths = (16,) if quick else (32, 64, 128)
    figures = (1, 10) if quick else (1, 10, 100, 1000)
    rows = [(f"cloth {n}x{n}, {it} it", lambda n=n, it=it: cloth_world(n, it), False)
            for n in cloths for it in (1, 4)]
    rows += [(f"{k} stick figure{'s' if k > 1 else ''}", lambda k=k: figures_world(k), True)
             for k in figures]
    return rows


def run_suite(quick: bool = False, console: Console | None = None) -> int:
    """Run every workload and print the table; returns 0."""
    console = console or Console()
    budget = 0.05 if quick else TARGET_SECONDS
    peer_names = [label for label, _, _ in peer_columns(quick)]
    table = Table("workload", "twig 1 thr ms/tick", "projections/s", "twig err",
                  *[f"{p} (x slower, err)" for p in peer_names],
                  title="twig physics tick vs peers (ratio > 1: twig is faster)",
                  caption="thr: threads the engine runs on; ratios are the fastest of "
                          f"{REPEATS} timed batches per engine")
    notes: dict[str, str] = {}
    with console.status("benchmarking...") as status:
        for label, make, ground in workloads(quick):
            status.update(f"benchmarking {label}...")
            r = measure(label, make(), ground, budget, quick)
            cells = []
            for p in peer_names:
                value = r.peers[p]
                if isinstance(value, str):
                    notes.setdefault(f"{p}: {value}", "")
                    cells.append("n/a")
                else:
                    cells.append(f"{value[0]:.2f}x, {100 * value[1]:.1f} %")
            table.add_row(label, f"{r.twig_ms:.4f}", f"{r.projections / r.twig_ms * 1e3:.3g}",
                          f"{100 * r.twig_error:.1f} %", *cells)
        status.update("measuring start-up in fresh processes...")
        first, parallel, cached = startup_seconds(cold=not quick)
    console.print(table)
    for note in notes:
        console.print(f"[dim]{note}[/]")
    from twig.warmup import default_workers

    if first is None:
        console.print(f"start-up to first tick: {cached:.2f} s with the cache warm (twig bench "
                      "without --quick also times a start with an empty cache)")
    else:
        console.print(f"start-up to first tick: {first:.2f} s with an empty JIT cache "
                      f"({parallel:.2f} s compiling in {default_workers()} processes, as the "
                      f"twig command does), {cached:.2f} s with the cache warm")
    run_piles(quick, console)
    run_crowds(quick, console)
    from twig.bench.behavior import run_behavior_bench

    run_behavior_bench(quick, console)
    return 0
