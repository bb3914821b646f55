"""Keep Numba's on-disk kernel cache consistent with the kernel sources.

Numba keys each cached kernel's machine code (see :mod:`twig.physics.hot`) on its own source file's
timestamp, so a kernel that calls kernels from other modules (``physics_tick`` calls
``integrate_nodes``, ``relax`` and the collision kernels; ``motor_tick`` calls the gait's) or
reads their constants (the motor kernel reads :mod:`twig.motor.state`'s) would load stale code
when only the other module changed, and a process still running old code could write its stale
compile back under an unchanged caller's key. Before any kernel module loads,
:func:`use_versioned_cache` points Numba's cache at a folder named after a fingerprint of every
module of the packages kernels are compiled from (:data:`KERNEL_PACKAGES`), so each version of
the sources has its own cache; folders of other versions unused for a day are deleted.

Every kernel loads through :class:`KernelCache`, which leaves out the part of Numba's set-up
that only a compile needs, and finds its files under the cache folder by its module's name
(:class:`PackageLocator`), so that a cache folder can be moved to another installation: the
kernels shipped with twig (:mod:`twig.physics.prebuilt`) are such folders, which
:func:`use_versioned_cache` unpacks into a new one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import numba
from numba.core.caching import CompileResultCacheImpl, FunctionCache, UserProvidedCacheLocator
from numba.core.runtime import nrt
from numba.cpython import hashing  # noqa: F401  (its import registers the hash secret's symbols)

_HERE = Path(__file__).parent
KERNEL_PACKAGES = (_HERE, _HERE.parent / "motor")
"""The packages whose modules define kernels or the constants kernels read: ``twig.physics``
and ``twig.motor``."""
_KEEP_SECONDS = 86400.0
"""Cache folders of other source versions are removed after this long unused."""


def use_versioned_cache() -> None:
    """Cache kernels under ``__pycache__/numba/<fingerprint>`` of this package, the fingerprint
    of every module of :data:`KERNEL_PACKAGES`, and fill a new folder with the kernels shipped
    for these sources where they run (:func:`twig.physics.prebuilt.unpack`), compiling for
    their CPU level from then on (:func:`twig.physics.prebuilt.target`).

    Leaves Numba alone when the user set ``NUMBA_CACHE_DIR`` or the package folder is
    read-only (Numba then caches in its usual place, and compiles for this CPU).
    """
    from twig.physics import prebuilt

    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    root = _HERE / "__pycache__" / "numba"
    sources = fingerprint(KERNEL_PACKAGES)
    target = root / sources
    try:
        target.mkdir(parents=True, exist_ok=True)
        os.utime(target)
        now = time.time()
        for old in root.iterdir():
            if old != target and now - old.stat().st_mtime > _KEEP_SECONDS:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:
        return
    shipped = prebuilt.unpack(target, sources)
    if shipped is not None:
        prebuilt.target(shipped)  # before the folder: it reloads Numba's settings
    numba.config.CACHE_DIR = str(target)


class PackageLocator(UserProvidedCacheLocator):
    """Where Numba keeps the cache files of a kernel of twig: in ``numba.config.CACHE_DIR``,
    under its module's package name (``twig.physics.collision``), where Numba's own locator
    names the folder after a hash of the module's absolute path."""

    @classmethod
    def get_suitable_cache_subpath(cls, py_file: str) -> str:
        """``twig.physics`` for ``.../twig/physics/tick.py``."""
        folder = Path(py_file).resolve().parent
        package = _HERE.parent
        if folder != package and package not in folder.parents:
            return super().get_suitable_cache_subpath(py_file)
        return ".".join(folder.relative_to(package.parent).parts)


class _KernelCacheImpl(CompileResultCacheImpl):
    """Numba's compile-result cache, finding twig's files with :class:`PackageLocator`."""

    _locator_classes: ClassVar[list] = [PackageLocator, *CompileResultCacheImpl._locator_classes]


