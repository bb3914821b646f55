"""Numba's inlining of twig's kernels with the cheaper copy (twig.physics.inlining): a kernel
that inlines one of twig's helpers compiles and computes what the helper computes, and the
scope copy is changed only while inlining."""

import numpy as np
from numba import njit
from numba.core import inline_closurecall, ir

from twig.physics.collision.capsules import segment_params
from twig.physics.inlining import share_scope_when_inlining


@njit(cache=False)
def _closest(pos):
    return segment_params(pos, 0, 1, 2, 3)


def test_a_kernel_inlining_a_twig_helper_computes_what_the_helper_does():
    share_scope_when_inlining()  # as a twig kernel's cache does before it compiles
    assert getattr(inline_closurecall.InlineWorker.inline_ir, "shares_scope", False)
    pos = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.3, -1.0, 0.5], [0.3, 1.0, 0.5]])
    s, t = _closest(pos)
    assert np.allclose((s, t), segment_params.py_func(pos, 0, 1, 2, 3), rtol=0, atol=1e-12)
    assert abs(s - 0.3) < 1e-12 and abs(t - 0.5) < 1e-12
    assert "__deepcopy__" not in vars(ir.Scope)
