"""Right and wrong answers for notebook 02's checkers."""

from __future__ import annotations

import numpy as np

from mishgrad.exercises.nb02 import check_bfloat16_count, check_exp3x, check_next_up

from . import Case


def _next_up(x: np.ndarray) -> np.ndarray:
    """Next larger float by the bits: +1 for x >= 0 (and -0), -1 for x < 0."""
    unsigned = x.view(f"uint{8 * x.itemsize}")
    sign = unsigned >> (8 * x.itemsize - 1)
    magnitude = unsigned & ((1 << (8 * x.itemsize - 1)) - 1)
    negative = (sign == 1) & (magnitude != 0)
    bits = np.where(negative, unsigned - 1, np.where(sign == 1, 1, magnitude + 1))
    return bits.astype(unsigned.dtype).view(x.dtype)


def _next_up_ignoring_sign(x: np.ndarray) -> np.ndarray:
    """The plausible mistake: add one to the bits whatever the sign."""
    unsigned = x.view(f"uint{8 * x.itemsize}")
    return (unsigned + 1).astype(unsigned.dtype).view(x.dtype)


CASES = [
    Case(check_next_up, right=_next_up, wrong=_next_up_ignoring_sign),
    Case(check_exp3x, right=3.697265625, wrong=3.6953125),
    Case(check_bfloat16_count, right=1274, wrong=1273),
]
