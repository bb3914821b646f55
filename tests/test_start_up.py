"""A cached run starts without what only a compile needs (docs/performance.md, "A fresh clone").

Numba's own cache sets up its whole compiler before it loads a kernel (every implementation
it has, and ``scipy.linalg`` to look for a BLAS), and the ``twig`` command's argument parser
imported the batch runner with every layer of the simulation: a third of a cached
``twig run``'s time. These tests run the command's code in a fresh interpreter and check
what it imported, not how long it took.
"""

import subprocess
import sys

from twig.warmup import Kinds, _sample_world

_RUN = """
import sys
from twig.cli import main
assert main(["run", "tetra", "--seconds", "0.1", "--quiet"]) == 0
print(" ".join(sorted(sys.modules)))
"""

_MISS = """
import sys
from numba.core import types
from twig.physics.tick import physics_tick
assert "numba.core.inline_closurecall" not in sys.modules
print(physics_tick._cache.load_overload((types.int8,), physics_tick.targetctx))
from numba.core import inline_closurecall
print(getattr(inline_closurecall.InlineWorker.inline_ir, "shares_scope", False))
"""


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_cached_run_loads_its_kernels_without_the_compilers_set_up():
    """With tetra's kind of world cached (no boxes, no characters), ``twig run tetra`` loads
    its kernels without importing Numba's implementations or SciPy's linear algebra, and
    parses its arguments without importing the batch runner."""
    _sample_world(Kinds(boxes=False, characters=False)).step()  # cached, if it was not
    modules = set(_python(_RUN).splitlines()[-1].split())
    assert "twig.physics.tick" in modules
    for compiler_only in ("scipy.linalg", "numba.np.arraymath", "numba.np.linalg",
                          "numba.core.inline_closurecall", "twig.batch.runner"):
        assert compiler_only not in modules


def test_a_kernel_with_nothing_cached_sets_up_the_cheaper_inlining_first():
    """A signature with nothing cached is compiled next: the cache's miss sets up
    :mod:`twig.physics.inlining` before the compile (and not before: a cached run never
    imports Numba's inliner)."""
    assert _python(_MISS).split() == ["None", "True"]
