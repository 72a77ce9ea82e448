"""Kernel results judged by CANN's precision standard, both versions (bench/ and the tests).

The standard itself, its thresholds and its two published versions are
:mod:`mishgrad.evaluation.precision`'s (notebook 10 works it out in plain view). Here it is
applied to whole arrays of results: :func:`evaluate` (the first release's MERE and MARE,
:class:`PrecisionReport`), :func:`matched_ratio` and :func:`mixed_tolerance` (the current
version's mixed tolerance, :data:`MIXED_TOLERANCES`), and :func:`margin`, how far a measured
value stays from its limit. ``bench/accuracy.py`` prints the verdicts; the tests hold the
kernel to them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from mishgrad.citations import OPBASE, permalink
from mishgrad.evaluation.precision import FLOOR, MARE_FACTOR, STANDARD_PATH, THRESHOLDS
from mishgrad.math.dtypes import TABLE, as_dtype, dtype_name

#: The standard in force at :data:`mishgrad.citations.OPBASE`: the mixed tolerance (section
#: 2.1, lines 59-91), its table (section 2.2, lines 93-140) and the pass rule (lines 142-146).
CURRENT: Final = permalink(OPBASE, STANDARD_PATH, (59, 146))


#: Share of elements that must meet the mixed tolerance (:data:`CURRENT`, section 2.2).
REQUIRED_MATCHED_RATIO: Final = 0.99


#: Largest absolute error allowed, in ULPs of the golden, besides the absolute cap.
CAP_ULPS: Final = 32


@dataclass(frozen=True)
class MixedTolerance:
    """One column of the current standard's table (:data:`CURRENT`, section 2.2)."""

    rtol: float
    atol: float
    abs_cap: float


#: The current standard's tolerances per dtype (its record's ``mixed_tolerance``).
MIXED_TOLERANCES: Final[dict[str, MixedTolerance]] = {
    name: MixedTolerance(*record.mixed_tolerance) for name, record in TABLE.items()
}


def relative_errors(
    actual: npt.ArrayLike, golden: npt.ArrayLike, floor: float = FLOOR
) -> np.ndarray:
    """Element-wise ``|actual - golden| / (|golden| + floor)``, in float64.

    Parameters
    ----------
    actual, golden
        Arrays of one shape (any float dtypes; both are widened to float64 exactly).
    floor
        The value added to ``|golden|`` (the standard's 1e-7).

    Returns
    -------
    numpy.ndarray
        Flat float64 array: 0 where the two are equal (also for two NaNs or equal
        infinities), ``inf`` where exactly one is NaN or they are different infinities.

    Raises
    ------
    ValueError
        If the shapes differ.

    """
    a = np.asarray(actual).astype(np.float64).ravel()
    g = np.asarray(golden).astype(np.float64).ravel()
    if a.shape != g.shape:
        raise ValueError(f"actual has {a.size} elements, golden {g.size}: they must match")
    with np.errstate(invalid="ignore", over="ignore"):
        errors = np.abs(a - g) / (np.abs(g) + floor)
    same = (a == g) | (np.isnan(a) & np.isnan(g))
    errors[same] = 0.0
    errors[~same & ~(np.isfinite(a) & np.isfinite(g))] = np.inf
    return errors


@dataclass(frozen=True)
class PrecisionReport:
    """MERE and MARE of one output against its golden, and the standard's verdict.

    Attributes
    ----------
    dtype
        Name of the output dtype (selects the threshold).
    count
        Number of elements compared.
    mere, mare
        Mean and largest relative error (:func:`relative_errors`).
    worst
        Flat index of the element with the largest relative error.

    """

    dtype: str
    count: int
    mere: float
    mare: float
    worst: int

    @property
    def threshold(self) -> float:
        """T of the dtype."""
        return THRESHOLDS[self.dtype]

    @property
    def mere_limit(self) -> float:
        """MERE must be below this (T)."""
        return self.threshold

    @property
    def mare_limit(self) -> float:
        """MARE must be below this (10 T)."""
        return MARE_FACTOR * self.threshold

    @property
    def mere_passed(self) -> bool:
        """True if MERE < T."""
        return self.mere < self.mere_limit

    @property
    def mare_passed(self) -> bool:
        """True if MARE < 10 T."""
        return self.mare < self.mare_limit

    @property
    def passed(self) -> bool:
        """True if both criteria hold."""
        return self.mere_passed and self.mare_passed

    @property
    def verdict(self) -> str:
        """``"pass"`` or ``"fail"``."""
        return "pass" if self.passed else "fail"

    @property
    def mere_margin(self) -> str:
        """How far MERE is from its limit, in decades (see :func:`margin`)."""
        return margin(self.mere, self.mere_limit)

    @property
    def mare_margin(self) -> str:
        """How far MARE is from its limit, in decades (see :func:`margin`)."""
        return margin(self.mare, self.mare_limit)


