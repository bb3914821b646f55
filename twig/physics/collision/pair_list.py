"""The candidate pair list's bookkeeping between ticks: keys kept sorted and merged, runs of the
last list copied, and the narrow phase's memory of each pair carried to its row in a rebuilt
list (see :mod:`~twig.physics.collision.broad`)."""

from __future__ import annotations

import numpy as np

from twig.physics.collision.pair_table import CANDIDATE_SEEN, DISTANCE, VOL_SLOTS
from twig.physics.hot import hot_kernel, kernel
from twig.physics.memmove import memmove
from twig.physics.sorting import stable_argsort

UNKNOWN = -2
"""``source`` entry of :func:`carry_memory`: the pair's old row is to be found by its key."""


@kernel
def carry_memory(pair_key, fresh, n_old, n_new, pair_seen, source):
    """Move each memory row (``pair_seen``, in list order) of a pair listed before to its row
    in the rebuilt list, keyed ``fresh`` (``n_new`` keys, ascending; the old ``n_old`` keys in
    ``pair_key``, also ascending, are replaced), and clear the rows of pairs new to the list
    (a DISTANCE of 0 decides nothing).

    ``source[j]`` ((>= n_new,) int64) is new pair ``j``'s old row where the caller knows it (a
    block copied from the last list), -1 for a pair known to be new, or UNKNOWN: those are
    found by merging their keys with the old ones from the last known row on; only the
    re-paired blocks are merged. On return it holds every pair's old row or -1.

    A pile rebuilds its list nearly every tick, and a pair inserted early shifts every later
    one; carried this way, what the first sweep measured a tick ago still spares it most exact
    tests (100 dolls: ~4200 of ~6600 candidates a tick decided by memory, ~400 with the rows
    left in place). The memory stays in list order, which the first sweep streams through. Matched
    pairs keep their order, so moving the rows that go down in ascending order and those that
    go up in descending order never overwrites a row still to be moved.
    """
    # One pass finds each row's source and gathers the runs of rows that keep their offset
    # (start, source, length; each moves as one memmove) and the rows new to the list.
    runs = np.empty((n_new, 3), dtype=np.int64)
    n_runs = 0
    cleared = np.empty(n_new, dtype=np.int64)
    n_cleared = 0
    i = 0
    for j in range(n_new):
        if source[j] >= 0:
            i = source[j] + 1
        elif source[j] == UNKNOWN:
            k = fresh[j]
            while i < n_old and pair_key[i] < k:
                i += 1
            if i < n_old and pair_key[i] == k:
                source[j] = i
                i += 1
            else:
                source[j] = -1
        s = source[j]
        if s < 0:
            cleared[n_cleared] = j
            n_cleared += 1
        elif s != j:
            last = n_runs - 1
            if (n_runs > 0 and runs[last, 0] + runs[last, 2] == j
                    and runs[last, 1] + runs[last, 2] == s):
                runs[last, 2] += 1
            else:
                runs[n_runs, 0] = j
                runs[n_runs, 1] = s
                runs[n_runs, 2] = 1
                n_runs += 1
    width = pair_seen.shape[1]
    for r in range(n_runs):
        if runs[r, 1] > runs[r, 0]:
            memmove(pair_seen, runs[r, 0] * width, pair_seen, runs[r, 1] * width,
                    runs[r, 2] * width)
    for r in range(n_runs - 1, -1, -1):
        if runs[r, 1] < runs[r, 0]:
            memmove(pair_seen, runs[r, 0] * width, pair_seen, runs[r, 1] * width,
                    runs[r, 2] * width)
    for x in range(n_cleared):
        pair_seen[cleared[x], CANDIDATE_SEEN + DISTANCE] = 0.0
    memmove(pair_key, 0, fresh, 0, n_new)


@kernel
def push_key(keys, n, key):
    """Append ``key`` at ``keys[n]``, doubling the array when full; returns the array."""
    if n == keys.shape[0]:
        grown = np.empty(2 * n, dtype=np.int64)
        memmove(grown, 0, keys, 0, n)  # a slice copy would compile NumPy's error messages
        keys = grown
    keys[n] = key
    return keys


@kernel
def merged_keys(close, n_kept, n_close):
    """``np.sort(close[:n_close])`` for keys whose first ``n_kept`` are ascending and unique
    (the last list's body pairs that were kept) and the rest unique and not among them (the
    pairs found with a body that moved): the few new keys are sorted and merged in. Sorting
    all of them took ~0.8 % of the samples of a settling 100-doll pile."""
    tail = close[n_kept:n_close]
    order = stable_argsort(tail)
    n_tail = n_close - n_kept
    keys = np.empty(n_close, dtype=np.int64)
    i = 0
    j = 0
    for k in range(n_close):
        if j == n_tail or (i < n_kept and close[i] < tail[order[j]]):
            keys[k] = close[i]
            i += 1
        else:
            keys[k] = tail[order[j]]
            j += 1
    return keys


@hot_kernel
def copy_run(pair_vol, pair_key, start, end, listed, fresh, source, n):
    """Append the last list's pairs ``start:end`` (and their keys) to the list being built at
    ``n``, each with its old row as its ``source`` (see :func:`carry_memory`); returns the new
    count (only the count grows once the buffers are full)."""
    count = min(end - start, listed.shape[0] - n) if n < listed.shape[0] else 0
    memmove(listed, VOL_SLOTS * n, pair_vol, VOL_SLOTS * start, VOL_SLOTS * count)
    memmove(fresh, n, pair_key, start, count)
    for k in range(count):
        source[n + k] = start + k
    return n + end - start
