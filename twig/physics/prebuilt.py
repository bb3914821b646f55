"""Machine code for the kernels, compiled ahead and shipped with twig, so that a first run
loads it instead of compiling for a minute.

A first ``twig run`` used to compile every kernel its kind of world calls: about 50 s of CPU,
30 s of wall time on two cores. The package carries the compile of every kernel the built-in
scenes call (:data:`ARCHIVE`, Numba's cache files; :data:`MANIFEST` says what they were
compiled for): for the sources it was built from (:func:`~twig.physics.kernel_cache.fingerprint`),
this Python and Numba, and a CPU level that most x86-64 machines of the last ten years reach
(:data:`LEVELS`; Numba's own default, the host's exact model, would make it load on no other
machine). :func:`unpack` copies it into the kernel cache of these sources on the first start
that finds that cache without it, on a machine it runs on; anything else (another Python or
CPU, edited sources) compiles on first use as before.

A process whose kernels come from the archive compiles for the archive's CPU level too
(:func:`target`, which sets ``NUMBA_CPU_NAME`` and ``NUMBA_CPU_FEATURES`` before the first
kernel is defined), so the kernels it compiles for a new argument type, and those of the
processes it starts, are code for the same level: a machine always runs one kind of code.
Numba's ``NUMBA_CPU_NAME``, set by the user, or ``NUMBA_CACHE_DIR`` (see
:func:`~twig.physics.kernel_cache.use_versioned_cache`) leave Numba's choice alone.

``python -m twig.physics.prebuilt`` builds the archive (about a minute of CPU on two cores):
run it after changing a module of ``twig.physics`` or ``twig.motor``; a test fails while the
archive is of other sources.
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
ARCHIVE = _HERE / "prebuilt_kernels.tar.xz"
"""Numba's index (``.nbi``) and data (``.nbc``) files of every shipped kernel, by their paths
under the cache folder (:class:`~twig.physics.kernel_cache.PackageLocator`)."""
MANIFEST = _HERE / "prebuilt_kernels.json"
"""What :data:`ARCHIVE` was compiled from and for: the sources' ``fingerprint``, the
``platform`` (:func:`platform_tag`) and the CPU level ``cpu_name`` (:data:`LEVELS`)."""
MARKER = "prebuilt.json"
"""Written into a cache folder that :func:`unpack` filled: the manifest it came from."""

LEVELS = {
    "x86-64-v2": {"cx16", "sahf", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3"},
    "x86-64-v3": {"cx16", "sahf", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3", "avx", "avx2",
                  "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"},
}
"""The x86-64 micro-architecture levels (psABI) the archive may be compiled for, with the CPU
features (LLVM's names) each needs. ``x86-64-v3`` (AVX2, FMA: Intel since 2013, AMD since
2015) is the default."""
DEFAULT_LEVEL = "x86-64-v3"


def platform_tag() -> dict[str, str]:
    """What compiled code must match besides the CPU: the operating system and machine, the
    Python version (the cache files' names and pickles) and Numba's and llvmlite's."""
    return {"system": sys.platform, "machine": platform.machine(),
            "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
            "numba": numba.__version__, "llvmlite": llvmlite.__version__}


def runs_here(manifest: dict) -> bool:
    """Whether code compiled as ``manifest`` says loads and runs in this process: the same
    platform (:func:`platform_tag`), a CPU with every feature of its level, and no other CPU
    asked of Numba by the user."""
    import llvmlite.binding as ll

    level = manifest.get("cpu_name")
    if manifest.get("platform") != platform_tag() or level not in LEVELS:
        return False
    if os.environ.get("NUMBA_CPU_NAME", level) != level or \
            os.environ.get("NUMBA_CPU_FEATURES", "") != "":
        return False
    features = ll.get_host_cpu_features()
    return all(features.get(name, False) for name in LEVELS[level])


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def unpack(cache: Path, fingerprint: str) -> dict | None:
    """Fill the kernel cache folder ``cache`` of the sources ``fingerprint`` from
    :data:`ARCHIVE`, once (:data:`MARKER`), if the archive is of these sources and runs here;
    the manifest of what the folder holds from it, None if nothing."""
    marker = cache / MARKER
    held = _read_json(marker)
    if held is not None:
        return held if runs_here(held) else None
    manifest = _read_json(MANIFEST)
    if manifest is None or manifest.get("fingerprint") != fingerprint or not runs_here(manifest):
        return None
    try:
        with open(cache / ".unpack.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be unpacking it
            if not marker.exists():
                _extract(ARCHIVE, cache)
                marker.write_text(json.dumps(manifest))
    except (OSError, tarfile.TarError):
        return None
    return manifest


def _extract(archive: Path, cache: Path) -> None:
    """Write the archive's regular files under ``cache`` (names checked to stay inside it)."""
    with tarfile.open(archive, "r:xz") as tar:
        for member in tar:
            path = cache.joinpath(member.name)
            if not member.isfile() or cache.resolve() not in path.resolve().parents:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            if source is not None:
                path.write_bytes(source.read())


def target(manifest: dict) -> bool:
    """Have Numba compile for ``manifest``'s CPU level in this process and those it starts;
    False (nothing changed) where a kernel was defined already, whose CPU Numba has chosen."""
    from numba.core.registry import cpu_target

    if "_toplevel_target_context" in vars(cpu_target):
        return False
    os.environ["NUMBA_CPU_NAME"] = manifest["cpu_name"]
    os.environ["NUMBA_CPU_FEATURES"] = ""
    numba.config.reload_config()
    return True


def build(level: str = DEFAULT_LEVEL) -> dict:
    """Compile the kernels of both kinds of world (:mod:`twig.warmup`) and of every built-in
    scene for CPU ``level`` into an empty cache, and write it to :data:`ARCHIVE` and
    :data:`MANIFEST`; the manifest."""
    from twig.physics.kernel_cache import KERNEL_PACKAGES, fingerprint

    if level not in LEVELS:
        raise ValueError(f"CPU level {level!r}: expected one of {', '.join(LEVELS)}")
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
    manifest = {"fingerprint": fingerprint(KERNEL_PACKAGES), "platform": platform_tag(),
                "cpu_name": level}
    _write(ARCHIVE, data.getvalue())
    _write(MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode())
    return manifest


_SCENES = """
from twig.scenes.loader import list_scenes, load_scene
for info in list_scenes():
    load_scene(info.name).step(30)
"""
"""Run in the build's process: each built-in scene's first ticks call every kernel it calls
from Python, so the archive holds those the warm-up does not compile."""


def _write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step (a reader never sees half a file)."""
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as out:
        out.write(data)
    with contextlib.suppress(OSError):
        os.chmod(out.name, 0o644)
    os.replace(out.name, path)


if __name__ == "__main__":  # python -m twig.physics.prebuilt [LEVEL]
    try:
        built = build(*sys.argv[1:2])
    except ValueError as error:
        sys.exit(f"python -m twig.physics.prebuilt: {error}")
    print(f"{ARCHIVE.name}: {ARCHIVE.stat().st_size / 1e6:.1f} MB, sources "
          f"{built['fingerprint']}, CPU {built['cpu_name']}")
