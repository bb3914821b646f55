"""A cheaper copy in Numba's IR inlining of twig's kernels (a first run's compile).

Numba inlines a kernel marked ``inline="always"`` (:data:`~twig.physics.hot.hot_inline`,
:data:`~twig.physics.hot.inline_kernel`) by copying its IR twice and splicing one copy into
the caller (``numba.core.inline_closurecall.InlineWorker.inline_ir``). The copies deep-copy
each block on its own, and every block refers to the function's one scope, which lists every
variable: each block copies the whole scope again, so a large inlined body (the capsule
contact with its own inlined helpers) costs blocks x variables. Inside that function the
copies only read the scope (and rename into the caller's), so :func:`share_scope_when_inlining`
lets the copied blocks keep the scope they had: the same IR is spliced in, and the machine
code is the same, bit for bit. Numba's inlining pass took 9.7 s of CPU in a cold compile of
``stick-in-box``'s kernels and 2.7 s with this (docs/performance.md, "The first run").
"""

from __future__ import annotations

from numba.core import inline_closurecall, ir

_PACKAGE = __name__.split(".", 1)[0] + "."


def share_scope_when_inlining() -> None:
    """While Numba inlines one of twig's functions, copies of its IR blocks share the scope
    of the blocks they copy instead of deep-copying it; other packages' functions are inlined
    as Numba does. Calling it again changes nothing."""
    worker = inline_closurecall.InlineWorker
    if getattr(worker.inline_ir, "shares_scope", False) or "__deepcopy__" in vars(ir.Scope):
        return  # done already, or a Numba whose scopes copy themselves
    original = worker.inline_ir

    def inline_ir(self, caller_ir, block, i, callee_ir, *args, **kwargs):
        function = callee_ir.func_id.func
        if not getattr(function, "__module__", "").startswith(_PACKAGE):
            return original(self, caller_ir, block, i, callee_ir, *args, **kwargs)
        ir.Scope.__deepcopy__ = _same_scope  # Numba compiles under one global lock
        try:
            return original(self, caller_ir, block, i, callee_ir, *args, **kwargs)
        finally:
            del ir.Scope.__deepcopy__

    inline_ir.shares_scope = True
    worker.inline_ir = inline_ir


def _same_scope(scope: ir.Scope, memo: dict) -> ir.Scope:
    """``copy.deepcopy`` of a scope while inlining: the scope itself."""
    return scope