class KernelCache(FunctionCache):
    """Numba's on-disk cache of one kernel (:mod:`twig.physics.hot` gives every kernel one),
    loading machine code without the set-up that only a compile needs.

    Numba's own cache refreshes the target context before it loads anything: it imports and
    registers every implementation Numba has (NumPy's, the typed containers', the random
    generators', ...) and, to check for a BLAS, imports ``scipy.linalg``: 0.34 s of CPU before
    the first kernel of a cached ``twig run`` loads, a third of the command's time. The loaded
    machine code links only against Numba's runtime (NRT), its C helpers (registered when Numba
    is imported) and the hash secret, so this cache sets up only those, and does Numba's full
    set-up only when nothing is cached for the signature, that is before a compile (which
    refreshes the context again itself). The machine code is the same either way.
    """

    _impl_class = _KernelCacheImpl

    def load_overload(self, sig, target_context):
        """The cached compile of ``sig`` (Numba's ``CompileResult``), None if there is none
        (a compile follows: :mod:`twig.physics.inlining` is set up for it)."""
        nrt.rtsys.initialize(target_context)
        data = None
        with self._guard_against_spurious_io_errors():
            data = self._load_overload(sig, target_context)
        if data is not None:
            return data
        from twig.physics.inlining import share_scope_when_inlining

        share_scope_when_inlining()
        return super().load_overload(sig, target_context)


def fingerprint(packages: tuple[Path, ...]) -> str:
    """16 hex digits of a hash of every module of ``packages`` (folders), with their paths
    relative to the folder above the first."""
    digest = hashlib.sha256()
    for package in packages:
        for source in sorted(package.rglob("*.py")):
            digest.update(str(source.relative_to(packages[0].parent)).encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def kernels_cached() -> bool:
    """Whether any compiled kernels are cached for these sources (see :func:`tick_compiled`
    for the tick of a given world)."""
    cache_dir = numba.config.CACHE_DIR
    if not cache_dir:
        return True  # Numba's own cache location: nothing known, nothing to announce
    return any(Path(cache_dir).rglob("*.nbi"))


def cached_signatures(dispatcher) -> set[tuple] | None:
    """The argument types of ``dispatcher``'s specializations in the on-disk cache, compiled
    for this machine; None where this Numba keeps its cache index differently."""
    try:
        index = dispatcher._cache._cache_file._load_index()
        magic = dispatcher.targetctx.codegen().magic_tuple()
    except (AttributeError, OSError, ValueError, TypeError):
        return None
    return {key[0] for key in index if key[1] == magic}


def compiled(dispatcher, args: tuple) -> bool:
    """Whether a call of ``dispatcher`` with ``args`` finds its machine code loaded or cached
    (else it compiles first)."""
    signature = tuple(dispatcher.typeof_pyval(a) for a in args)
    if signature in dispatcher.overloads:
        return True
    cached = cached_signatures(dispatcher)
    return kernels_cached() if cached is None else signature in cached


_announced: set[tuple] = set()
_quiet = [False]


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """No notice from :func:`announce_compile` inside (the warm-up says what it compiles)."""
    _quiet[0] = True
    try:
        yield
    finally:
        _quiet[0] = False


def announce_compile(args: tuple) -> None:
    """Before a tick whose kernel for ``args`` (:func:`~twig.physics.tick.physics_tick`'s
    arguments) is neither loaded nor cached: say on stderr that it is about to compile, which
    takes up to a minute of one core (the ``twig`` command and ``python -m
    twig.warmup`` compile in parallel processes instead). Says it once per kind of
    world (with boxes or without) and process."""
    from twig.physics.tick import physics_tick

    if _quiet[0]:
        return
    kind = tuple(physics_tick.typeof_pyval(a) for a in args)
    if kind in _announced:
        return
    _announced.add(kind)
    if not compiled(physics_tick, args):
        print("twig: compiling the physics kernels for this kind of world, once: up to a "
              "minute on one core ('python -m twig.warmup' compiles them in "
              "parallel)", file=sys.stderr, flush=True)
