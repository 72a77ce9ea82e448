"""Checkers for notebook 09: broadcasting and views (against NumPy), the twin's overlap rule."""

import re
from collections.abc import Callable
from typing import Final

import numpy as np

from mishgrad import aclnn
from mishgrad.math.dtypes import DTYPES

from . import (
    UNANSWERED,
    Verdict,
    call_learner,
    checker,
    correct,
    equal_or_hint,
    expect,
    is_boolean,
    is_whole_number,
    learner_function,
    wrong,
    wrong_kind,
)

Shape = tuple[int, ...]

#: Pairs of shapes the broadcast checker tries (some do not broadcast).
BROADCAST_CASES: Final[list[tuple[Shape, Shape]]] = [
    ((7, 1, 5), (3, 1)),
    ((2, 3), (2, 3)),
    ((), (4, 2)),
    ((6,), (6, 1)),
    ((1, 9, 1), (8, 1, 1, 4)),
    ((0, 1), (1, 5)),
    ((4, 3), (3, 4)),
    ((2, 5, 1), (5, 2)),
    ((1,), ()),
]

#: (shape, axes) for the transposed-strides checker.
TRANSPOSE_CASES: Final[list[tuple[Shape, Shape]]] = [
    ((3, 7), (1, 0)),
    ((2, 5, 4), (2, 0, 1)),
    ((2, 5, 4), (1, 2, 0)),
    ((6, 1, 3, 2), (3, 1, 0, 2)),
    ((9,), (0,)),
]


def _numpy_broadcast(a: Shape, b: Shape) -> Shape | None:
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


@learner_function("answer with a function broadcast_shape(a, b)")
def check_broadcast_shape(learner: Callable[[Shape, Shape], Shape | None] | None) -> Verdict:
    """The learner's ``broadcast_shape(a, b)``: the broadcast shape as a tuple, or None."""
    for a, b in BROADCAST_CASES:
        got = call_learner(learner, a, b)
        if got is not None and not isinstance(got, tuple | list):
            return wrong_kind(f"broadcast_shape{(a, b)} returned {got!r}: return a tuple or None")
        if (None if got is None else tuple(got)) != _numpy_broadcast(a, b):
            return wrong(
                f"broadcast_shape({a}, {b}) returned {got!r}; hint: align the shapes at their "
                "last dimension, pad the shorter with 1s on the left, and compare pair by pair"
            )
    return correct(f"all {len(BROADCAST_CASES)} pairs agree with NumPy's rule")


@learner_function("answer with a function transposed_strides(shape, axes)")
def check_transposed_strides(learner: Callable[[Shape, Shape], Shape] | None) -> Verdict:
    """The learner's ``transposed_strides(shape, axes)``, in elements, against NumPy."""
    for shape, axes in TRANSPOSE_CASES:
        view = np.zeros(shape, np.float32).transpose(axes)
        expected = tuple(s // view.itemsize for s in view.strides)
        got = call_learner(learner, shape, axes)
        if got is None:  # the scaffold, not yet written
            return UNANSWERED
        if not isinstance(got, tuple | list):
            return wrong_kind(
                f"transposed_strides{(shape, axes)} returned {got!r}: return a tuple of strides"
            )
        if tuple(got) != expected:
            return wrong(
                f"transposed_strides({shape}, {axes}) returned {got!r}; hint: first the "
                "contiguous strides of shape, in elements; a transpose moves strides, it does "
                "not compute new ones"
            )
    return correct(f"all {len(TRANSPOSE_CASES)} views agree with NumPy")


def _overlap_refusal(shape: Shape, strides: Shape) -> tuple[bool, int | None]:
    """Whether the twin's phase 1 refuses gradInput = this view, and the rule it names."""
    span = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
    f32 = DTYPES["float32"]
    with aclnn.Session("twin") as session:
        memory = session.malloc(span * f32.itemsize)
        out = aclnn.DeviceTensor.describe(session, memory, shape, strides, 0, span, f32)
        one = aclnn.DeviceTensor.describe(session, memory, shape, [0] * len(shape), 0, 1, f32)
        phase1 = aclnn.get_workspace_size(session, one, one, out, check=False)
        message = (session.lib.aclGetRecentErrMsg() or b"").decode()
        phase1.close()
        session.release(one, out)
        session.free(memory)
    rule = re.search(r"rule (\d)", message)
    return phase1.status != 0, int(rule.group(1)) if rule else None


@checker
def check_overlap_rule(answer: object) -> Verdict:
    """(refused, rule) for gradInput of shape [5, 3] with strides [2, 1] (twin-only)."""
    expect(
        answer,
        (is_boolean, lambda rule: rule is None or is_whole_number(rule)),
        usage="answer with a pair (refused, rule): True or False, and a rule number",
    )
    refused, rule = _overlap_refusal((5, 3), (2, 1))
    return equal_or_hint(
        tuple(answer),  # type: ignore[arg-type]
        (refused, rule),
        "list the offsets 2·i + j of the view, and try the rules in order: a zero stride? "
        "strides sorted, does each exceed the reach of the smaller ones? Otherwise?",
    )
