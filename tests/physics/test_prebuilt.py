"""The kernels shipped with twig (twig.physics.prebuilt): of the sources they ship with, and a
copy of the package anywhere runs every built-in scene on a first start without compiling."""

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


def test_shipped_kernels_are_of_these_sources():
    """Edited kernel sources need a new archive: ``python -m twig.physics.prebuilt``."""
    assert _MANIFEST["fingerprint"] == fingerprint(KERNEL_PACKAGES), \
        "the shipped kernels are of other sources: run python -m twig.physics.prebuilt"
    assert _MANIFEST["platform"]["numba"] == prebuilt.platform_tag()["numba"]
    assert _MANIFEST["cpu_name"] in prebuilt.LEVELS


def test_cache_files_are_named_by_package_not_by_path():
    """A cache folder holds the same names wherever twig is installed."""
    assert PackageLocator.get_suitable_cache_subpath(str(_TWIG / "physics" / "tick.py")) \
        == "twig.physics"
    assert PackageLocator.get_suitable_cache_subpath(
        str(_TWIG / "physics" / "collision" / "narrow.py")) == "twig.physics.collision"


def test_unpack_needs_these_sources_and_this_machine(tmp_path, monkeypatch):
    """Nothing is unpacked for other sources, or where the user asked Numba for another CPU;
    a folder is unpacked once."""
    sources = _MANIFEST["fingerprint"]
    assert prebuilt.unpack(tmp_path, "0" * 16) is None
    assert not any(tmp_path.iterdir())
    monkeypatch.setenv("NUMBA_CPU_NAME", "znver1")
    assert prebuilt.unpack(tmp_path, sources) is None
    assert not any(tmp_path.iterdir())
    monkeypatch.delenv("NUMBA_CPU_NAME")
    if not prebuilt.runs_here(_MANIFEST):
        pytest.skip(f"the shipped kernels are for {_MANIFEST['platform']}, "
                    f"{_MANIFEST['cpu_name']}")
    assert prebuilt.unpack(tmp_path, sources) == _MANIFEST
    index = next(tmp_path.rglob("tick.physics_tick-*.nbi"))
    index.unlink()
    assert prebuilt.unpack(tmp_path, sources) == _MANIFEST  # the marker: not unpacked again
    assert not index.exists()


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
    if not prebuilt.runs_here(_MANIFEST):
        pytest.skip(f"the shipped kernels are for {_MANIFEST['platform']}, "
                    f"{_MANIFEST['cpu_name']}")
    shutil.copytree(_TWIG, tmp_path / "twig", ignore=shutil.ignore_patterns("__pycache__"))
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("NUMBA_", "PYTHON"))}
    subprocess.run([sys.executable, "-c", _RUN, str(tmp_path)], cwd=tmp_path, check=True,
                   env={**env, "PYTHONPATH": str(tmp_path)}, timeout=600)
    cache = tmp_path / "twig" / "physics" / "__pycache__" / "numba" / _MANIFEST["fingerprint"]
    written = {str(path.relative_to(cache)): path.stat().st_mtime_ns
               for path in cache.rglob("*.nb[ic]")}
    with tarfile.open(prebuilt.ARCHIVE, "r:xz") as tar:
        shipped = {member.name for member in tar if member.isfile()}
    assert set(written) == shipped, f"compiled: {sorted(set(written) - shipped)}"
    marker = (cache / prebuilt.MARKER).stat().st_mtime_ns
    assert max(written.values()) <= marker, "a shipped cache file was written again"
