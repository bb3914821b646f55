"""Keep Numba's on-disk kernel cache consistent with the kernel sources.

Numba keys each cached kernel's machine code (see :mod:`twig.physics.hot`) on its own source file's
timestamp, so a kernel that calls kernels from other modules (``physics_tick`` calls
``integrate_nodes``, ``relax`` and the collision kernels) would load stale code when only a
callee changed, and a process still running old code could write its stale compile back under
an unchanged caller's key. Before any kernel module loads, :func:`use_versioned_cache` points
Numba's cache at a folder named after a fingerprint of every module of this package, so each
version of the sources has its own cache; folders of other versions unused for a day are
deleted.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

import numba

_HERE = Path(__file__).parent
_KEEP_SECONDS = 86400.0
"""Cache folders of other source versions are removed after this long unused."""


def use_versioned_cache() -> None:
    """Cache kernels under ``__pycache__/numba/<fingerprint>`` of this package.

    Leaves Numba alone when the user set ``NUMBA_CACHE_DIR`` or the package folder is
    read-only (Numba then caches in its usual place).
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    digest = hashlib.sha256()
    for source in sorted(_HERE.rglob("*.py")):
        digest.update(str(source.relative_to(_HERE)).encode())
        digest.update(source.read_bytes())
    root = _HERE / "__pycache__" / "numba"
    target = root / digest.hexdigest()[:16]
    try:
        target.mkdir(parents=True, exist_ok=True)
        os.utime(target)
        now = time.time()
        for old in root.iterdir():
            if old != target and now - old.stat().st_mtime > _KEEP_SECONDS:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:
        return
    numba.config.CACHE_DIR = str(target)


def kernels_cached() -> bool:
    """Whether compiled kernels are already cached for these sources (the first tick then
    takes about a second instead of a minute of compiling)."""
    cache_dir = numba.config.CACHE_DIR
    if not cache_dir:
        return True  # Numba's own cache location: nothing known, nothing to announce
    return any(Path(cache_dir).rglob("*.nbi"))


@functools.cache
def announce_compile() -> None:
    """Before a process's first tick: if nothing is cached for these sources, say on stderr
    that the tick is about to compile the kernels, which takes about a minute of one core
    (the ``twig`` command and ``python -m twig.warmup`` compile them in parallel
    processes instead). Says it once per process."""
    if not kernels_cached():
        print("twig: compiling the physics kernels, first run only: about a minute on one core "
              "('python -m twig.warmup' compiles them in parallel)", file=sys.stderr,
              flush=True)
