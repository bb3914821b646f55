"""A trajectory does not depend on how the process got its kernels' machine code.

A kernel that calls others carries its own copy of each callee in its machine code, linked in
as a weak (``linkonce_odr``) definition, and Numba's JIT binds each call that LLVM did not
inline to the first definition of that symbol loaded into the process: the callee's own
compile when the process compiled or loaded it before the caller (as a process compiling into
an empty cache does), the caller's copy when the caller came first (a process loading the
cache). The two copies are the same source optimized in different modules, so they must give
the same bits (:data:`twig.physics.hot.FAST_MATH`): under LLVM's ``reassoc`` and ``contract``
flags they did not, and eight scenes stepped differently in a process that compiled its
kernels than in one that loaded them (a saved world, loaded elsewhere, had another future).

A cold compile takes a minute of CPU, so the test makes the other history without one: one
child process loads every cached kernel, callees before callers, as a compiling process holds
them; the other loads only what the scenes call. Both load the same saved worlds too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TICKS = 300
"""Ticks of every built-in scene compared (8 of 18 differed after 300 ticks: drag, kick,
marionette, office, playground, props, soccer and weight)."""
AHEAD = 90
SAVED = ("playground", 600)
"""A world saved at this tick of this scene is loaded by both children."""


def _load_kernels_callees_first() -> int:
    """Load every cached specialization of every kernel of ``twig.physics`` and ``twig.motor``
    into this process, each kernel after the kernels it calls; the number loaded."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import twig.motor
    import twig.physics
    from twig.physics import kernel_cache

    kernels: dict[int, CPUDispatcher] = {}
    for package in (twig.physics, twig.motor):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            for value in vars(importlib.import_module(info.name)).values():
                if isinstance(value, CPUDispatcher):
                    kernels[id(value)] = value

    def callees(kernel: CPUDispatcher, seen: set[int]) -> set[int]:
        for name in kernel.py_func.__code__.co_names:
            value = kernel.py_func.__globals__.get(name)
            if isinstance(value, CPUDispatcher) and id(value) not in seen:
                seen.add(id(value))
                callees(value, seen)
        return seen

    loaded = 0
    for kernel in sorted(kernels.values(), key=lambda k: len(callees(k, set()))):
        for signature in kernel_cache.cached_signatures(kernel) or ():
            kernel.compile(signature)
            loaded += 1
    return loaded


def _hashes(saved: Path) -> list[str]:
    """Each scene's state hash after TICKS ticks, then the saved world's after AHEAD more."""
    from twig.scenes.loader import list_scenes, load_scene
    from twig.world import World

    out = []
    for name in (s.name for s in list_scenes()):
        world = load_scene(name)
        world.step(TICKS)
        out.append(f"{name}:{world.state_hash()}")
    world = World.load(saved)
    world.step(AHEAD)
    out.append(f"{SAVED[0]}+{AHEAD}:{world.state_hash()}")
    return out


def _child(history: str, saved: Path) -> list[str]:
    out = subprocess.run([sys.executable, __file__, history, str(saved)], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[0] == history
    return out[1:]


def test_compiled_or_loaded_kernels_step_alike(tmp_path):
    from twig.scenes.loader import load_scene

    saved = tmp_path / "saved.twigworld"
    world = load_scene(SAVED[0])
    world.step(SAVED[1])
    world.save(saved)
    here = _hashes(saved)  # also compiles into the cache whatever the children will load
    callees_first = _child("callees-first", saved)
    as_called = _child("as-called", saved)
    assert callees_first == as_called, "the kernels' load order changed the trajectory"
    assert here == as_called, "this process stepped differently from a fresh one"


if __name__ == "__main__":
    history, saved = sys.argv[1], Path(sys.argv[2])
    if history == "callees-first":
        assert _load_kernels_callees_first() > 0, "no kernels in the cache"
    print(history, *_hashes(saved))
