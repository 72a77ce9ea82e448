"""Overflow and underflow thresholds derived analytically, for tests/test_thresholds.py.

:mod:`mishgrad.math.thresholds` finds the thresholds the notebooks use by bisection in
float32; here each is also derived in closed form at high precision
(:func:`analytic_overflow_threshold`, :func:`analytic_exp_underflow`,
:func:`analytic_exp_subnormal`) and rounded to the float32 grid (:func:`grid_floor`,
:func:`grid_ceil`), so that the tests can hold the two to each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import mpmath
import numpy as np
import numpy.typing as npt

from mishgrad.math.dtypes import as_dtype, float_info, from_ordered, ordered
from mishgrad.math.thresholds import Expression, first_true


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


#: Intermediates of the formulas in ops-nn v1's README (notebook 01) that overflow for large x.
OVERFLOWING: Final[dict[str, Expression]] = {
    "e^x": _exp,
    "e^2x": _exp2x,
    "(1 + e^x)^2": _one_plus_exp_squared,
    "x e^x": _x_exp,
    "4x e^x (e^x + 1)  (y1 numerator)": _y1_numerator,
}


def exp_underflow_threshold(dtype: npt.DTypeLike) -> float:
    """Find the largest x of ``dtype`` at which e^x rounds to exactly 0 in that dtype."""
    # exp(x) == 0 is true for very negative x; negate so the predicate turns true upwards.
    boundary = first_true(lambda x: np.exp(-x) == 0, dtype, 0.0, 1e4)
    return -boundary


def exp_subnormal_threshold(dtype: npt.DTypeLike) -> float:
    """Find the largest x of ``dtype`` at which e^x is below the smallest normal (or 0)."""
    tiny = float_info(dtype).tiny
    return -first_true(lambda x: np.exp(-x) < tiny, dtype, 0.0, 1e4)


#: Each entry of :data:`OVERFLOWING` as an exact function (mpmath, no overflow), and the
#: closed form of its threshold where one exists (for tables).
EXACT: Final[dict[str, tuple[Callable[[mpmath.mpf], mpmath.mpf], str]]] = {
    "e^x": (mpmath.exp, "ln Ω"),
    "e^2x": (lambda x: mpmath.exp(2 * x), "ln(Ω) / 2"),
    "(1 + e^x)^2": (lambda x: (1 + mpmath.exp(x)) ** 2, "ln(√Ω − 1)"),
    "x e^x": (lambda x: x * mpmath.exp(x), "W(Ω)  (Lambert W)"),
    "4x e^x (e^x + 1)  (y1 numerator)": (
        lambda x: 4 * x * mpmath.exp(x) * (mpmath.exp(x) + 1),
        "root of 4x eˣ(eˣ + 1) = Ω",
    ),
}


_MP_DIGITS: Final = 40


def overflow_bound(dtype: npt.DTypeLike) -> float:
    """Return Ω, the smallest real number that rounds to +inf in ``dtype`` (to nearest).

    It is the largest finite value plus half its ULP, ``(2 - 2**-p) * 2**emax`` with p
    significand bits: a result at or above Ω becomes inf, one below it rounds to at most
    the largest finite value. Exact in float64.
    """
    info = float_info(dtype)
    largest = float(info.max)
    ulp_of_max = largest - float(np.nextafter(np.array(info.max, dtype=as_dtype(dtype)), 0))
    return largest + ulp_of_max / 2


def analytic_overflow_threshold(name: str, dtype: npt.DTypeLike) -> float:
    """Solve exact ``name``(x) = Ω(dtype) for the real x > 0; return it in float64.

    Solved by bisection at 40 digits in mpmath (every expression of :data:`EXACT` is
    increasing for x > 0), then rounded to float64.
    """
    exact, _ = EXACT[name]
    with mpmath.workdps(_MP_DIGITS):
        target = mpmath.log(mpmath.mpf(overflow_bound(dtype)))
        low, high = mpmath.mpf("1e-3"), mpmath.mpf(1000)
        for _ in range(200):
            middle = (low + high) / 2
            if mpmath.log(exact(middle)) < target:
                low = middle
            else:
                high = middle
        return float(high)


def analytic_exp_underflow(dtype: npt.DTypeLike) -> float:
    """Return ln(smallest subnormal / 2): below it exact e^x rounds to 0 (ties to even 0)."""
    return float(np.log(float(float_info(dtype).smallest_subnormal) / 2))


def analytic_exp_subnormal(dtype: npt.DTypeLike) -> float:
    """Return ln(smallest normal − half a subnormal ULP): below it e^x rounds below normal."""
    info = float_info(dtype)
    return float(np.log(float(info.tiny) - float(info.smallest_subnormal) / 2))


def grid_ceil(value: float, dtype: npt.DTypeLike) -> float:
    """Return the smallest value of ``dtype`` that is >= ``value`` (a float64)."""
    return _grid_round(value, dtype, up=True)


def grid_floor(value: float, dtype: npt.DTypeLike) -> float:
    """Return the largest value of ``dtype`` that is <= ``value`` (a float64)."""
    return _grid_round(value, dtype, up=False)


def _grid_round(value: float, dtype: npt.DTypeLike, *, up: bool) -> float:
    dtype = as_dtype(dtype)
    # Round to nearest first (through float32 for bfloat16: may round twice, the loop fixes it).
    key = int(ordered(np.array([value]).astype(np.float32).astype(dtype))[0])
    while float(from_ordered(np.array([key]), dtype)[0]) < value:
        key += 1
    while float(from_ordered(np.array([key]), dtype)[0]) > value:
        key -= 1
    if up and float(from_ordered(np.array([key]), dtype)[0]) < value:
        key += 1
    return float(from_ordered(np.array([key]), dtype)[0])


def grid_steps(a: float, b: float, dtype: npt.DTypeLike) -> int:
    """Count the steps of the ``dtype`` grid from b to a (signed: positive if a > b)."""
    keys = ordered(np.array([a, b], dtype=np.float64).astype(as_dtype(dtype)))
    return int(keys[0] - keys[1])
