"""Checkers for notebook 02 (floats, ULPs and overflow)."""

from collections.abc import Callable
from typing import Final

import numpy as np

from mishgrad.math import dtypes, thresholds

from . import Verdict, checker, correct, equal_or_hint, learner_function, wrong
from .learner import in_dtype, learner_float, learner_result, learner_whole_number

#: Seed of the float32 bit patterns ``check_to_bfloat16_bits`` rounds (not printed anywhere).
_SEED: Final = 90210
#: float32 bit patterns of the values whose rounding goes wrong first.
_NAMED_BITS: Final = (
    *(0x00000000, 0x80000000, 0x7F800000, 0xFF800000),  # signed zeros and infinities
    *(0x7F7FFFFF, 0xFF7FFFFF),  # FLT_MAX of both signs, rounding up to infinity
    *(0x7F7F8000, 0x7F7F7FFF),  # a tie above bfloat16's largest value (odd: up to inf), below it
    *(0x00000001, 0x807FFFFF, 0x00008000, 0x00018000),  # subnormals: smallest, largest, two ties
    *(0x3F808000, 0x3F818000, 0x3F80FFFF, 0x3FFFFFFF),  # ties to even (down, up), binade carries
    *(0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF812345, 0x7FFFFFFF),  # quiet and signaling NaNs
)


def _bfloat16_probe() -> np.ndarray:
    """float32 bit patterns: random ones, exact ties, near-ties, subnormals and the named ones."""
    rng = np.random.default_rng(_SEED)

    def draw(bits: int, count: int) -> np.ndarray:
        return rng.integers(0, 1 << bits, count, dtype=np.uint64).astype(np.uint32)

    kept = draw(16, 600) << np.uint32(16)  # random upper halves, then three lower halves each
    lower = np.array([0x8000, 0x7FFF, 0x8001], dtype=np.uint32)
    near_ties = (kept[:, None] | lower).ravel()
    subnormals = draw(23, 300) | (draw(1, 300) << np.uint32(31))
    named = np.array(_NAMED_BITS, dtype=np.uint32)
    return np.concatenate([draw(32, 4000), near_ties, subnormals, named])


#: The hint for a function that drops the lower half and never rounds up (toward zero).
_CUT_HINT: Final = (
    "your bits are cut, never rounded: dropping the lower half rounds toward zero. To nearest, "
    "the kept part goes up when the dropped half is more than half of its last place"
)
#: The hint for any other function whose bits differ from the expected ones.
_ROUNDING_HINT: Final = (
    "not bit for bit right for some inputs — hint: which bits are dropped, and when does the "
    "kept part go up? Look at inputs whose dropped part is exactly one half"
)


def _rounding_hint(bits: np.ndarray, result: np.ndarray, expected: np.ndarray) -> str:
    """The hint for bfloat16 patterns that differ from the expected ones (NaNs left out).

    A learner who only drops the lower half (rounds toward zero) is told so, whatever the
    function does to NaNs: the rounding is the exercise, and the NaNs are checked after it.
    """
    differ = result != expected
    cut = np.array_equal(result[differ], (bits[differ] >> 16).astype(np.uint16))
    return _CUT_HINT if cut else _ROUNDING_HINT


@learner_function("pass your function itself: check_to_bfloat16_bits(to_bfloat16_bits)")
def check_to_bfloat16_bits(function: Callable[[np.ndarray], np.ndarray]) -> Verdict:
    """Write-code: float32 bit patterns to bfloat16 ones, rounded to nearest, ties to even.

    Compared bit for bit with ml_dtypes' conversion; for a NaN input any quiet NaN is right.
    """
    bits = _bfloat16_probe()
    result = learner_result(function, bits, np.dtype(np.uint16))
    with np.errstate(invalid="ignore"):  # ml_dtypes warns on casting NaN; it stays NaN
        expected = bits.view(np.float32).astype(dtypes.bfloat16).view(np.uint16)
    nan = np.isnan(bits.view(np.float32))
    if not np.array_equal(result[~nan], expected[~nan]):
        return wrong(_rounding_hint(bits[~nan], result[~nan], expected[~nan]))
    nans = result[nan]  # quiet: every exponent bit and the fraction's top bit set
    if not np.all(((nans & 0x7F80) == 0x7F80) & ((nans & 0x0040) != 0)):
        return wrong("a NaN must stay NaN: all exponent bits set and the quiet bit 0x0040 set")
    return correct(
        "rounding on the bits carries into the exponent by itself: a value moves up a binade, "
        "or to infinity, with no special case"
    )


#: The overflow exercise's power: ``np.exp(x) ** POWER`` in float16 arithmetic. The rounding of
#: ``np.exp(x)`` to float16 is raised to this power, which moves the threshold past both
#: float16 neighbours of ln(Ω)/POWER. Of ``np.exp(K * x)`` no K does that: one rounding of
#: K·x leaves the threshold at a neighbour of ln(Ω)/K, often the nearest (K = 17: by luck).
POWER: Final = 100
#: What the overflow exercise's hints add, whichever side of the threshold the answer is.
_POWER_HINT: Final = (
    f"hint: start from ln(Ω)/{POWER} with Ω the float16 overflow bound; then remember that "
    f"np.exp(x) is itself rounded to float16 before the power, which multiplies the relative "
    f"error of that rounding by {POWER}, and test float16 values near it"
)


def _power(x: np.ndarray) -> np.ndarray:
    """``np.exp(x) ** POWER``, every operation in ``x``'s dtype."""
    return np.exp(x) ** POWER


@checker
def check_exp_power(answer: object) -> Verdict:
    """The smallest float16 x at which ``np.exp(x) ** 100`` overflows in float16 arithmetic.

    Compared exactly (see :data:`POWER`); a hint says on which side of the threshold a wrong
    answer is.
    """
    value = learner_float(answer)
    if not in_dtype(value, dtypes.float16):
        return wrong(
            "your x is not a float16 value, and in float16 arithmetic x is one: from which "
            f"float16 value on does np.exp(x) ** {POWER} overflow? {_POWER_HINT}"
        )
    expected = thresholds.overflow_threshold(_power, "float16")
    if value == expected:
        return correct()
    with np.errstate(over="ignore"):
        overflows = bool(np.isinf(_power(np.float16(value))))
    if not overflows:
        return wrong(
            f"np.exp(x) ** {POWER} is still finite at your x in float16 arithmetic: the "
            f"threshold lies higher — {_POWER_HINT}"
        )
    return wrong(
        f"np.exp(x) ** {POWER} overflows already at the float16 value just below your x: the "
        f"threshold lies lower — {_POWER_HINT}"
    )


@checker
def check_bfloat16_count(answer: object) -> Verdict:
    """How many bfloat16 values x satisfy 1 <= x < 1000."""
    value = learner_whole_number(answer)
    ends = dtypes.ordered(np.array([1.0, 1000.0], dtype=dtypes.bfloat16))
    expected = int(ends[1] - ends[0])  # 1000 is a bfloat16 value: count the keys below it
    return equal_or_hint(
        value,
        expected,
        "not quite — hint: bfloat16 stores 7 fraction bits, so every binade [2^k, 2^(k+1)) holds "
        "the same number of values; count the whole binades, then the part of the last one",
    )
