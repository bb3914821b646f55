"""memmove inside kernels: runs of elements copied as NumPy would copy them, overlap or not."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from numba import njit

from twig.physics.memmove import memmove


@njit
def _move(dst_array, dst, src_array, src, count):
    memmove(dst_array, dst, src_array, src, count)


@given(st.integers(1, 40), st.data())
def test_a_run_lands_as_a_copy_of_the_source_would(size, data):
    a = np.arange(3 * size, dtype=np.float64).reshape(size, 3)
    count = data.draw(st.integers(0, a.size))
    dst = data.draw(st.integers(0, a.size - count))
    src = data.draw(st.integers(0, a.size - count))
    expected = a.copy().ravel()
    expected[dst:dst + count] = a.ravel()[src:src + count].copy()
    _move(a, dst, a, src, count)  # the same array: the ranges may overlap
    assert np.array_equal(a.ravel(), expected)


def test_between_arrays_of_int32_pairs():
    listed = np.arange(20, dtype=np.int32).reshape(10, 2)
    pairs = np.full((10, 2), -1, dtype=np.int32)
    _move(pairs, 2, listed, 4, 6)  # rows 2..4 of listed to rows 1..3 of pairs
    assert pairs[1:4].tolist() == listed[2:5].tolist()
    assert (pairs[0] == -1).all() and (pairs[4:] == -1).all()
