"""A table of named NumPy arrays that share their first dimension (structure of arrays).

Nodes, links, hinges, angle limits and planes are each one :class:`Columns`. Rows are appended in
blocks and deleted by mask; the backing arrays grow geometrically so appending a body or a
temporary link costs amortised O(rows added), and kernels receive contiguous views.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, DTypeLike


@dataclass(frozen=True)
class Column:
    """Declaration of one column: element dtype, per-row shape and the default fill value."""

    dtype: DTypeLike
    shape: tuple[int, ...] = ()
    default: float | int | bool = 0


class Columns:
    """Named arrays with a common number of rows.

    Parameters
    ----------
    spec
        Column name -> :class:`Column`. ``table[name]`` returns a view of the live rows,
        shape ``(len(table), *column.shape)``.
    """

    def __init__(self, spec: Mapping[str, Column]) -> None:
        self.spec = dict(spec)
        self._n = 0
        self._data = {name: self._alloc(col, 4) for name, col in self.spec.items()}
        self._views: dict[str, np.ndarray] = {}
        self.version = 0
        """Counts the changes that may replace the backing arrays (append, keep, restore), so
        that callers caching views know when to take them again."""

    @staticmethod
    def _alloc(col: Column, capacity: int) -> np.ndarray:
        return np.full((capacity, *col.shape), col.default, dtype=col.dtype)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, name: str) -> np.ndarray:
        # The live views are made once per change of the table (a step reads dozens).
        view = self._views.get(name)
        if view is None:
            view = self._views[name] = self._data[name][: self._n]
        return view

    def append(self, count: int, values: Mapping[str, ArrayLike]) -> slice:
        """Append ``count`` rows; columns missing from ``values`` get their default.

        Values broadcast to ``(count, *shape)``. Returns the slice of the new rows.
        """
        unknown = set(values) - set(self.spec)
        if unknown:
            raise KeyError(f"unknown columns {sorted(unknown)}")
        self.version += 1
        # Broadcast everything first so a bad value leaves the table untouched.
        rows = {
            name: np.broadcast_to(np.asarray(v, dtype=self.spec[name].dtype),
                                  (count, *self.spec[name].shape))
            for name, v in values.items()
        }
        new_n = self._n + count
        capacity = len(next(iter(self._data.values())))
        if new_n > capacity:
            capacity = max(new_n, 2 * capacity)
            for name, col in self.spec.items():
                grown = self._alloc(col, capacity)
                grown[: self._n] = self._data[name][: self._n]
                self._data[name] = grown
        self._views.clear()
        new = slice(self._n, new_n)
        for name, col in self.spec.items():
            self._data[name][new] = rows.get(name, col.default)
        self._n = new_n
        return new

    def keep(self, mask: np.ndarray) -> None:
        """Delete the rows where ``mask`` ((len(self),) bool) is False, keeping order."""
        mask = np.asarray(mask, dtype=bool)
        n = int(mask.sum())
        self.version += 1
        self._views.clear()
        for name in self.spec:
            live = self._data[name][: self._n]
            self._data[name][:n] = live[mask]
        self._n = n

    def copy(self) -> dict[str, np.ndarray]:
        """Copies of the live rows of every column (for snapshots)."""
        return {name: self[name].copy() for name in self.spec}

    def restore(self, saved: Mapping[str, np.ndarray]) -> None:
        """Replace the whole table by rows saved with :meth:`copy`."""
        n = len(next(iter(saved.values())))
        self._n = 0
        self.version += 1
        self._views.clear()
        self._data = {name: self._alloc(col, max(4, n)) for name, col in self.spec.items()}
        self.append(n, saved)
