"""The kernels shipped with twig (twig.physics.prebuilt): of the sources they ship with, and a
copy of the package anywhere runs every built-in scene on a first start without compiling, in
code for the best CPU level that runs here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import twig
from twig.physics import prebuilt
from twig.physics.kernel_cache import KERNEL_PACKAGES, PackageLocator, fingerprint

_TWIG = Path(twig.__file__).parent
_MANIFEST = json.loads(prebuilt.MANIFEST.read_text())


def _level() -> str:
    """The shipped level this machine runs, else the test is skipped."""
    level = next((name for name in prebuilt.LEVELS
                  if name in _MANIFEST["levels"] and prebuilt.runs_here(name)), None)
    if _MANIFEST["platform"] != prebuilt.platform_tag() or level is None:
        pytest.skip(f"the shipped kernels are for {_MANIFEST['platform']}, "
                    f"{', '.join(_MANIFEST['levels'])}")
    return level


def test_shipped_kernels_are_of_these_sources():
    """Edited kernel sources need new archives: ``python -m twig.warmup --ship``."""
    assert _MANIFEST["fingerprint"] == fingerprint(KERNEL_PACKAGES), \
        "the shipped kernels are of other sources: run python -m twig.warmup --ship"
    assert _MANIFEST["platform"]["numba"] == prebuilt.platform_tag()["numba"]
    assert list(prebuilt.LEVELS) == _MANIFEST["levels"]
    assert all(prebuilt.archive(level).stat().st_size > 100_000 for level in prebuilt.LEVELS)


def test_cache_files_are_named_by_package_not_by_path():
    """A cache folder holds the same names wherever twig is installed."""
    assert PackageLocator.get_suitable_cache_subpath(str(_TWIG / "physics" / "tick.py")) \
        == "twig.physics"
    assert PackageLocator.get_suitable_cache_subpath(
        str(_TWIG / "physics" / "collision" / "narrow.py")) == "twig.physics.collision"


def test_unpack_needs_these_sources_and_this_machine(tmp_path, monkeypatch):
    """Nothing is unpacked for other sources, or where the user asked Numba for another CPU;
    a folder is unpacked once."""
    monkeypatch.delenv("NUMBA_CPU_FEATURES", raising=False)  # as this process was started
    sources = _MANIFEST["fingerprint"]
    assert prebuilt.unpack(tmp_path, "0" * 16) is None
    assert not any(tmp_path.iterdir())
    monkeypatch.setenv("NUMBA_CPU_NAME", "znver1")
    assert prebuilt.unpack(tmp_path, sources) is None
    assert not any(tmp_path.iterdir())
    monkeypatch.delenv("NUMBA_CPU_NAME")
    level = _level()
    assert prebuilt.unpack(tmp_path, sources) == level
    index = next(tmp_path.rglob("tick.physics_tick-*.nbi"))
    index.unlink()
    assert prebuilt.unpack(tmp_path, sources) == level  # the marker: not unpacked again
    assert not index.exists()


def test_the_best_level_that_runs_is_unpacked(tmp_path, monkeypatch):
    """Where the user asks Numba for x86-64-v3 on a CPU that runs v4, v3 is unpacked."""
    monkeypatch.delenv("NUMBA_CPU_NAME", raising=False)  # as this process was started
    monkeypatch.delenv("NUMBA_CPU_FEATURES", raising=False)
    _level()
    if not prebuilt.runs_here("x86-64-v3"):
        pytest.skip("this CPU runs no shipped level")
    monkeypatch.setenv("NUMBA_CPU_NAME", "x86-64-v3")
    assert prebuilt.unpack(tmp_path, _MANIFEST["fingerprint"]) == "x86-64-v3"


_RUN = """
import sys
from twig.scenes.loader import list_scenes, load_scene
import twig.physics
assert twig.physics.__file__.startswith(sys.argv[1]), twig.physics.__file__
for info in list_scenes():
    world = load_scene(info.name)
    world.step(60)
    world.restore(world.snapshot())
    world.step(1)
"""


def test_a_moved_package_runs_every_scene_from_the_shipped_kernels(tmp_path):
    """A copy of the package elsewhere (a new installation) unpacks the shipped kernels on its
    first start, and its every built-in scene then steps without compiling: the cache folder
    holds exactly the archive's files afterwards, none written or changed."""
    level = _level()
    shutil.copytree(_TWIG, tmp_path / "twig", ignore=shutil.ignore_patterns("__pycache__"))
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("NUMBA_", "PYTHON"))}
    subprocess.run([sys.executable, "-c", _RUN, str(tmp_path)], cwd=tmp_path, check=True,
                   env={**env, "PYTHONPATH": str(tmp_path)}, timeout=600)
    cache = tmp_path / "twig" / "physics" / "__pycache__" / "numba" / _MANIFEST["fingerprint"]
    written = {str(path.relative_to(cache)): path.stat().st_mtime_ns
               for path in cache.rglob("*.nb[ic]")}
    with tarfile.open(prebuilt.archive(level), "r:xz") as tar:
        shipped = {member.name for member in tar if member.isfile()}
    assert set(written) == shipped, f"compiled: {sorted(set(written) - shipped)}"
    assert json.loads((cache / prebuilt.MARKER).read_text())["level"] == level
    marker = (cache / prebuilt.MARKER).stat().st_mtime_ns
    assert max(written.values()) <= marker, "a shipped cache file was written again"
