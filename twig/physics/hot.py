"""The decorator of the innermost kernels: compiled without reference counting.

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

from numba import njit

hot_kernel = njit(cache=True, _nrt=False)
"""``@hot_kernel`` on a function: ``njit(cache=True)`` without reference counting."""

hot_inline = njit(cache=True, _nrt=False, inline="always")
"""``@hot_inline``: a :data:`hot_kernel` whose body Numba copies into every caller."""
