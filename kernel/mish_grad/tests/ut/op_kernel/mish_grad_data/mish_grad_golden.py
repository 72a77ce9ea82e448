"""Inputs, golden and verdicts of MishGrad's kernel unit test, with NumPy alone.

``gen_data.py`` and ``compare_data.py`` import this module from their own folder; ops-nn runs
them there with its ``python3`` (``cd <data folder> && python3 gen_data.py ...``), which has
NumPy and nothing of this project. So nothing here needs more than NumPy and the standard
library.

Files hold raw little-endian elements. float32 and float16 are NumPy's own dtypes. bfloat16,
which NumPy lacks, is kept as its bit pattern in ``uint16``: the upper half of a float32.

The golden is ``grad * dmish/dx(x)`` evaluated in float64 from the dtype's inputs by a
cancellation-free form of the derivative and rounded once to the dtype (to nearest, ties to
even). The project's oracle rounds the exact value correctly; float64-then-round can only
differ from it where the float64 value lies within its own few-ulp error of a rounding
midpoint, which the project's tests measure to be a handful of elements per dtype.

The verdicts restate CANN's precision standard for experimental operators (cann/opbase
``docs/zh/ops_precision_standard/experimental_standard.md``): the mixed tolerance in force,
which decides, and MERE/MARE of the first release, printed for reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

#: The seed of every sample in the project (``mishgrad.math.samples.SEED``).
SEED: Final = 20251223
#: Special inputs placed at the front of x: signed zeros, infinities, values that overflow
#: float16 (1e30 becomes inf there; bfloat16 keeps it finite) and values where exp(x)
#: overflows or underflows float32.
SPECIAL: Final = np.array([0.0, -0.0, np.inf, -np.inf, 1e30, -1e30, 88.0, -88.0], np.float32)
#: The dtype names the scripts accept, and how each is stored in NumPy.
STORAGE: Final[dict[str, np.dtype]] = {
    "float32": np.dtype(np.float32),
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(np.uint16),
}


def check_dtype(name: str) -> str:
    """Return ``name`` if it is float32, float16 or bfloat16.

    Raises
    ------
    ValueError
        For any other name.

    """
    if name not in STORAGE:
        raise ValueError(f"dtype must be one of {sorted(STORAGE)}, got {name!r}")
    return name


# --- bfloat16 as uint16 bit patterns -------------------------------------------------------


def bfloat16_from_float32(values: np.ndarray) -> np.ndarray:
    """Round float32 values to bfloat16 bit patterns, to nearest with ties to even.

    Adding ``0x7fff`` plus the lowest kept bit to the float32 pattern and dropping the lower
    16 bits rounds the magnitude to nearest even; a carry into the exponent is the correct
    result, up to infinity. NaN stays a (quiet) NaN of the same sign.
    """
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(values, dtype=np.float32))
    quiet = ((bits >> 16) | 0x0040).astype(np.uint16)
    return np.where(nan, quiet, rounded)


def bfloat16_to_float32(bits: np.ndarray) -> np.ndarray:
    """The float32 values of bfloat16 bit patterns (exact)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def _float32_round_to_odd(values: np.ndarray) -> np.ndarray:
    """float64 to float32, truncated with the last bit set where inexact (rounding to odd).

    A value rounded to odd with at least two bits more than the target format rounds to the
    target exactly as the original would: here float32's 24 bits carry bfloat16's 8.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = values.astype(np.float32)
        inexact = nearest.astype(np.float64) != values
        overshoot = inexact & (np.abs(nearest.astype(np.float64)) > np.abs(values))
        bits = nearest.view(np.uint32).copy()
        bits[overshoot] -= 1  # one step toward zero: the magnitude's pattern is monotonic
        bits[inexact] |= 1
    return np.where(np.isnan(values), np.float32(np.nan), bits.view(np.float32))


def round_float64(values: np.ndarray, dtype: str) -> np.ndarray:
    """Round float64 ``values`` once to ``dtype`` (nearest, ties to even), in its storage.

    NumPy's float64 to float32 and float16 conversions round once; bfloat16 goes through
    float32 rounded to odd, so it is not rounded twice either.
    """
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore"):
        if dtype == "bfloat16":
            return bfloat16_from_float32(_float32_round_to_odd(values))
        return values.astype(STORAGE[check_dtype(dtype)])


def to_float64(stored: np.ndarray, dtype: str) -> np.ndarray:
    """The values of stored elements of ``dtype`` as float64 (exact)."""
    if dtype == "bfloat16":
        return bfloat16_to_float32(stored).astype(np.float64)
    return np.asarray(stored, dtype=STORAGE[check_dtype(dtype)]).astype(np.float64)


def from_float32(values: np.ndarray, dtype: str) -> np.ndarray:
    """float32 values rounded to ``dtype`` (overflow to infinity on purpose), in its storage."""
    if dtype == "bfloat16":
        return bfloat16_from_float32(values)
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float32).astype(STORAGE[check_dtype(dtype)])


def ulp(stored: np.ndarray, dtype: str) -> np.ndarray:
    """The absolute spacing above each stored value's magnitude, as float64.

    NaN for NaN and infinity, infinity for the largest finite value (as ``np.spacing``).
    """
    if dtype != "bfloat16":
        with np.errstate(over="ignore", invalid="ignore"):
            spacing = np.spacing(np.asarray(stored, dtype=STORAGE[check_dtype(dtype)]))
        return np.abs(spacing.astype(np.float64))
    magnitude = np.asarray(stored, dtype=np.uint16) & np.uint16(0x7FFF)
    here = to_float64(magnitude, dtype)
    following = to_float64(np.minimum(magnitude, 0x7F80) + np.uint16(1), dtype)
    with np.errstate(invalid="ignore"):
        return following - here


# --- inputs and golden --------------------------------------------------------------------


def inputs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The float32 grad and x: seeded, x uniform on [-20, 20] after :data:`SPECIAL`."""
    rng = np.random.default_rng(SEED)
    x = rng.uniform(-20.0, 20.0, n).astype(np.float32)
    x[: min(n, SPECIAL.size)] = SPECIAL[:n]
    grad = rng.uniform(-2.0, 2.0, n).astype(np.float32)
    return grad, x


