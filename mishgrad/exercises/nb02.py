"""Checkers for notebook 02 (floats, ULPs and overflow).

Every expected answer is computed here from parameters the notebook does not print: the
arrays a learner's ``next_up`` is called on are drawn with a seed of this module's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from .. import dtypes, thresholds
from . import Verdict, correct, equal_or_hint, wrong
from .learner import learner_number, learner_result, number_verdict

#: Seed of the arrays ``check_next_up`` feeds the learner's function (not printed anywhere).
_SEED: Final = 90210


def _next_up_probe(dtype: np.dtype) -> np.ndarray:
    """Random finite values of ``dtype`` of both signs, and the edge cases by name."""
    width = 8 * dtype.itemsize
    raw = np.random.default_rng(_SEED).integers(0, 1 << width, 4000, dtype=np.uint64)
    values = raw.astype(f"uint{width}").view(dtype)
    values = values[np.isfinite(values)]
    info = np.finfo(dtype)
    edges = [0.0, -0.0, info.smallest_subnormal, -info.smallest_subnormal, info.tiny, -info.tiny]
    edges += [1.0, -1.0, info.max, -info.max]
    return np.concatenate([values, np.array(edges, dtype=dtype)])


def check_next_up(function: Callable[[np.ndarray], np.ndarray] | None) -> Verdict:
    """Write-code: ``next_up(x)`` returns the next larger float of x's dtype, elementwise."""
    for dtype in (dtypes.float16, dtypes.float32):
        x = _next_up_probe(dtype)
        result, verdict = learner_result(function, x, "check_next_up(next_up)")
        if verdict is not None:
            return verdict
        with np.errstate(over="ignore"):  # the largest finite value steps to inf
            expected = np.nextafter(x, np.array(np.inf, dtype=dtype))
        # +0 and -0 are the same value: compare on the ordered keys.
        if not np.array_equal(dtypes.ordered(result), dtypes.ordered(expected)):
            return wrong(
                f"not right for some {dtype.name} inputs — hint: the bits of a positive float "
                "grow with its value, those of a negative float shrink as it grows; and which "
                "float comes right after -0?"
            )
    return correct("next_up is right for float16 and float32")


def check_exp3x(answer: object) -> Verdict:
    """The smallest float16 x at which ``np.exp(3 * x)`` overflows in float16 arithmetic."""
    expected = thresholds.overflow_threshold(lambda x: np.exp(3 * x), "float16")
    return number_verdict(
        answer,
        dtypes.float16,
        expected,
        "not quite — hint: ln(Ω)/3 with Ω the float16 overflow bound; but 3·x is rounded to "
        "float16 before the exponential, and the answer is a float16 value",
    )


def check_bfloat16_count(answer: object) -> Verdict:
    """How many bfloat16 values x satisfy 1 <= x < 1000."""
    ends = dtypes.ordered(np.array([1.0, 1000.0], dtype=dtypes.bfloat16))
    expected = int(ends[1] - ends[0])  # 1000 is a bfloat16 value: count the keys below it
    value, verdict = learner_number(answer, np.dtype(np.float64))
    if verdict is not None:
        return verdict
    if not value.is_integer():
        return wrong("answer with a whole number")
    return equal_or_hint(
        value,
        expected,
        "not quite — hint: bfloat16 stores 7 fraction bits, so every binade [2^k, 2^(k+1)) holds "
        "the same number of values; count the whole binades, then the part of the last one",
    )
