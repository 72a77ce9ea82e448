"""Right and wrong answers to notebook 05's exercises."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from exercise_answers import Case, replace_in
from mishgrad.book.exercises import nb05
from mishgrad.math import numerics, oracle

F = np.float32
TWO_TO_MINUS_64 = F(2.0**-64)
FLOAT_MAX = np.finfo(np.float32).max


def derivative_from_tanhx(
    x: np.ndarray, t: np.ndarray, exp: Callable[..., np.ndarray], div: Callable[..., np.ndarray]
) -> np.ndarray:
    """``DerivativeFromTanhx``, one NumPy operation per vector instruction."""
    with np.errstate(all="ignore"):
        h = np.abs(x)  # Abs
        h = h * F(-0.5)  # Muls
        h = exp(h)  # Exp
        e = h * h  # Mul
        d = np.minimum(x, F(0))  # Mins
        d = np.maximum(d, -FLOAT_MAX)  # Maxs
        d = d * h  # Mul
        d = d * h  # Mul
        e = e * TWO_TO_MINUS_64  # Muls
        e = e + TWO_TO_MINUS_64  # Adds
        h = np.maximum(x, F(0))  # Maxs
        h = np.minimum(h, FLOAT_MAX * TWO_TO_MINUS_64)  # Mins
        d = d + h  # Add
        d = div(d, e)  # Div
        h = t * -TWO_TO_MINUS_64  # Muls
        h = h + TWO_TO_MINUS_64  # Adds
        d = d * h  # Mul
        h = t + F(1)  # Adds
        d = d * h  # Mul
        return d + t  # Add


def one_minus_t_squared(
    x: np.ndarray, t: np.ndarray, exp: Callable[..., np.ndarray], div: Callable[..., np.ndarray]
) -> np.ndarray:
    """The typical mistake: the same x s, but 1 - t^2 formed from t^2 as the textbook writes it."""
    with np.errstate(all="ignore"):
        h = exp(np.abs(x) * F(-0.5))
        x_s = div(
            np.maximum(np.minimum(x, F(0)), -FLOAT_MAX) * h * h + np.maximum(x, F(0)), h * h + F(1)
        )
        return x_s * (F(1) - t * t) + t


def tail(length: int, itemsize: int) -> tuple[str, int, int]:
    """The kernel's rule: DataCopy for whole 32-byte blocks, count in 256-byte float32 spans."""
    nbytes = length * itemsize
    return ("DataCopy" if nbytes % 32 == 0 else "DataCopyPad"), nbytes, -(-length // 64) * 64


def tail_in_elements(length: int, itemsize: int) -> tuple[str, int, int]:
    """The typical mistake: the 32-byte rule applied to elements, the count to 256 bytes of x."""
    per_span = 256 // itemsize
    return (
        ("DataCopy" if length % 32 == 0 else "DataCopyPad"),
        length * itemsize,
        -(-length // per_span) * per_span,
    )


def _without_window(model: str = nb05.WINDOW_MODEL) -> int:
    """The edited kernel's count: the NumPy model's rational form is the kernel bit for bit."""
    x = nb05.window_inputs()
    d = numerics.dmish_rational(x, model).astype(np.float64)
    truth = oracle.dmish_oracle(x).astype(np.float64)
    return int(np.sum(np.abs(d - truth) > nb05.WINDOW_TOLERANCE * np.abs(truth)))


WITHOUT_WINDOW = _without_window()

CASES = [
    Case(
        nb05.check_root_window,
        right=WITHOUT_WINDOW,
        # The typical mistake: the copy run without numerics="hardware" (the IEEE model).
        plausible=_without_window("ieee"),
        wrong=round(WITHOUT_WINDOW * 0.8),
        edit=lambda s: replace_in(s, nb05.KERNEL_FILE, "RootWindow(d, x, a, e, far, count);", ""),
    ),
    Case(nb05.check_tanhx_model, right=derivative_from_tanhx, plausible=one_minus_t_squared),
    Case(nb05.check_tail, right=tail, plausible=tail_in_elements),
]
