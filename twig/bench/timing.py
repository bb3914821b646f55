"""Timing hygiene shared by the benchmark tables that report mean times per tick."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Collect, then pause Python's cyclic garbage collector around a timed loop, as
    :mod:`timeit` does.

    A full collection walks every object the process tracks (~140 000 once Numba has loaded
    the kernels) and takes ~60 ms on the 2-core machine; one falls now and then, in a random
    tick, when a loop makes many objects (a 1000-doll pile's landing makes ~430 pain events a
    tick): +0.5 ms on the mean of the 120 ticks it lands in. Objects are still freed by
    reference counting while it is paused.
    """
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
