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

The calls are those written in ``physics_tick`` (read from its source, so the two cannot
drift apart), evaluated with the tick's parameters bound to the small world's arrays and its
locals to values of the same types. A stage whose types were guessed wrong is simply compiled
again by the first tick, and a worker that fails only costs the time it took: the first tick
still compiles whatever is missing.
"""

from __future__ import annotations

import ast
import inspect
import multiprocessing
import os
import textwrap
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np

from twig.physics import kernel_cache
from twig.physics.collision.narrow import BOX

JOBS: tuple[tuple[str, ...], ...] = (
    ("first_sweep", "resolve_active", "_friction", "boxes_on_planes", "box_plane_friction"),
    ("find_pairs",),
    ("motor",),
    ("sweep_spheres", "relax", "integrate_nodes", "project_planes", "update_sleep",
     "record_contacts", "wake_driven", "rigid_prefix"),
)
"""What each worker compiles, longest first (seconds of one core on the 2-core machine, for a
world without boxes: ~18, ~11, ~7, ~8). ``motor`` is the characters' kernel; the other names
are the stage kernels as ``physics_tick`` calls them. The first job holds every stage that
reaches the contacts' code, which two workers would each compile for themselves."""

BOX_STAGES = frozenset({"boxes_on_planes", "box_plane_friction"})
"""Stages the tick calls only in a world with boxes (see :func:`~twig.physics.tick.array_args`)."""


@dataclass(frozen=True)
class Kinds:
    """What kind of world the kernels are compiled for: one with boxes or without (the tick is
    compiled apart for each), with characters or without (the motor kernel)."""

    boxes: bool = True
    characters: bool = True

    def jobs(self) -> tuple[tuple[str, ...], ...]:
        """:data:`JOBS` for this kind of world, without what it never calls."""
        skip = ({"motor"} if not self.characters else set()) | (
            set() if self.boxes else set(BOX_STAGES))
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
    args = (*tick.array_args(world, announce=False), *tick.setting_args(world))
    if (motor_ready or not kinds.characters) and kernel_cache.compiled(tick.physics_tick, args):
        return None
    return kinds


def compile_kernels(workers: int | None = None,
                    on_done: Callable[[str], None] | None = None,
                    kinds: Kinds = Kinds()) -> bool:
    """Compile the tick's stages and the motor kernel for ``kinds`` of world into the cache,
    ``workers`` processes at a time (default: :func:`default_workers`), then the tick itself
    here; with one worker, everything here, as a first tick would. ``on_done(job)`` is called
    as each worker's job finishes. Returns whether every worker succeeded; what a failed one
    should have compiled is compiled here instead.

    Worker processes are spawned: a script that calls this must guard its top level with
    ``if __name__ == "__main__":``.
    """
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
            for future in as_completed(futures):
                try:
                    future.result()
                except Exception:  # a worker's error: its kernels are compiled below instead
                    ok = False
                if on_done is not None:
                    on_done(", ".join(futures[future]))
    except OSError:  # no worker processes here: the tick below compiles everything
        ok = False
    with kernel_cache.quiet():
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
    stages = [name for name in names if name != "motor"]
    if stages:
        _call_stages(world, stages)


def _call_stages(world, names: list[str]) -> None:
    """Evaluate the calls of ``names`` written in ``physics_tick`` with its parameters bound to
    ``world``'s arguments and its locals to typed stand-ins (no pairs, no active contacts);
    in a world without boxes, not the stages it never calls."""
    from twig.physics import tick

    function = tick.physics_tick.py_func
    parameters = list(inspect.signature(function).parameters)
    scope = dict(zip(parameters, (*tick.array_args(world, announce=False),
                                  *tick.setting_args(world)), strict=True))
    n = len(world.nodes)
    scope.update(n=n, w=np.zeros(n), inert=np.zeros((n, 3)), depth=np.zeros(n),
                 contact_friction_mu=np.zeros(n),
                 n_pairs=np.int64(0), n_active=np.int64(0), n_rigid=np.int64(0), it=1)
    calls = _stage_calls(function)
    for name in names:
        if scope["boxes"] is None and name in BOX_STAGES:
            continue
        eval(compile(ast.Expression(calls[name]), "<physics_tick>", "eval"), vars(tick), scope)


def _stage_calls(function) -> dict[str, ast.Call]:
    """The calls by a plain name in ``function``'s source (its kernels, and builtins such as
    ``range``), by that name; the first call of each."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    calls: dict[str, ast.Call] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            calls.setdefault(node.func.id, node)
    return calls


if __name__ == "__main__":  # python -m twig.warmup: compile ahead of the first run
    import time

    start = time.perf_counter()
    complete = True
    for boxes in (False, True):  # the second compiles only what the box tests add
        complete &= compile_kernels(on_done=lambda job: print(f"compiled {job}", flush=True),
                                    kinds=Kinds(boxes=boxes))
    print(f"kernels compiled in {time.perf_counter() - start:.0f} s"
          + ("" if complete else " (some parts in this process, after the workers)"))
