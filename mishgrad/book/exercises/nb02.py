"""Checkers for notebook 02 (floats, ULPs and overflow).

Every expected answer is computed here from parameters the notebook does not print: the
float32 bit patterns a learner's ``to_bfloat16_bits`` rounds are drawn with a seed of this
module's own, beside named edge cases.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from mishgrad.math import dtypes, thresholds

from . import Verdict, correct, equal_or_hint, learner_function, wrong
from .learner import in_dtype, learner_float, learner_result, learner_whole_number

#: Seed of the float32 bit patterns ``check_to_bfloat16_bits`` rounds (not printed anywhere).
_SEED: Final = 90210
#: float32 bit patterns by what they test: the values whose rounding goes wrong first.
_NAMED_BITS: Final = {
    "signed zeros and infinities": (0x00000000, 0x80000000, 0x7F800000, 0xFF800000),
    "FLT_MAX of both signs, rounding up to infinity": (0x7F7FFFFF, 0xFF7FFFFF),
    "a tie above bfloat16's largest value (odd: up to inf), and just below it": (
        0x7F7F8000,
        0x7F7F7FFF,
    ),
    "subnormals: the smallest, the largest, two ties": (
        0x00000001,
        0x807FFFFF,
        0x00008000,
        0x00018000,
    ),
    "ties to even (down, up) and carries up a binade": (
        0x3F808000,
        0x3F818000,
        0x3F80FFFF,
        0x3FFFFFFF,
    ),
    "quiet and signaling NaNs": (0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF812345, 0x7FFFFFFF),
}


def _bfloat16_probe() -> np.ndarray:
    """float32 bit patterns: random ones, exact ties, near-ties, subnormals and the named ones."""
    rng = np.random.default_rng(_SEED)

    def draw(bits: int, count: int) -> np.ndarray:
        return rng.integers(0, 1 << bits, count, dtype=np.uint64).astype(np.uint32)

    kept = draw(16, 600) << np.uint32(16)  # random upper halves, then three lower halves each
    lower = np.array([0x8000, 0x7FFF, 0x8001], dtype=np.uint32)
    near_ties = (kept[:, None] | lower).ravel()
    subnormals = draw(23, 300) | (draw(1, 300) << np.uint32(31))
    named = np.array([b for group in _NAMED_BITS.values() for b in group], dtype=np.uint32)
    return np.concatenate([draw(32, 4000), near_ties, subnormals, named])


def _is_quiet_nan(bits: np.ndarray) -> np.ndarray:
    """bfloat16 patterns that are NaN with the quiet bit (the fraction's top bit) set."""
    return ((bits & 0x7F80) == 0x7F80) & ((bits & 0x0040) != 0)


@learner_function("pass your function itself: check_to_bfloat16_bits(to_bfloat16_bits)")
def check_to_bfloat16_bits(function: Callable[[np.ndarray], np.ndarray]) -> Verdict:
    """Write-code: float32 bit patterns to bfloat16 ones, rounded to nearest, ties to even.

    Compared bit for bit with ml_dtypes' conversion; for a NaN input any quiet NaN is right.
    """
    bits = _bfloat16_probe()
    result, verdict = learner_result(function, bits, np.dtype(np.uint16))
    if verdict is not None:
        return verdict
    with np.errstate(invalid="ignore"):  # ml_dtypes warns on casting NaN; it stays NaN
        expected = bits.view(np.float32).astype(dtypes.bfloat16).view(np.uint16)
    nan = np.isnan(bits.view(np.float32))
    if not np.all(_is_quiet_nan(result[nan])):
        return wrong("a NaN must stay NaN: all exponent bits set and the quiet bit 0x0040 set")
    if not np.array_equal(result[~nan], expected[~nan]):
        return wrong(
            "not bit for bit right for some inputs — hint: which bits are dropped, and when "
            "does the kept part go up? Look at inputs whose dropped part is exactly one half"
        )
    return correct(
        "rounding on the bits carries into the exponent by itself: a value moves up a binade, "
        "or to infinity, with no special case"
    )


#: The overflow exercise's multiplier: large enough that rounding K·x to float16 moves the
#: threshold (at K = 3 it never does: the answer is ln(Ω)/3 rounded up into the grid).
K: Final = 17
#: What the overflow exercise's hints add, whichever side of the threshold the answer is.
_EXP17X_HINT: Final = (
    "hint: start from ln(Ω)/17 with Ω the float16 overflow bound; then remember that 17·x is "
    "itself rounded to float16 before the exponential, and test float16 values near it"
)


def _exp17x_overflows(x: float) -> bool:
    """Whether ``np.exp(17 * x)`` is inf for the float16 ``x``, in float16 arithmetic."""
    with np.errstate(over="ignore"):
        return bool(np.isinf(np.exp(np.float16(K) * np.float16(x))))


def check_exp17x(answer: object) -> Verdict:
    """The smallest float16 x at which ``np.exp(17 * x)`` overflows in float16 arithmetic.

    The answer is a float16 value, compared exactly. ln(Ω)/17 itself (a float64 number between
    two float16 values) is wrong, and so is ln(Ω)/17 rounded up into the grid, the answer that
    forgets that 17·x is rounded: a hint says on which side of the threshold an answer is.
    """
    value, verdict = learner_float(answer)
    if verdict is not None:
        return verdict
    if not in_dtype(value, dtypes.float16):  # type: ignore[arg-type]
        return wrong(
            "your x is not a float16 value, and in float16 arithmetic x is one: from which "
            f"float16 value on does np.exp(17 * x) overflow? {_EXP17X_HINT}"
        )
    expected = thresholds.overflow_threshold(lambda x: np.exp(np.float16(K) * x), "float16")
    if value == expected:
        return correct()
    if not _exp17x_overflows(value):  # type: ignore[arg-type]
        return wrong(
            "np.exp(17 * x) is still finite at your x in float16 arithmetic: the threshold "
            f"lies higher — {_EXP17X_HINT}"
        )
    return wrong(
        "np.exp(17 * x) overflows already at the float16 value just below your x: the "
        f"threshold lies lower — {_EXP17X_HINT}"
    )


def check_bfloat16_count(answer: object) -> Verdict:
    """How many bfloat16 values x satisfy 1 <= x < 1000."""
    value, verdict = learner_whole_number(answer)
    if verdict is not None:
        return verdict
    ends = dtypes.ordered(np.array([1.0, 1000.0], dtype=dtypes.bfloat16))
    expected = int(ends[1] - ends[0])  # 1000 is a bfloat16 value: count the keys below it
    return equal_or_hint(
        value,
        expected,
        "not quite — hint: bfloat16 stores 7 fraction bits, so every binade [2^k, 2^(k+1)) holds "
        "the same number of values; count the whole binades, then the part of the last one",
    )
