"""Right and wrong answers for notebook 02's checkers."""

from __future__ import annotations

import numpy as np

from mishgrad.book.exercises.nb02 import check_bfloat16_count, check_exp3x, check_to_bfloat16_bits

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
    """The plausible mistake: keep the upper half, drop the rest (round toward zero)."""
    return (bits >> 16).astype(np.uint16)


CASES = [
    Case(check_to_bfloat16_bits, right=_to_bfloat16_bits, wrong=_truncate),
    Case(check_exp3x, right=3.697265625, wrong=3.6953125),
    Case(check_bfloat16_count, right=1274, wrong=1273),
]
