"""Right and wrong answers for notebook 09's checkers."""

from __future__ import annotations

from mishgrad.book.exercises import nb09

from . import Case


def broadcast_shape(a, b):
    # Pad on the left with 1s; each pair must be equal or contain a 1.
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b)
    if any(x != y and 1 not in (x, y) for x, y in zip(a, b, strict=True)):
        return None
    return tuple(y if x == 1 else x for x, y in zip(a, b, strict=True))


def broadcast_shape_padded_right(a, b):
    # A plausible mistake: the shorter shape is aligned at its first dimension.
    rank = max(len(a), len(b))
    a, b = tuple(a) + (1,) * (rank - len(a)), tuple(b) + (1,) * (rank - len(b))
    if any(x != y and 1 not in (x, y) for x, y in zip(a, b, strict=True)):
        return None
    return tuple(y if x == 1 else x for x, y in zip(a, b, strict=True))


def contiguous(shape):
    strides = [1] * len(shape)
    for d in range(len(shape) - 1, 0, -1):
        strides[d - 1] = strides[d] * shape[d]
    return strides


def transposed_strides(shape, axes):
    strides = contiguous(shape)
    return tuple(strides[axis] for axis in axes)


def transposed_strides_recomputed(shape, axes):
    # A plausible mistake: contiguous strides of the permuted shape.
    return tuple(contiguous([shape[axis] for axis in axes]))


CASES = [
    Case(nb09.check_broadcast_shape, right=broadcast_shape, plausible=broadcast_shape_padded_right),
    Case(
        nb09.check_transposed_strides,
        right=transposed_strides,
        plausible=transposed_strides_recomputed,
    ),
    # The typical mistake: rule 2 named, because its test fails (2 does not exceed the reach 2
    # of the smaller stride); the wrong one: not refused at all.
    Case(nb09.check_overlap_rule, right=(True, 3), plausible=(True, 2), wrong=(False, None)),
]
