"""Where intermediate quantities overflow or underflow, computed in each dtype's arithmetic.

"In dtype arithmetic" means every operation's result is rounded to that dtype, as if the
hardware computed natively in it (NumPy and ml_dtypes evaluate float16 and bfloat16
operations in float32 and round each result, which is exactly that). The NPU kernel does
*not* do this for 16-bit inputs: it widens them to float32 first, so the float32 column
is the one that matters on the device; the 16-bit columns show why it widens.

Thresholds are found by bisection over the ordered representable values of the dtype
(:func:`mishgrad.math.dtypes.ordered`), so each is an exact representable x, not an estimate.
"""

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from .dtypes import as_dtype, from_ordered, ordered

Expression = Callable[[np.ndarray], np.ndarray]


def first_true(predicate: Expression, dtype: npt.DTypeLike, lo: float, hi: float) -> float:
    """Find the smallest x of ``dtype`` in [lo, hi] where a monotone ``predicate`` turns true.

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
    """Find the smallest x of ``dtype`` at which ``expression(x)`` is +-inf (x in [0, 1e4])."""
    return first_true(lambda x: np.isinf(expression(x)), dtype, 0.0, 1e4)
