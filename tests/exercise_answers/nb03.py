"""Right and wrong answers for notebook 03's checkers."""

from __future__ import annotations

import math

import numpy as np

from mishgrad.book.exercises.nb03 import check_b1_float16, check_one_plus_e
from mishgrad.math import numerics, oracle

from . import Case


def _b1_float16(x: np.ndarray) -> np.ndarray:
    """B1 with every step a float16 array, in the exercise's order."""
    t = oracle.tanh_softplus_oracle(x)
    e = np.exp(x)
    return t - (x * e) * (t * t - 1) * (1 / (e + 1))


def _b1_float32(x: np.ndarray) -> np.ndarray:
    """The typical mistake: v1's float32 arithmetic, rounded once (it NaNs only from 84)."""
    return numerics.dmish_b1(x, oracle.tanh_softplus_oracle(x))


CASES = [
    Case(check_b1_float16, right=_b1_float16, plausible=_b1_float32),
    # The typical mistake: e^-x = 2^-8 (half an ULP of 1) solved in real numbers, x = 8 ln 2.
    Case(check_one_plus_e, right=5.5625, plausible=8 * math.log(2), wrong=5.53125),
]
