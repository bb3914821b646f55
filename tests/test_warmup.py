"""The first run's parallel compile (twig.warmup): its workers call the tick's stages
from Python, and each call must hit the specialization the tick itself uses, or the first
tick would compile that stage again after waiting for the workers."""

from numba.core import event
from numba.core.registry import CPUDispatcher

from twig.physics import kernel_cache, tick
from twig.warmup import JOBS, _call_stages, _sample_world, _stage_calls


def test_the_workers_call_each_stage_as_the_tick_does():
    """With the kernels compiled for an ordinary tick, calling every stage the way the workers
    do compiles nothing: every call finds the tick's own specialization in the cache (a
    literal argument, say, would have compiled a second one)."""
    world = _sample_world()
    world.step()
    stages = [name for job in JOBS for name in job if name != "motor"]
    with event.install_recorder("numba:compile") as recorder:
        _call_stages(world, stages)
    compiled = {ev.data["dispatcher"].py_func.__name__ for _, ev in recorder.buffer
                if ev.is_start}
    assert compiled == set()


def test_the_workers_compile_every_kernel_the_tick_calls():
    """Every kernel ``physics_tick`` calls is some worker's job: one left out would be
    compiled after the workers, one core only."""
    called = {name for name in _stage_calls(tick.physics_tick.py_func)
              if isinstance(getattr(tick, name, None), CPUDispatcher)}
    assert called == {name for job in JOBS for name in job if name != "motor"}


def test_a_first_tick_that_compiles_says_so_once(monkeypatch, capsys):
    """A script's first tick with nothing cached compiles for about a minute: it says so on
    stderr, once per process, and names the parallel alternative."""
    monkeypatch.setattr(kernel_cache, "kernels_cached", lambda: False)
    kernel_cache.announce_compile.cache_clear()
    world = _sample_world()
    world.step()
    world.step()
    err = capsys.readouterr().err
    assert err.count("compiling the physics kernels") == 1
    assert "python -m twig.warmup" in err
