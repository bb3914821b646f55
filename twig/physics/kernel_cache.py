"""Keep Numba's on-disk kernel cache consistent across modules.

Numba keys each ``@njit(cache=True)`` function's cached machine code on its own source file's
timestamp, so a kernel that calls kernels from other modules (``physics_tick`` calls
``integrate_nodes`` and ``relax``) would keep stale code when only a callee changed. Before any
kernel module loads, :func:`drop_stale_cache` compares a fingerprint of every module of this
package and its subpackages with the one saved beside the cache and deletes the cache files when they differ.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_HERE = Path(__file__).parent


def drop_stale_cache() -> None:
    """Delete this package's Numba cache files if any kernel source changed since they were made.

    Silently does nothing where the package folder is read-only (Numba then caches elsewhere).
    """
    digest = hashlib.sha256()
    for source in sorted(_HERE.rglob("*.py")):
        digest.update(str(source.relative_to(_HERE)).encode())
        digest.update(source.read_bytes())
    fingerprint = digest.hexdigest()
    cache = _HERE / "__pycache__"
    stamp = cache / "kernels.fingerprint"
    try:
        if stamp.is_file() and stamp.read_text() == fingerprint:
            return
        cache.mkdir(exist_ok=True)
        for stale in (*_HERE.rglob("*.nbi"), *_HERE.rglob("*.nbc")):
            stale.unlink()
        stamp.write_text(fingerprint)
    except OSError:
        return
