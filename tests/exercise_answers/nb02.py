"""Right and wrong answers for notebook 02's checkers."""

from __future__ import annotations

import math

import numpy as np

from mishgrad.book.exercises.nb02 import (
    check_bfloat16_count,
    check_exp_power,
    check_to_bfloat16_bits,
)

from . import Case


def _to_bfloat16_bits(bits: np.ndarray) -> np.ndarray:
    """Round to nearest, ties to even, on the bits; a NaN gets the quiet bit."""
    wide = bits.astype(np.uint64)  # room for the carry above 0xFFFFFFFF
    kept_is_odd = (wide >> 16) & 1
    # Adding just under a half rounds up past it; an exact half goes up only from an odd kept part.
    rounded = (wide + 0x7FFF + kept_is_odd) >> 16
    nan = (wide & 0x7FFFFFFF) > 0x7F800000
    return np.where(nan, (wide >> 16) | 0x0040, rounded).astype(np.uint16)


def _truncate(bits: np.ndarray) -> np.ndarray:
    """A wrong answer: keep the upper half, drop the rest (round toward zero)."""
    return (bits >> 16).astype(np.uint16)


def _round_half_up(bits: np.ndarray) -> np.ndarray:
    """The typical mistake: to nearest, but an exact half always goes up (not to even)."""
    wide = bits.astype(np.uint64)
    nan = (wide & 0x7FFFFFFF) > 0x7F800000
    return np.where(nan, (wide >> 16) | 0x0040, (wide + 0x8000) >> 16).astype(np.uint16)


CASES = [
    Case(
        check_to_bfloat16_bits, right=_to_bfloat16_bits, plausible=_round_half_up, wrong=_truncate
    ),
    # The typical mistake: ln(Ω)/100 rounded up into the grid, as section 3 rounds thresholds,
    # forgetting that np.exp(x) is rounded; the near miss: ln(Ω)/100 itself, off the grid.
    Case(
        check_exp_power,
        right=0.11126708984375,
        plausible=0.1109619140625,
        wrong=math.log(65520) / 100,
    ),
    # The typical mistake: ten whole binades of 128 values, as if 1000 were 1024.
    Case(check_bfloat16_count, right=1274, plausible=1280, wrong=1273),
]
