"""Moving runs of array elements at memory speed inside kernels.

The broad phase's rebuild shifts the memory rows of the pair list (~87 000 rows of 104 bytes
in a settling 1000-doll pile, nearly all of them every tick, since a pair inserted early shifts
every later one) and copies the new list over the old. Row by row (``a[j] = a[k]``) that took
0.50 ms for 87 000 rows; :func:`memmove`, LLVM's ``llvm.memmove`` intrinsic (C's ``memmove``),
moves each run of rows that keep their offset in one call, 0.41 ms. The ranges may overlap.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def memmove(typingctx, dst_array, dst, src_array, src, count):
    """``memmove(dst_array, dst, src_array, src, count)``: copy ``count`` elements of the
    C-contiguous ``src_array`` from flat element index ``src`` on to ``dst_array`` at flat
    index ``dst`` (the same dtype; the same array with overlapping ranges is allowed). No bounds
    are checked: the caller keeps both ranges inside their arrays."""
    arrays = (dst_array, src_array)
    if not all(isinstance(a, types.Array) and a.layout == "C" for a in arrays):
        return None
    if dst_array.dtype != src_array.dtype:
        return None
    sig = types.void(dst_array, types.int64, src_array, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        to = context.make_array(signature.args[0])(context, builder, args[0]).data
        frm = context.make_array(signature.args[2])(context, builder, args[2]).data
        itemsize = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        cgutils.raw_memmove(builder, builder.gep(to, [args[1]]), builder.gep(frm, [args[3]]),
                            args[4], itemsize)
        return context.get_dummy_value()

    return sig, codegen