def evaluate(
    actual: npt.ArrayLike, golden: npt.ArrayLike, dtype: npt.DTypeLike | str | None = None
) -> PrecisionReport:
    """Apply the standard to one output.

    Parameters
    ----------
    actual
        The operator's output.
    golden
        The reference values (e.g. :func:`mishgrad.math.oracle.mish_backward_oracle`).
    dtype
        The dtype whose threshold applies; default ``actual``'s dtype.

    Returns
    -------
    PrecisionReport
        MERE, MARE, the worst element and the verdict.

    Raises
    ------
    ValueError
        For an empty input, different sizes or an unsupported dtype.

    """
    actual = np.asarray(actual)
    name = dtype_name(as_dtype(dtype if dtype is not None else actual.dtype))
    errors = relative_errors(actual, golden)
    if errors.size == 0:
        raise ValueError("nothing to compare: the inputs are empty")
    worst = int(np.argmax(errors))
    return PrecisionReport(
        name, int(errors.size), float(errors.mean()), float(errors[worst]), worst
    )


def margin(value: float, limit: float) -> str:
    """Say how far ``value`` lies below (or above) ``limit``, rounded down to a power of 10.

    Printing the factor in whole decades keeps notebook outputs stable when the last bits
    of a result change (another ``exp``, another machine) while still saying how much room
    is left.

    Parameters
    ----------
    value
        A measured error (non-negative).
    limit
        The limit it must stay below.

    Returns
    -------
    str
        ``"exact (0)"``; ``"below by ≥ 1,000×"``, ``"below by < 10×"``;
        ``"at the limit"`` (which fails: the limits are strict); ``"above by < 10×"``,
        ``"above by ≥ 10×"``; ``"above (infinite)"``.

    """
    if value == 0:
        return "exact (0)"
    if math.isinf(value):
        return "above (infinite)"
    if value == limit:
        return "at the limit"
    below = value < limit
    factor = limit / value if below else value / limit
    decades = math.floor(math.log10(factor))
    side = "below" if below else "above"
    if decades < 1:
        return f"{side} by < 10×"
    return f"{side} by ≥ {10**decades:,}×"


def _absolute_errors(actual: np.ndarray, golden: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """|a - g| in float64 (0 where equal, NaNs included) and g, both flat."""
    a = actual.astype(np.float64).ravel()
    g = np.asarray(golden).astype(np.float64).ravel()
    if a.shape != g.shape:
        raise ValueError(f"actual has {a.size} elements, golden {g.size}")
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(a - g)
    equal = (a == g) | (np.isnan(a) & np.isnan(g))
    error[equal] = 0.0
    error[np.isnan(error)] = np.inf
    return error, g


def matched_ratio(
    actual: npt.ArrayLike,
    golden: npt.ArrayLike,
    dtype: npt.DTypeLike | str | None = None,
    *,
    rtol: float | None = None,
    atol: float | None = None,
) -> float:
    """Share of elements with ``|actual - golden| <= atol + rtol |golden|`` (mixed tolerance).

    Parameters
    ----------
    actual, golden
        The output and its reference, of one size.
    dtype
        Selects the tolerances of :data:`MIXED_TOLERANCES`; default ``actual``'s dtype.
    rtol, atol
        Override the table's tolerances.

    Returns
    -------
    float
        A share in [0, 1]; equal non-finite values match, other non-finite pairs do not.

    """
    actual = np.asarray(actual)
    column = MIXED_TOLERANCES[dtype_name(as_dtype(dtype if dtype is not None else actual.dtype))]
    rtol = column.rtol if rtol is None else rtol
    atol = column.atol if atol is None else atol
    error, g = _absolute_errors(actual, golden)
    with np.errstate(invalid="ignore"):
        close = (error == 0) | (error <= atol + rtol * np.abs(g))  # equal NaNs have error 0
    return float(np.mean(close))


@dataclass(frozen=True)
class MixedToleranceReport:
    """The current standard's verdict on one output (:func:`mixed_tolerance`)."""

    dtype: str
    matched_ratio: float
    max_abs_error: float
    cap_passed: bool

    @property
    def passed(self) -> bool:
        """True if at least 99 % of the elements match and no error exceeds the cap."""
        return self.matched_ratio >= REQUIRED_MATCHED_RATIO and self.cap_passed

    @property
    def verdict(self) -> str:
        """``"pass"`` or ``"fail"``."""
        return "pass" if self.passed else "fail"


def mixed_tolerance(
    actual: npt.ArrayLike, golden: npt.ArrayLike, dtype: npt.DTypeLike | str | None = None
) -> MixedToleranceReport:
    """Apply the current standard (:data:`CURRENT`) to one output.

    The cap on the largest absolute error, "1e-1 or 32 * ULP" for float16, is read per element
    as the larger of the two, with the ULP of the golden in the output dtype.
    """
    actual = np.asarray(actual)
    dtype = as_dtype(dtype if dtype is not None else actual.dtype)
    name = dtype_name(dtype)
    error, g = _absolute_errors(actual, golden)
    if error.size == 0:
        raise ValueError("nothing to compare: the inputs are empty")
    golden_in_dtype = g.astype(dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        ulp = np.abs(np.spacing(golden_in_dtype).astype(np.float64))
        cap = np.maximum(MIXED_TOLERANCES[name].abs_cap, CAP_ULPS * np.nan_to_num(ulp))
    return MixedToleranceReport(
        name,
        matched_ratio(actual, golden, dtype),
        float(error.max()),
        bool(np.all(error <= cap)),
    )
