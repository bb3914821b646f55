"""A stable sort for the kernels' integer keys.

Numba compiles ``np.argsort(keys, kind="mergesort")`` and ``np.sort`` from its own library of
sorting kernels, separately for every dtype and with string handling for ``kind``: about 6 s
of a first run's compile went to them. The kernels sort only integer keys (link colours, grid
cells, body-pair keys), and a stable order of integer keys is unique, so this merge sort gives
exactly what NumPy's stable sorts give.
"""

from __future__ import annotations

import numpy as np

from twig.physics.hot import kernel


@kernel
def stable_argsort(keys):
    """``np.argsort(keys, kind="stable")`` for a 1-d integer array: the indices of ``keys`` in
    ascending key order, equal keys in index order ((N,) int64). A bottom-up merge sort: runs
    of doubling width merged between two index buffers."""
    n = keys.shape[0]
    order = np.arange(n)
    spare = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            for k in range(lo, hi):
                if j == hi or (i < mid and keys[order[i]] <= keys[order[j]]):
                    spare[k] = order[i]
                    i += 1
                else:
                    spare[k] = order[j]
                    j += 1
        order, spare = spare, order
        width *= 2
    return order
