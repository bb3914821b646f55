"""Compile the tick's kernels into Numba's on-disk cache in parallel processes.

A first run compiles the kernels its kind of world calls (a world without boxes, most
scenes, about 40 s of one core on the 2-core machine the project is built on; with boxes
about 70 s; see :class:`Kinds`), and Numba compiles in one thread. Most of that time goes to
the stages that :func:`~twig.physics.tick.physics_tick` calls (the broad phase, the first
contact sweep, the later sweeps, ...), which do not depend on each other: each is compiled
on its own when
called from Python with arguments of the types the tick passes it. :func:`compile_kernels`
has worker processes call the stages, and the motor kernel, on a small world; then the tick
itself, finding them in the cache, compiles only its own body (about 5 s).

The calls are those ``physics_tick`` makes (:func:`stage_calls` runs its Python body on the
small world's records, :mod:`twig.physics.records`, with each kernel replaced by a recorder,
so the two cannot drift apart); the counts the stages would return are stand-ins (no pairs,
no contacts). A stage whose types were guessed wrong is simply compiled again by the first
tick, and a worker that fails only costs the time it took: the first tick still compiles
whatever is missing.
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba.core.registry import CPUDispatcher

from twig.physics import kernel_cache
from twig.physics.collision.narrow import BOX

JOBS: tuple[tuple[str, ...], ...] = (
    ("first_sweep", "resolve_active", "_friction", "boxes_on_planes", "box_plane_friction"),
    ("find_pairs",),
    ("sweep_spheres", "relax", "relax_final", "integrate_nodes", "project_planes",
     "update_sleep", "record_contacts", "wake_driven", "rigid_prefix"),
    ("motor",),
)
"""What each worker compiles (seconds of one core on the 2-core machine, for a world without
boxes: ~18, ~11, ~8, ~10). ``motor`` is the characters' kernel; the other names are the stage
kernels as ``physics_tick`` calls them. The worker of ``find_pairs`` also compiles the
constructor of the tick's structure of arrays (``records.as_struct``). The first job holds
every stage that reaches the contacts' code, which two workers would each compile for
themselves. Two workers take them in this order: one the first job, the other the second and
third, and the motor kernel goes to whichever is free first, to compile beside the tick (which
needs every stage, but not the motor kernel)."""


@dataclass(frozen=True)
class Kinds:
    """What kind of world the kernels are compiled for: one with boxes or without (the tick is
    compiled apart for each), with characters or without (the motor kernel)."""

    boxes: bool = True
    characters: bool = True

    def jobs(self) -> tuple[tuple[str, ...], ...]:
        """:data:`JOBS` for this kind of world, without what it never calls."""
        skip = set() if self.characters else {"motor"}
        jobs = (tuple(name for name in job if name not in skip) for job in JOBS)
        return tuple(job for job in jobs if job)


def kinds_to_compile(scene: str | os.PathLike | None = None) -> Kinds | None:
    """The kernels the first tick of ``scene`` (a built-in scene's name or a scene file; None:
    any world) would compile, None if they are loaded or cached. Loads the scene only while
    some kind of world has no kernels cached."""
    from twig.motor.kernels import motor_tick
    from twig.physics import tick

    ticks = kernel_cache.cached_signatures(tick.physics_tick)
    motor_ready = bool(motor_tick.overloads or kernel_cache.cached_signatures(motor_tick))
    if ticks is not None and len(ticks) >= 2 and motor_ready:
        return None  # both kinds of tick (with boxes, without) and the motor kernel
    if scene is None:
        return None if kernel_cache.kernels_cached() else Kinds()
    from twig.scenes import load_scene

    world = load_scene(scene)
    kinds = Kinds(boxes=bool((world.volumes["kind"] == BOX).any()),
                  characters=bool(world.characters))
    args = (tick.array_args(world, announce=False), tick.setting_args(world))
    if (motor_ready or not kinds.characters) and kernel_cache.compiled(tick.physics_tick, args):
        return None
    return kinds


def compile_kernels(workers: int | None = None,
                    on_done: Callable[[str], None] | None = None,
                    kinds: Kinds = Kinds()) -> bool:
    """Compile the tick's stages and the motor kernel for ``kinds`` of world into the cache,
    ``workers`` processes at a time (default: :func:`default_workers`), and the tick itself
    here as soon as the stages are cached, while a worker may still compile the motor kernel;
    with one worker, everything here, as a first tick would. ``on_done(job)`` is called as
    each worker's job finishes. Returns whether every worker succeeded; what a failed one
    should have compiled is compiled here instead.

    Worker processes are spawned: a script that calls this must guard its top level with
    ``if __name__ == "__main__":``.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    workers = default_workers() if workers is None else workers
    if workers <= 1:  # one core: workers would only add their start-up to the same work
        with kernel_cache.quiet():
            _sample_world(kinds).step()
        return True
    ok = True
    context = multiprocessing.get_context("spawn")
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = {pool.submit(_compile_job, job, kinds): job for job in kinds.jobs()}
            stages = {future for future, job in futures.items() if "motor" not in job}
            for future in as_completed(futures):
                try:
                    future.result()
                except Exception:  # a worker's error: its kernels are compiled below instead
                    ok = False
                if on_done is not None:
                    on_done(", ".join(futures[future]))
                if future in stages:
                    stages.remove(future)
                    if not stages:  # every stage cached: the tick, beside the motor kernel
                        with kernel_cache.quiet():
                            _sample_world(Kinds(boxes=kinds.boxes, characters=False)).step()
    except OSError:  # no worker processes here: the tick below compiles everything
        ok = False
    with kernel_cache.quiet():  # loads what is cached, compiles what a failed worker left
        _sample_world(kinds).step()
    return ok


