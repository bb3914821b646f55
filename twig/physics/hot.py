"""The decorators of every compiled kernel, and of the innermost ones compiled without
reference counting.

All kernels use NumPy's error model (``error_model="numpy"``): a float division by zero gives
an infinity or NaN instead of raising, so no division carries a test and a branch for it.
Divisions that could see a zero are guarded where they are written, as they were before, so
results are bit for bit the same; the 100-doll pile took about 1 % less time a tick
(per-tick minima of replays, processes alternated).

Numba counts references to arrays with atomic increments and decrements at every call of a
compiled function that takes arrays, unless the call is inlined, and Numba inlines neither
such calls by itself nor, with ``inline="always"`` on an ordinary kernel, without keeping the
counting. An atomic
instruction stalls the pipeline: a projection helper taking three arrays cost 18.5 ns a call
with the counting and 9.9 ns without (measured). Functions marked :data:`hot_kernel` may read
and write arrays they are given but must not allocate, slice out or return arrays (Numba's
``_nrt=False``: there is no runtime to count references for them); they may call ordinary
kernels that do not allocate (a kernel called from one is compiled without the runtime too,
so an allocating one fails to compile: the sweeps hand pairs with boxes, whose tests allocate,
back to an ordinary caller).

LLVM does not inline a large helper called from several places, and each such call passes a
dozen scalars and returns a tuple through memory. :data:`hot_inline` inlines at Numba's level
instead; the capsule contact's helpers so inlined took 100 lying stick figures from 0.50 to
0.42 ms a tick (bit for bit the same results).
"""

from __future__ import annotations

from collections.abc import Callable

from numba import njit
from numba.core.registry import CPUDispatcher

from twig.physics.kernel_cache import KernelCache

FAST_MATH = frozenset({"nsz", "arcp", "afn"})
"""LLVM's fast-math flags the kernels are compiled with: signed zeros ignored, division by
multiplying with a reciprocal and approximate library functions. Not ``nnan`` or ``ninf``:
infinite limits (a link with no maximum, a gap not yet measured) and NaN tests must keep their
meaning. Results differ from strict IEEE arithmetic in the last bits.

Not ``contract`` (fused multiply-add) or ``reassoc`` either: with them the trajectory depended
on how the process got its machine code. A kernel that calls others carries its own copy of
each callee, linked in as a weak definition, and Numba's JIT binds every call LLVM did not
inline to the first definition of that symbol loaded into the process: the callee's own when it
was compiled or loaded before the caller (a process compiling into an empty cache), the
caller's copy otherwise (a process loading the cache). The caller's copy is the callee's code
optimized a second time, in the caller's module, and under ``contract`` that second pass fuses
differently: 8 of the 18 scenes stepped differently after 300 ticks in the two kinds of process
with all five flags, 4 of 5 of those scenes still did with ``contract`` added to these three
(``reassoc`` was not tried apart), and a saved world had another future when loaded in another
process. With these three flags the 18 scenes' state hashes are the same in both
(``tests/test_compile_history.py``; without flags, the three scenes tried). Cost (CPU time of
60 ticks, fastest of 7 replays from one snapshot, processes alternated with ones compiled with
the five flags, on the 2-core machine at a load of 5 to 10): the 100-doll pile at 2.5 s +1.2 %
(median of 12 rounds' ratios, quartiles 0.0 and +2.1 %; 10 rounds on the code before the kernel
records: +3.1 %), the playground at 5 s no measurable change (-1.9 %, quartiles -5.0 and
+2.1 %); without any flags the pile +3.4 % (quartiles +2.1 and +5.4 %; before: +6.7 %)."""

OPTIONS = {"cache": True, "error_model": "numpy", "fastmath": set(FAST_MATH)}
"""Options of every kernel: cached on disk (in a :class:`~twig.physics.kernel_cache.KernelCache`),
NumPy's error model, :data:`FAST_MATH`."""


def _compiler(**options) -> Callable[[Callable], CPUDispatcher]:
    """A decorator compiling with :data:`OPTIONS` and ``options``, cached in a
    :class:`~twig.physics.kernel_cache.KernelCache` instead of Numba's own."""
    jit = njit(**{**OPTIONS, "cache": False}, **options)

    def compile_cached(function: Callable) -> CPUDispatcher:
        dispatcher = jit(function)
        dispatcher._cache = KernelCache(function)  # what Numba's enable_caching() sets
        return dispatcher

    return compile_cached


kernel = _compiler()
"""``@kernel`` on a function: an ordinary compiled kernel."""

inline_kernel = _compiler(inline="always")
"""``@inline_kernel``: a :data:`kernel` whose body Numba copies into every caller."""

hot_kernel = _compiler(_nrt=False)
"""``@hot_kernel``: a :data:`kernel` without reference counting."""

hot_inline = _compiler(_nrt=False, inline="always")
"""``@hot_inline``: a :data:`hot_kernel` whose body Numba copies into every caller."""
