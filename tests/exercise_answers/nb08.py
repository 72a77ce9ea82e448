"""Right and wrong answers for notebook 08's checkers."""

from __future__ import annotations

import numpy as np

from mishgrad.book.exercises import nb08

from . import Case, replace_in

SUPPORTED = {"float32", "float16", "bfloat16"}


def phase1_status(grad, self, out):
    # The contract in Python: null pointers, dtypes, cast, dimensions, broadcasting, shape.
    if grad is None or self is None or out is None:
        return 161001
    (grad_shape, grad_dtype), (self_shape, self_dtype), (out_shape, out_dtype) = grad, self, out
    if grad_dtype not in SUPPORTED or self_dtype not in SUPPORTED or out_dtype not in SUPPORTED:
        return 161002
    if max(len(grad_shape), len(self_shape), len(out_shape)) > 8:
        return 161002
    try:
        shape = np.broadcast_shapes(grad_shape, self_shape)
    except ValueError:
        return 161002
    return 0 if tuple(out_shape) == shape else 161002


def phase1_status_without_output_shape(grad, self, out):
    # A plausible mistake: gradInput's shape is never compared with the broadcast shape.
    if grad is None or self is None or out is None:
        return 161001
    if any(spec[1] not in SUPPORTED for spec in (grad, self, out)):
        return 161002
    if max(len(spec[0]) for spec in (grad, self, out)) > 8:
        return 161002
    try:
        np.broadcast_shapes(grad[0], self[0])
    except ValueError:
        return 161002
    return 0


ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2}
ALIGN = 32  # the twin's kWorkspaceAlign
STAMP = 64  # the kernel's own workspace, always planned: its stamp


def max_elements(budget, grad_dtype, self_dtype, out_dtype):
    # The plan: the kernel's own STAMP bytes, one buffer per input cast to the computation
    # dtype, one for the result when gradInput's dtype differs; each rounded up to ALIGN bytes.
    compute = grad_dtype if grad_dtype == self_dtype else "float32"
    buffers = sum(dtype != compute for dtype in (grad_dtype, self_dtype, out_dtype))
    per_buffer = max(0, budget - STAMP) // buffers // ALIGN * ALIGN
    return per_buffer // ITEMSIZE[compute]


def max_elements_without_rounding(budget, grad_dtype, self_dtype, out_dtype):
    # A plausible mistake: the buffers are not rounded up to the alignment.
    compute = grad_dtype if grad_dtype == self_dtype else "float32"
    buffers = sum(dtype != compute for dtype in (grad_dtype, self_dtype, out_dtype))
    return max(0, budget - STAMP) // buffers // ITEMSIZE[compute]


CASES = [
    Case(
        nb08.check_phase1_status, right=phase1_status, plausible=phase1_status_without_output_shape
    ),
    Case(nb08.check_max_elements, right=max_elements, plausible=max_elements_without_rounding),
    # The typical mistake forgets the kernel's own 64 bytes; the wrong one, that a slice of a
    # pool is what CANN recommends.
    Case(nb08.check_pool_offset, right=(768, False), plausible=(832, False), wrong=(768, True)),
    Case(
        nb08.check_max_dims_edit,
        right=(0, 161002),
        # The typical mistake: 161001 (a null pointer) for too many dimensions; the wrong one,
        # the unedited contract's statuses.
        plausible=(0, 161001),
        wrong=(161002, 161002),
        edit=lambda s: replace_in(
            s, "common/mish_grad_contract.h", "kMaxDims = 8;", "kMaxDims = 9;"
        ),
    ),
]