def _softplus_terms(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The terms t = tanh(softplus(x)), 1 - t and sigmoid(x) in float64, cancellation-free.

    With u = exp(-|x|) <= 1: for x > 0, t = (1 + 2u) / (1 + 2u + 2u^2) and 1 - t =
    2u^2 / (1 + 2u + 2u^2); for x <= 0, t = u(2 + u) / (u(2 + u) + 2) and 1 - t =
    2 / (u(2 + u) + 2). Every sum adds positive terms. Non-finite x gives NaN.
    """
    with np.errstate(all="ignore"):
        u = np.exp(-np.abs(x))
        positive = x > 0
        above = np.where(positive, 1 + 2 * u, u * (2 + u))  # numerator of t
        gap = np.where(positive, 2 * u * u, 2.0)  # numerator of 1 - t
        total = above + gap
        sigmoid = np.where(positive, 1.0, u) / (1 + u)
        finite = np.isfinite(x)
        return (
            np.where(finite, above / total, np.nan),
            np.where(finite, gap / total, np.nan),
            np.where(finite, sigmoid, np.nan),
        )


def dmish(x: np.ndarray) -> np.ndarray:
    """dmish/dx = t + x sigmoid(x) (1 - t)(1 + t) in float64, for float64 ``x``.

    1 at +inf, 0 at -inf, NaN at NaN. Where the float64 value underflows to zero (x below
    about -745, where the true value e^x (1 + x) is negative) it is -0, the true sign.
    """
    t, one_minus_t, sigmoid = _softplus_terms(x)
    with np.errstate(all="ignore"):
        d = t + x * sigmoid * one_minus_t * (1 + t)
    d = np.where(d == 0, -0.0, d)
    d = np.where(x == np.inf, 1.0, d)
    return np.where(x == -np.inf, 0.0, d)


def tanh_softplus(x: np.ndarray, dtype: str) -> np.ndarray:
    """The forward pass's tanh(softplus(x)) of stored ``x``: float64, rounded once to ``dtype``."""
    x64 = to_float64(x, dtype)
    t, _, _ = _softplus_terms(x64)
    t = np.where(x64 == np.inf, 1.0, np.where(x64 == -np.inf, 0.0, t))
    return round_float64(t, dtype)


def golden(grad: np.ndarray, x: np.ndarray, dtype: str) -> np.ndarray:
    """``grad * dmish/dx(x)`` of stored inputs, in float64, rounded once to ``dtype``.

    Special values follow IEEE arithmetic on the limits: ``grad * 1`` at +inf, ``grad * 0``
    at -inf (NaN if grad is infinite), NaN if either input is NaN.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        product = to_float64(grad, dtype) * dmish(to_float64(x, dtype))
    return round_float64(product, dtype)


def golden_with_tanhx(grad: np.ndarray, x: np.ndarray, t: np.ndarray, dtype: str) -> np.ndarray:
    """The operator from a given t: grad * (t + x s (1 - t^2)) in float64, rounded once."""
    g64, x64, t64 = (to_float64(a, dtype) for a in (grad, x, t))
    with np.errstate(over="ignore", invalid="ignore"):
        sigmoid = np.where(x64 >= 0, 1 / (1 + np.exp(-x64)), np.exp(x64) / (1 + np.exp(x64)))
        d = np.where(np.isfinite(x64), t64 + x64 * sigmoid * (1 - t64 * t64), (x64 > 0) * 1.0)
        return round_float64(g64 * d, dtype)


# --- CANN's precision standard ------------------------------------------------------------

#: Share of elements that must meet the mixed tolerance.
REQUIRED_MATCHED_RATIO: Final = 0.99
#: The cap on the largest absolute error is the larger of the dtype's absolute cap and this
#: many ULPs of the golden.
CAP_ULPS: Final = 32
#: Per dtype: rtol, atol and the absolute cap of the mixed tolerance.
MIXED_TOLERANCES: Final[dict[str, tuple[float, float, float]]] = {
    "float16": (2.0**-9, 2.0**-9, 1e-1),
    "bfloat16": (2.0**-6, 2.0**-6, 1e-0),
    "float32": (2.0**-10, 2.0**-16, 1e-2),
}
#: First release: the floor of the relative error's denominator, the threshold T per dtype
#: (MERE < T) and MARE's factor (MARE < 10 T).
FLOOR: Final = 1e-7
THRESHOLDS: Final[dict[str, float]] = {
    "float32": 2.0**-13,
    "float16": 2.0**-10,
    "bfloat16": 2.0**-7,
}
MARE_FACTOR: Final = 10


def _errors(actual: np.ndarray, golden: np.ndarray) -> np.ndarray:
    """|actual - golden|: 0 where equal (two NaNs, equal infinities), inf for other NaNs."""
    if actual.shape != golden.shape:
        raise ValueError(f"actual has {actual.size} elements, golden {golden.size}")
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(actual - golden)
    error[(actual == golden) | (np.isnan(actual) & np.isnan(golden))] = 0.0
    error[np.isnan(error)] = np.inf
    return error


@dataclass(frozen=True)
class MixedTolerance:
    """The verdict of the standard in force on one output."""

    matched_ratio: float
    max_abs_error: float
    cap_passed: bool

    @property
    def passed(self) -> bool:
        """True if at least 99 % of the elements match and no error exceeds the cap."""
        return self.matched_ratio >= REQUIRED_MATCHED_RATIO and self.cap_passed


def mixed_tolerance(actual: np.ndarray, golden: np.ndarray, dtype: str) -> MixedTolerance:
    """Apply the mixed tolerance to stored ``actual`` and ``golden`` of ``dtype``.

    An element matches when ``|a - g| <= atol + rtol |g|``; the cap on every element's error
    is the larger of the absolute cap and 32 ULPs of its golden.

    Raises
    ------
    ValueError
        For empty inputs or different sizes.

    """
    rtol, atol, abs_cap = MIXED_TOLERANCES[check_dtype(dtype)]
    a64, g64 = to_float64(actual, dtype).ravel(), to_float64(golden, dtype).ravel()
    error = _errors(a64, g64)
    if error.size == 0:
        raise ValueError("nothing to compare: the inputs are empty")
    with np.errstate(invalid="ignore"):
        close = (error == 0) | (error <= atol + rtol * np.abs(g64))
        cap = np.maximum(abs_cap, CAP_ULPS * np.nan_to_num(ulp(np.ravel(golden), dtype)))
    return MixedTolerance(float(np.mean(close)), float(error.max()), bool(np.all(error <= cap)))


@dataclass(frozen=True)
class FirstRelease:
    """MERE and MARE of one output and their limits (the standard as first released)."""

    mere: float
    mare: float
    threshold: float

    @property
    def mare_limit(self) -> float:
        """MARE must stay below this (10 T)."""
        return MARE_FACTOR * self.threshold

    @property
    def passed(self) -> bool:
        """True if MERE < T and MARE < 10 T."""
        return self.mere < self.threshold and self.mare < self.mare_limit


def first_release(actual: np.ndarray, golden: np.ndarray, dtype: str) -> FirstRelease:
    """MERE and MARE of stored ``actual`` against ``golden``: r = |a - g| / (|g| + 1e-7).

    Raises
    ------
    ValueError
        For empty inputs or different sizes.

    """
    a64, g64 = to_float64(actual, dtype).ravel(), to_float64(golden, dtype).ravel()
    error = _errors(a64, g64)
    if error.size == 0:
        raise ValueError("nothing to compare: the inputs are empty")
    with np.errstate(invalid="ignore", over="ignore"):
        relative = error / (np.abs(g64) + FLOOR)
    relative[error == 0] = 0.0
    relative[np.isinf(error)] = np.inf
    return FirstRelease(float(relative.mean()), float(relative.max()), THRESHOLDS[dtype])


def verdict(passed: bool) -> str:
    """``"pass"`` or ``"fail"``."""
    return "pass" if passed else "fail"