def default_workers() -> int:
    """Worker processes :func:`compile_kernels` starts: one per job, at most the CPUs this
    process may run on."""
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    return min(len(JOBS), len(cpus) if cpus else os.cpu_count() or 1)


def _sample_world(kinds: Kinds = Kinds()):
    """A small world with capsules, a rolling ball, a rag doll, and as ``kinds`` asks, a box
    and a character under motor control."""
    from twig.world import World

    world = World(seed=0)
    world.add_humanoid("a", (0.0, 0.0, 0.0), control=kinds.characters)
    world.add_humanoid("b", (1.0, 0.0, 0.0), control=False)
    if kinds.boxes:
        world.add_block("box", (0.0, 0.5, 1.0))
    world.add_ball("ball", (1.0, 0.5, 1.0))
    return world


def _compile_job(names: tuple[str, ...], kinds: Kinds) -> None:
    """In a worker: compile the kernels ``names`` (see :data:`JOBS`) for ``kinds`` of world by
    calling them once."""
    world = _sample_world(kinds)
    if "motor" in names:
        world.motor.act()
    if "find_pairs" in names:
        from twig.physics import tick

        tick.array_args(world, announce=False)
    stages = [name for name in names if name != "motor"]
    if stages:
        _call_stages(world, stages)


def _call_stages(world, names: list[str]) -> None:
    """Call the stage kernels ``names`` as ``physics_tick`` calls them for ``world``
    (:func:`stage_calls`)."""
    calls = stage_calls(world)
    for name in names:
        kernel, args = calls[name]
        kernel(*args)


class _Count(int):
    """What a recorded stage returns in :func:`stage_calls`: a count of 1, so that the tick
    goes on to the stages that run only when there are pairs, and a pair of counts where the
    tick unpacks two; passed on to a stage it is recorded as 0 (nothing to do)."""

    def __iter__(self):
        return iter((self, self))


def stage_calls(world) -> dict[str, tuple[CPUDispatcher, tuple]]:
    """The kernels ``physics_tick`` calls for ``world``'s records, by name, each with the
    arguments of its first call: the tick's Python body is run with every kernel it names
    replaced by a recorder, whose result stands for the counts the stage would return
    (:class:`_Count`)."""
    from twig.physics import tick

    calls: dict[str, tuple[CPUDispatcher, tuple]] = {}

    def recorder(name: str, kernel: CPUDispatcher) -> Callable[..., _Count]:
        def record(*args):
            calls.setdefault(name, (kernel, tuple(
                np.int64(0) if isinstance(a, _Count) else a for a in args)))
            return _Count(1)
        return record

    scope = {name: recorder(name, value) if isinstance(value, CPUDispatcher) else value
             for name, value in vars(tick).items()}
    body = tick.physics_tick.py_func
    types.FunctionType(body.__code__, scope, body.__name__)(
        tick.array_records(world), tick.setting_args(world))
    return calls


def main(argv: list[str] | None = None) -> None:
    """``python -m twig.warmup``: compile both kinds of world's kernels into the cache;
    ``--ship [LEVEL ...]``: build the kernels shipped with twig instead
    (:func:`twig.physics.prebuilt.build`)."""
    import argparse
    import time

    import numba

    from twig.physics import prebuilt

    levels = " ".join(prebuilt.LEVELS)
    parser = argparse.ArgumentParser(
        prog="python -m twig.warmup",
        description="Compile the physics and motor kernels into the cache ahead of a first run.")
    parser.add_argument("--ship", nargs="*", metavar="LEVEL", choices=list(prebuilt.LEVELS),
                        help="instead, compile the kernels shipped with twig for these CPU "
                             f"levels and write their archives (default: {levels})")
    args = parser.parse_args(argv)
    if args.ship is not None:
        built = prebuilt.build(tuple(args.ship) or tuple(prebuilt.LEVELS))
        for level in built["levels"]:
            path = prebuilt.archive(level)
            print(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB, sources "
                  f"{built['fingerprint']}")
        return
    if kinds_to_compile() is None:
        where = numba.config.CACHE_DIR or "Numba's cache"
        print(f"kernels already compiled for these sources ({where})")
        return
    start = time.perf_counter()
    complete = True
    for boxes in (False, True):  # the second compiles only what the box tests add
        complete &= compile_kernels(on_done=lambda job: print(f"compiled {job}", flush=True),
                                    kinds=Kinds(boxes=boxes))
    print(f"kernels compiled in {time.perf_counter() - start:.0f} s"
          + ("" if complete else " (some parts in this process, after the workers)"))


if __name__ == "__main__":  # python -m twig.warmup: compile ahead of the first run
    main()
