"""The kernels' stable sort gives NumPy's stable order for integer keys (it replaced
``np.argsort(kind="mergesort")`` and ``np.sort`` inside the kernels)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from twig.physics.sorting import stable_argsort


@given(st.lists(st.integers(0, 12), max_size=70))
def test_equal_keys_keep_their_order(values):
    keys = np.array(values, dtype=np.int64)
    assert np.array_equal(stable_argsort(keys), np.argsort(keys, kind="stable"))


@given(st.lists(st.integers(-2**62, 2**62), max_size=300))
def test_wide_keys(values):
    keys = np.array(values, dtype=np.int64)
    assert np.array_equal(stable_argsort(keys), np.argsort(keys, kind="stable"))
