"""Where intermediate quantities overflow or underflow, computed in each dtype's arithmetic.

"In dtype arithmetic" means every operation's result is rounded to that dtype, as if the
hardware computed natively in it (NumPy and ml_dtypes evaluate float16 and bfloat16
operations in float32 and round each result, which is exactly that). The NPU kernel does
*not* do this for 16-bit inputs: it widens them to float32 first, so the float32 column
is the one that matters on the device; the 16-bit columns show why it widens.

Thresholds are found by bisection over the ordered representable values of the dtype
(:func:`mishgrad.dtypes.ordered`), so each is an exact representable x, not an estimate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np
import numpy.typing as npt

from .dtypes import as_dtype, float_info, from_ordered, ordered

Expression = Callable[[np.ndarray], np.ndarray]


def _exp(x: np.ndarray) -> np.ndarray:
    return np.exp(x)


def _exp2x(x: np.ndarray) -> np.ndarray:
    return np.exp(x + x)


def _one_plus_exp_squared(x: np.ndarray) -> np.ndarray:
    p = 1 + np.exp(x)
    return p * p


def _x_exp(x: np.ndarray) -> np.ndarray:
    return x * np.exp(x)


def _y1_numerator(x: np.ndarray) -> np.ndarray:
    ex = np.exp(x)
    return 4 * x * ex * (ex + 1)


#: Intermediates of the seeds' formulas that overflow for large x.
OVERFLOWING: Final[dict[str, Expression]] = {
    "e^x": _exp,
    "e^2x": _exp2x,
    "(1 + e^x)^2": _one_plus_exp_squared,
    "x e^x": _x_exp,
    "4x e^x (e^x + 1)  (y1 numerator)": _y1_numerator,
}


def first_true(
    predicate: Callable[[np.ndarray], np.ndarray],
    dtype: npt.DTypeLike,
    lo: float,
    hi: float,
) -> float:
    """The smallest x of ``dtype`` in [lo, hi] where a monotone ``predicate`` turns true.

    ``predicate`` must be false at ``lo`` and true at ``hi`` and switch once between
    them. Returns ``nan`` if it is already true at ``lo`` or still false at ``hi``.
    """
    dtype = as_dtype(dtype)
    low, high = (int(k) for k in ordered(np.array([lo, hi], dtype=dtype)))

    def holds(key: int) -> bool:
        with np.errstate(all="ignore"):
            return bool(predicate(from_ordered(np.array([key]), dtype))[0])

    if holds(low) or not holds(high):
        return float("nan")
    while high - low > 1:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle
    return float(from_ordered(np.array([high]), dtype)[0])


def overflow_threshold(expression: Expression, dtype: npt.DTypeLike) -> float:
    """The smallest x of ``dtype`` at which ``expression(x)`` is +-inf (searching x in [0, 1e4])."""
    return first_true(lambda x: np.isinf(expression(x)), dtype, 0.0, 1e4)


def exp_underflow_threshold(dtype: npt.DTypeLike) -> float:
    """The largest x of ``dtype`` at which e^x rounds to exactly 0 in that dtype."""
    # exp(x) == 0 is true for very negative x; negate so the predicate turns true upwards.
    boundary = first_true(lambda x: np.exp(-x) == 0, dtype, 0.0, 1e4)
    return -boundary


def exp_subnormal_threshold(dtype: npt.DTypeLike) -> float:
    """The largest x of ``dtype`` at which e^x is below the smallest normal (subnormal or 0)."""
    tiny = float_info(dtype).tiny
    return -first_true(lambda x: np.exp(-x) < tiny, dtype, 0.0, 1e4)
