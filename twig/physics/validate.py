"""Checks that turn user input into arrays or raise :class:`~twig.errors.PhysicsError`.

Each check runs before any state changes, so a rejected request leaves the world as it was.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from twig.errors import PhysicsError


def as_points(value: ArrayLike, what: str) -> np.ndarray:
    """Finite float64 array whose last axis has length 3 (a point, vector or (n, 3) block)."""
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise PhysicsError(f"{what}: expected numbers (x, y, z), got {value!r}") from None
    if arr.ndim == 0 or arr.shape[-1] != 3 or arr.ndim > 2:
        raise PhysicsError(f"{what}: expected shape (3,) or (n, 3), got {arr.shape}")
    if not np.isfinite(arr).all():
        raise PhysicsError(f"{what}: values must be finite (no NaN or inf), got {value!r}")
    return arr


def as_indices(value: ArrayLike, what: str) -> np.ndarray:
    """Integer index array (int32) from ints or an integer array."""
    arr = np.asarray(value)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        if arr.size == 0:
            return arr.astype(np.int32)
        raise PhysicsError(f"{what}: expected node indices (integers), got {value!r}")
    return arr.astype(np.int32)


def as_positive(value: float, what: str) -> float:
    """A finite number > 0."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise PhysicsError(f"{what}: expected a positive number, got {value!r}") from None
    if not (math.isfinite(x) and x > 0):
        raise PhysicsError(f"{what}: expected a positive finite number, got {value!r}")
    return x


def as_nonnegative(value: float, what: str) -> float:
    """A finite number >= 0."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise PhysicsError(f"{what}: expected a number >= 0, got {value!r}") from None
    if not (math.isfinite(x) and x >= 0):
        raise PhysicsError(f"{what}: expected a finite number >= 0, got {value!r}")
    return x


def as_scalar_or_array(value: ArrayLike, n: int, what: str) -> np.ndarray:
    """Float64 array of shape (n,) from a scalar or an (n,) sequence (inf allowed, NaN kept)."""
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise PhysicsError(f"{what}: expected a number or {n} numbers, got {value!r}") from None
    if arr.ndim == 0:
        return np.full(n, float(arr))
    if arr.shape != (n,):
        raise PhysicsError(f"{what}: expected a number or {n} numbers, got shape {arr.shape}")
    return arr
