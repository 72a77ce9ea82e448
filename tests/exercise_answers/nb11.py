"""Right and wrong answers for notebook 11's checkers."""

from __future__ import annotations

import numpy as np

from exercise_answers import Case
from mishgrad.book.exercises import nb11


def _farther(a, b, flush=True):
    exact = np.abs(a.astype(np.float64) / b.astype(np.float64))
    nearest = exact.astype(np.float32)
    low = np.where(nearest <= exact, nearest, np.nextafter(nearest, np.float32(0)))
    high = np.nextafter(low, np.float32(np.inf))
    chosen = np.where(exact - low <= high - exact, high, low)
    chosen = np.where(nearest == exact, nearest, chosen)
    if flush:
        chosen = np.where(chosen < np.finfo(np.float32).tiny, np.float32(0), chosen)
    return np.where(np.signbit(a) != np.signbit(b), -chosen, chosen)


def adversarial_div(a, b):
    return _farther(a, b)


def nearest_div(a, b):
    # The typical mistake: the correctly rounded quotient, what the ieee model returns.
    return a / b


def unflushed_div(a, b):
    # A near miss: the farther neighbour, but subnormal results kept.
    return _farther(a, b, flush=False)


CASES = [
    Case(
        nb11.check_adversarial_div,
        right=adversarial_div,
        plausible=nearest_div,
        wrong=unflushed_div,
    ),
]
