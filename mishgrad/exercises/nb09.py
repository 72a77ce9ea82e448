"""Checkers for notebook 09 (precision).

MARE's allowance in ULPs (write code), the allowance near a zero of the output, and how large
a test must be to reach the stretch where a t + p form fails.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .. import dtypes, oracle, precision
from . import UNANSWERED, Verdict, call_learner, correct, wrong
from .numeric import close_or_hint

#: The dtypes the write-code exercise tries: (name, bits of the significand, smallest
#: normal exponent), so the ULP of every normal and subnormal value can be computed.
_FORMATS = {"float32": (23, -126), "float16": (10, -14), "bfloat16": (7, -126)}


def ulp_of(golden: np.ndarray, name: str) -> np.ndarray:
    """The ULP of each (representable) golden value in the dtype; the smallest subnormal at 0."""
    bits, min_exponent = _FORMATS[name]
    _, exponent = np.frexp(np.abs(golden))  # |g| = m 2**exponent with 0.5 <= m < 1
    # Subnormals and 0 share the ULP of the smallest normal binade.
    leading = np.where(golden == 0, min_exponent, np.maximum(exponent - 1, min_exponent))
    return np.ldexp(1.0, leading - bits)


def reference_allowed_ulps(golden: np.ndarray, name: str) -> np.ndarray:
    """MARE's allowance at each golden value, in ULPs of that value in the dtype."""
    return precision.allowed_abs_error(golden, name) / ulp_of(golden, name)


def _goldens(name: str, seed: int = 909) -> np.ndarray:
    """Golden values of the dtype from 0 to 1, dense near the floor 1e-7."""
    rng = np.random.default_rng(seed)
    values = np.concatenate([[0.0], 10.0 ** rng.uniform(-12, 0, 400)])
    values[1::2] *= -1
    return values.astype(dtypes.as_dtype(name)).astype(np.float64)


def check_allowed_ulps(function: Callable[..., object] | None) -> Verdict:
    """``function(golden, dtype_name)`` must return MARE's allowance in ULPs of each golden."""
    if function is None:
        return UNANSWERED
    if not callable(function):
        return wrong("write a function allowed_ulps(golden, dtype_name) and pass it")
    for name in _FORMATS:
        golden = _goldens(name)
        result, failure = call_learner(function, golden.copy(), name)
        if failure is not None:
            return failure
        try:
            got = np.asarray(result, dtype=np.float64)
            ok = got.shape == golden.shape and bool(
                np.allclose(got, reference_allowed_ulps(golden, name), rtol=1e-9, atol=0)
            )
        except (TypeError, ValueError):
            return wrong("return a NumPy array of numbers, one per golden value")
        if not ok:
            return wrong(
                f"not right for {name}: the allowance is 10 T (|g| + 1e-7); divide by the "
                "spacing of the dtype's numbers at |g| (at 0: the smallest subnormal)"
            )
    return correct(
        "for |g| well above 1e-7 the allowance is about the same number of ULPs at every "
        "magnitude; below it, the floor makes it grow without bound"
    )


#: The allowance exercise: float16, a golden value of 3e-6.
_ALLOWANCE_DTYPE, _ALLOWANCE_GOLDEN = "float16", 3e-6


def check_allowance(answer: object) -> Verdict:
    """The largest absolute error MARE allows a float16 element whose golden value is 3e-6."""
    expected = float(precision.allowed_abs_error(_ALLOWANCE_GOLDEN, _ALLOWANCE_DTYPE))
    return close_or_hint(
        answer,
        expected,
        "r = |a − g| / (|g| + 1e-7) must stay below 10 T; float16's T is 2**-10",
        rel_tol=1e-3,
        remark=f"{expected:.4g}: the floor 1e-7 is a few per cent of |g| here",
    )


def stretch_width() -> float:
    """Width of the float32 stretch around the zero x0 of d where a t + p form breaks MARE.

    There |d| is below ``g_break``: half an ULP of t(x0), divided by the MARE limit, less
    the floor. Measured on every float32 within 4096 ULPs of x0 with the oracle.
    """
    grid = np.float32(-1.1924) + np.arange(-20_000, 20_001) * np.spacing(np.float32(1.19))
    d = oracle.dmish_oracle(grid.astype(np.float32)).astype(np.float64)
    crossing = np.flatnonzero(np.diff(np.signbit(d)))[0]
    t0 = oracle.tanh_softplus_oracle(grid[crossing : crossing + 1].astype(np.float32))[0]
    limit = precision.MARE_FACTOR * precision.threshold("float32")
    g_break = float(np.spacing(t0)) / 2 / limit - precision.FLOOR
    inside = grid[np.abs(d) < g_break].astype(np.float64)
    return float(inside.max() - inside.min())


#: The sample-size exercise: CANN's current case generation draws half its values from
#: uniform [-5, 5] (opbase experimental_standard.md, section 1.2).
_UNIFORM_SPAN = 10.0


def check_sample_size(answer: object) -> Verdict:
    """Smallest k such that 10**k points from uniform[-5, 5] expect one in the stretch."""
    if answer is None:
        return UNANSWERED
    expected = math.ceil(math.log10(_UNIFORM_SPAN / stretch_width()))
    if isinstance(answer, bool) or not isinstance(answer, int | np.integer):
        return wrong("answer with the exponent k, a whole number")
    if answer == expected:
        return correct(f"10**{expected} points: a test that small rarely sees the stretch")
    return wrong("expected points in the stretch = width × m / (length of the interval)")
