"""Machine code for the kernels, compiled ahead and shipped with twig, so that a first run
loads it instead of compiling for a minute.

A first ``twig run`` used to compile every kernel its kind of world calls: about 50 s of CPU,
30 s of wall time on two cores. The package carries the compile of every kernel the built-in
scenes call (Numba's cache files, :func:`archive`; :data:`MANIFEST` says what they were
compiled for): for the sources it was built from
(:func:`~twig.physics.kernel_cache.fingerprint`), this Python and Numba, and two CPU levels
that most x86-64 machines of the last ten years reach (:data:`LEVELS`; Numba's own default,
the host's exact model, would load on no other machine). :func:`unpack` copies the best one
that runs here into the kernel cache of these sources, on the first start that finds that
cache without it; anything else (another Python or CPU, edited sources) compiles on first use
as before.

A process whose kernels come from an archive compiles for its CPU level too (:func:`target`,
which sets ``NUMBA_CPU_NAME`` and ``NUMBA_CPU_FEATURES`` before the first kernel is defined),
so the kernels it compiles later, and those of the processes it starts, are code for the same
level: a machine always runs one kind of code. ``NUMBA_CPU_NAME`` set by the user, or
``NUMBA_CACHE_DIR`` (see :func:`~twig.physics.kernel_cache.use_versioned_cache`), leaves
Numba's choice alone.

``python -m twig.warmup --ship [LEVEL ...]`` builds the archives (about 90 s of two cores
a level): run it after changing a module of ``twig.physics`` or ``twig.motor``; a test fails
while the archives are of other sources.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import llvmlite
import numba

_HERE = Path(__file__).parent
MANIFEST = _HERE / "prebuilt_kernels.json"
"""What the archives were compiled from and for: the sources' ``fingerprint``, the
``platform`` (:func:`platform_tag`) and the CPU ``levels`` (:data:`LEVELS`), one archive each
(:func:`archive`)."""
MARKER = "prebuilt.json"
"""Written into a cache folder that :func:`unpack` filled: the sources, platform and level."""

_V3 = {"cx16", "sahf", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3", "avx", "avx2", "bmi",
       "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"}
LEVELS = {
    "x86-64-v4": _V3 | {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"},
    "x86-64-v3": _V3,
}
"""The x86-64 micro-architecture levels (psABI) the kernels are shipped for, the first a CPU
runs preferred, with the CPU features (LLVM's names) each needs. ``x86-64-v3`` (AVX2 and
FMA: Intel since 2013, AMD since 2015) runs on most machines; ``x86-64-v4`` (AVX-512: most
servers, AMD since 2022) is faster where it runs: the 100-doll pile took 6-8 % longer a tick
in v3 code than in code for the host (an AMD Zen 4), and the same in v4 code within 1-3 %
(``twig bench --quick``, three runs of each alternated), as AVX-512 gives the large kernels
32 vector registers instead of 16."""


def archive(level: str) -> Path:
    """The archive of Numba's cache files (index ``.nbi`` and data ``.nbc``, by their paths
    under the cache folder, :class:`~twig.physics.kernel_cache.PackageLocator`) of the kernels
    compiled for CPU ``level``."""
    return _HERE / f"prebuilt_kernels-{level}.tar.xz"


def platform_tag() -> dict[str, str]:
    """What compiled code must match besides the CPU: the operating system and machine, the
    Python version (the cache files' names and pickles) and Numba's and llvmlite's."""
    return {"system": sys.platform, "machine": platform.machine(),
            "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
            "numba": numba.__version__, "llvmlite": llvmlite.__version__}


def runs_here(level: str) -> bool:
    """Whether code compiled for CPU ``level`` runs in this process: a CPU with every feature
    of the level, and no other CPU asked of Numba by the user."""
    import llvmlite.binding as ll

    if level not in LEVELS or os.environ.get("NUMBA_CPU_NAME", level) != level or \
            os.environ.get("NUMBA_CPU_FEATURES", "") != "":
        return False
    features = ll.get_host_cpu_features()
    return all(features.get(name, False) for name in LEVELS[level])


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def unpack(cache: Path, fingerprint: str) -> str | None:
    """Fill the kernel cache folder ``cache`` of the sources ``fingerprint``, once
    (:data:`MARKER`), with the shipped kernels of the first level in :data:`LEVELS` that runs
    here, if they are of these sources and this platform; the level the folder holds, None
    if none."""
    marker = cache / MARKER
    held = _read_json(marker)
    if held is not None:
        same = held.get("platform") == platform_tag() and runs_here(held.get("level", ""))
        return held["level"] if same else None
    manifest = _read_json(MANIFEST)
    if manifest is None or manifest.get("fingerprint") != fingerprint or \
            manifest.get("platform") != platform_tag():
        return None
    level = next((name for name in LEVELS
                  if name in manifest.get("levels", ()) and runs_here(name)), None)
    if level is None:
        return None
    try:
        with open(cache / ".unpack.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be unpacking it
            if not marker.exists():
                _extract(archive(level), cache)
                marker.write_text(json.dumps({"fingerprint": fingerprint,
                                              "platform": platform_tag(), "level": level}))
    except (OSError, tarfile.TarError):
        return None
    return level


def _extract(path: Path, cache: Path) -> None:
    """Write the archive's regular files under ``cache`` (names checked to stay inside it)."""
    with tarfile.open(path, "r:xz") as tar:
        for member in tar:
            target = cache.joinpath(member.name)
            if not member.isfile() or cache.resolve() not in target.resolve().parents:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            if source is not None:
                target.write_bytes(source.read())


def target(level: str) -> bool:
    """Have Numba compile for CPU ``level`` in this process and those it starts; False
    (nothing changed) where a kernel was defined already, whose CPU Numba has chosen."""
    from numba.core.registry import cpu_target

    if "_toplevel_target_context" in vars(cpu_target):
        return False
    os.environ["NUMBA_CPU_NAME"] = level
    os.environ["NUMBA_CPU_FEATURES"] = ""
    numba.config.reload_config()
    return True


def build(levels: tuple[str, ...] = tuple(LEVELS)) -> dict:
    """For each CPU level of ``levels``, compile the kernels of both kinds of world
    (:mod:`twig.warmup`) and those the built-in scenes call (:data:`_SCENES`) into an empty
    cache and write it to :func:`archive`; then write :data:`MANIFEST`. Returns the
    manifest."""
    from twig.physics.kernel_cache import KERNEL_PACKAGES, fingerprint

    for level in levels:
        if level not in LEVELS:
            raise ValueError(f"CPU level {level!r}: expected one of {', '.join(LEVELS)}")
    for level in levels:
        with tempfile.TemporaryDirectory(prefix="twig-prebuilt-") as folder:
            env = {**os.environ, "NUMBA_CACHE_DIR": folder, "NUMBA_CPU_NAME": level,
                   "NUMBA_CPU_FEATURES": ""}
            subprocess.run([sys.executable, "-m", "twig.warmup"], env=env, check=True)
            subprocess.run([sys.executable, "-c", _SCENES], env=env, check=True)
            data = io.BytesIO()
            with tarfile.open(fileobj=data, mode="w:xz", preset=9) as tar:
                for path in sorted(Path(folder).rglob("*.nb[ic]")):
                    info = tar.gettarinfo(path, arcname=str(path.relative_to(folder)))
                    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                    with open(path, "rb") as source:
                        tar.addfile(info, source)
        _write(archive(level), data.getvalue())
    manifest = {"fingerprint": fingerprint(KERNEL_PACKAGES), "platform": platform_tag(),
                "levels": list(levels)}
    _write(MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode())
    return manifest


_SCENES = """
from twig.scenes.loader import list_scenes, load_scene
for info in list_scenes():
    world = load_scene(info.name)
    world.step(60)
    world.restore(world.snapshot())
    world.step(1)
"""
"""Run in the build's process: each built-in scene's first ticks, a snapshot and a restore
call from Python every kernel they call, compiling those the warm-up did not."""


def _write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step (a reader never sees half a file)."""
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as out:
        out.write(data)
    with contextlib.suppress(OSError):
        os.chmod(out.name, 0o644)
    os.replace(out.name, path)
