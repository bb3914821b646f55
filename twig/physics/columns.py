"""A table of named NumPy arrays that share their first dimension (structure of arrays).

Nodes, links, hinges, angle limits and planes are each one :class:`Columns`. Rows are appended in
blocks and deleted by mask; the backing arrays grow geometrically so appending a body or a
temporary link costs amortised O(rows added), and kernels receive contiguous views.

Each column declares its group (:data:`MODEL`, :data:`STATE` or :data:`CONTROL`; see
:mod:`twig.physics.groups`): the declaration decides who may write it (a model column's views
are read-only, for the kernels and everyone else; the world's set methods write it through
:meth:`Columns.edit`, which records the change), what a snapshot copies every time (state and
control) and what only when it changed (the model, :meth:`Columns.model_copy`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

MODEL = "model"
"""What the world is: masses, radii, damping, constraints, volumes. Changed only by the world's
add, remove and set methods; the tick reads it (its kernels get read-only views)."""
STATE = "state"
"""What changes tick to tick: positions, previous positions, flags, contact memory."""
CONTROL = "control"
"""Set-points the layers above write for the next tick (control accelerations, move targets)."""
GROUPS = (MODEL, STATE, CONTROL)


@dataclass(frozen=True)
class Column:
    """Declaration of one column: element dtype, per-row shape, default fill value and group
    (:data:`MODEL`, :data:`STATE` or :data:`CONTROL`)."""

    dtype: DTypeLike
    shape: tuple[int, ...] = ()
    default: float | int | bool = 0
    group: str = MODEL

    def __post_init__(self) -> None:
        if self.group not in GROUPS:
            raise ValueError(f"a column's group is one of {GROUPS}, got {self.group!r}")


def model(dtype: DTypeLike, shape: tuple[int, ...] = (), default: float | int | bool = 0,
          ) -> Column:
    """A :data:`MODEL` column."""
    return Column(dtype, shape, default, MODEL)


def state(dtype: DTypeLike, shape: tuple[int, ...] = (), default: float | int | bool = 0,
          ) -> Column:
    """A :data:`STATE` column."""
    return Column(dtype, shape, default, STATE)


def control(dtype: DTypeLike, shape: tuple[int, ...] = (), default: float | int | bool = 0,
            ) -> Column:
    """A :data:`CONTROL` column."""
    return Column(dtype, shape, default, CONTROL)


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
        self.model_stamp = object()
        """A token replaced whenever the model columns may have changed (rows appended or
        deleted, :meth:`edit`): equal tokens, equal model (see :meth:`model_copy`)."""
        self._model_copy: tuple[object, dict[str, np.ndarray]] | None = None

    def __getstate__(self) -> dict:
        """The table for pickling, without its cached views (an unpickled view would be a copy,
        not a view of the unpickled data)."""
        state = dict(vars(self))
        state["_views"] = {}
        return state

    @staticmethod
    def _alloc(col: Column, capacity: int) -> np.ndarray:
        return np.full((capacity, *col.shape), col.default, dtype=col.dtype)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, name: str) -> np.ndarray:
        """The live rows of column ``name``: read-only for a model column (see :meth:`edit`)."""
        # The live views are made once per change of the table (a step reads dozens).
        view = self._views.get(name)
        if view is None:
            view = self._data[name][: self._n]
            if self.spec[name].group == MODEL:
                view = _read_only(view)
            self._views[name] = view
        return view

    def edit(self, name: str) -> np.ndarray:
        """The live rows of model column ``name``, writable: for the world's methods that
        change the model, which write it right away (a new :attr:`model_stamp` is taken)."""
        self.model_stamp = object()
        return self._data[name][: self._n]

    def names(self, group: str) -> tuple[str, ...]:
        """The columns of ``group``, in declaration order."""
        return tuple(name for name, col in self.spec.items() if col.group == group)

    def append(self, count: int, values: Mapping[str, ArrayLike]) -> slice:
        """Append ``count`` rows; columns missing from ``values`` get their default.

        Values broadcast to ``(count, *shape)``. Returns the slice of the new rows.
        """
        unknown = set(values) - set(self.spec)
        if unknown:
            raise KeyError(f"unknown columns {sorted(unknown)}")
        # Broadcast everything first so a bad value leaves the table untouched.
        rows = {
            name: np.broadcast_to(np.asarray(v, dtype=self.spec[name].dtype),
                                  (count, *self.spec[name].shape))
            for name, v in values.items()
        }
        self._changed()
        new_n = self._n + count
        capacity = len(next(iter(self._data.values())))
        if new_n > capacity:
            capacity = max(new_n, 2 * capacity)
            for name, col in self.spec.items():
                grown = self._alloc(col, capacity)
                grown[: self._n] = self._data[name][: self._n]
                self._data[name] = grown
        new = slice(self._n, new_n)
        for name, col in self.spec.items():
            self._data[name][new] = rows.get(name, col.default)
        self._n = new_n
        return new

    def keep(self, mask: np.ndarray) -> None:
        """Delete the rows where ``mask`` ((len(self),) bool) is False, keeping order."""
        mask = np.asarray(mask, dtype=bool)
        n = int(mask.sum())
        self._changed()
        for name in self.spec:
            live = self._data[name][: self._n]
            self._data[name][:n] = live[mask]
        self._n = n

    def _changed(self) -> None:
        self.version += 1
        self._views.clear()
        self.model_stamp = object()

    def copy(self, names: Iterable[str] | None = None) -> dict[str, np.ndarray]:
        """Copies of the live rows of the columns ``names`` (default all; for snapshots)."""
        return {name: self[name].copy() for name in (self.spec if names is None else names)}

    def model_copy(self) -> tuple[object, dict[str, np.ndarray]]:
        """``(model_stamp, read-only copies of the model columns)``; the same copy while the
        stamp is unchanged, so snapshots of an unchanged model share it."""
        if self._model_copy is None or self._model_copy[0] is not self.model_stamp:
            copies = {name: _read_only(self[name].copy()) for name in self.names(MODEL)}
            self._model_copy = (self.model_stamp, copies)
        return self._model_copy

    def changing(self) -> dict[str, np.ndarray]:
        """Copies of the state and control columns (a snapshot's, with :meth:`model_copy`)."""
        return self.copy(self.names(STATE) + self.names(CONTROL))

    def put_back(self, model: tuple[object, dict[str, np.ndarray]],
                 changing: Mapping[str, np.ndarray]) -> None:
        """Return to the moment of a :meth:`model_copy` and :meth:`changing`: while the model
        is still that one, the state and control are written back in place (views of the
        table stay valid); else the whole table is rebuilt from both."""
        stamp, columns = model
        if self.model_stamp is stamp:
            for name, values in changing.items():
                self[name][...] = values
            return
        saved = {**columns, **changing}
        n = len(next(iter(saved.values())))
        self._n = 0
        self._changed()
        self._data = {name: self._alloc(col, max(4, n)) for name, col in self.spec.items()}
        self.append(n, saved)
        self.model_stamp = stamp


def _read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (the same memory)."""
    view = array.view()
    view.flags.writeable = False
    return view
