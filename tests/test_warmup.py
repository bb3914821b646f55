"""The first run's parallel compile (twig.warmup): its workers call the tick's stages
from Python, and each call must hit the specialization the tick itself uses, or the first
tick would compile that stage again after waiting for the workers."""

import pytest
from numba.core import event

from twig.physics import kernel_cache
from twig.warmup import JOBS, Kinds, _call_stages, _sample_world, kinds_to_compile, stage_calls


@pytest.mark.parametrize("boxes", [True, False])
def test_the_workers_call_each_stage_as_the_tick_does(boxes):
    """With the kernels compiled for an ordinary tick, calling every stage the way the workers
    do compiles nothing: every call finds the tick's own specialization in the cache (a
    literal argument, say, would have compiled a second one). The same for a world without
    boxes, whose tick is compiled without the box tests."""
    kinds = Kinds(boxes=boxes)
    world = _sample_world(kinds)
    world.step()
    stages = [name for job in kinds.jobs() for name in job if name != "motor"]
    with event.install_recorder("numba:compile") as recorder:
        _call_stages(world, stages)
    compiled = {ev.data["dispatcher"].py_func.__name__ for _, ev in recorder.buffer
                if ev.is_start}
    assert compiled == set()


def test_the_workers_compile_every_kernel_the_tick_calls():
    """Every kernel ``physics_tick`` calls is some worker's job: one left out would be
    compiled after the workers, one core only. A world without characters leaves out only
    the motor kernel; one without boxes calls the box stages too (compiled to nothing)."""
    for boxes in (True, False):
        called = set(stage_calls(_sample_world(Kinds(boxes=boxes))))
        assert called == {name for job in JOBS for name in job if name != "motor"}
    plain = {name for job in Kinds(boxes=False, characters=False).jobs() for name in job}
    assert plain == called


def test_a_compiled_kind_of_world_needs_no_compile():
    """After a tick of a world without boxes, its scene's kernels are compiled; a scene with
    boxes needs its own tick (unless an earlier run cached it)."""
    _sample_world(Kinds(boxes=False)).step()
    assert kinds_to_compile("tetra") is None
    _sample_world(Kinds(boxes=True)).step()
    assert kinds_to_compile("weight") is None


def test_a_first_tick_that_compiles_says_so_once(monkeypatch, capsys):
    """A script's first tick with nothing cached for its kind of world compiles for up to a
    minute: it says so on stderr, once per kind of world and process, and names the parallel
    alternative."""
    monkeypatch.setattr(kernel_cache, "compiled", lambda dispatcher, args: False)
    monkeypatch.setattr(kernel_cache, "_announced", set())
    world = _sample_world()
    world.step()
    world.step()
    _sample_world().step()
    err = capsys.readouterr().err
    assert err.count("compiling the physics kernels") == 1
    assert "python -m twig.warmup" in err
    _sample_world(Kinds(boxes=False)).step()
    assert capsys.readouterr().err.count("compiling the physics kernels") == 1


def test_a_scene_without_kernels_names_its_kind_of_world(monkeypatch):
    """With nothing cached, the warm-up compiles what the scene's first tick needs: the tick
    with or without the box tests, the motor kernel only for characters."""
    monkeypatch.setattr(kernel_cache, "compiled", lambda dispatcher, args: False)
    monkeypatch.setattr(kernel_cache, "cached_signatures", lambda dispatcher: set())
    from twig.motor.kernels import motor_tick

    monkeypatch.setattr(motor_tick, "overloads", {})
    assert kinds_to_compile("tetra") == Kinds(boxes=False, characters=False)
    assert kinds_to_compile("playground") == Kinds(boxes=False, characters=True)
    assert kinds_to_compile("weight").boxes


def test_the_warm_up_with_everything_cached_compiles_nothing():
    """``python -m twig.warmup`` after both kinds of world's kernels are cached (shipped or
    compiled before) says so and starts no worker."""
    import subprocess
    import sys

    _sample_world(Kinds(boxes=False)).step()
    _sample_world(Kinds(boxes=True)).step()
    out = subprocess.run([sys.executable, "-m", "twig.warmup"], capture_output=True, text=True,
                         check=True, timeout=300).stdout
    assert out.startswith("kernels already compiled for these sources"), out
    assert "compiled motor" not in out
