"""Measuring error: ULP distances, the accuracy targets, and where a formula fails.

The unit of error is the ULP of the *output* dtype: the distance between a result and the
correctly rounded truth, counted in representable values (see
:func:`mishgrad.math.dtypes.ordered`). Near the root of d (x ~ -1.19243) the derivative passes
through zero, where a method that forms d = t + p from a rounded t keeps a large *relative*
error (:mod:`mishgrad.math.near_root`). An operator's :class:`Regions` mark that band and where
d is subnormal, where float32 is judged by absolute error (MishGrad's:
:data:`MISH_GRAD_REGIONS`, its window :data:`ROOT_WINDOW` also reported on its own).

Summaries of a whole batch of results, and the targets checked on them, are
``bench/error_summary.py`` (bench/ and the tests use them).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from .dtypes import as_floats, float32, ordered, record
from .oracle import dmish_oracle
from .thresholds import first_true

#: The smallest normal float32, 2^-126.
FLOAT32_TINY: Final = float(np.finfo(np.float32).tiny)

# Each dtype's accuracy targets are in its record (mishgrad.math.dtypes.TABLE: max_ulp,
# correctly_rounded_pct, max_rel_error). float32 also asks for an absolute error in the root
# window and where the correctly rounded d is subnormal, where no relative error can be asked.
FLOAT32_MAX_ABS_ERROR_ROOT: Final = 1e-7
FLOAT32_MAX_ABS_ERROR_SUBNORMAL: Final = FLOAT32_TINY
#: float32, per numerics model: the share of results within 1 ULP on uniform[-20, 20], where
#: training activations live. Under ``ieee`` it must beat PyTorch's CPU formula (notebook 03);
#: merely faithful Exp and Div cost every formula some of it, so the other models ask less.
FLOAT32_WITHIN_1ULP_UNIFORM_PCT: Final = {"ieee": 92.0, "hardware": 82.0, "adversarial": 78.0}


@dataclass(frozen=True)
class Regions:
    """Where an operator's float32 results are judged by absolute rather than relative error."""

    #: The x interval around a zero of d (inclusive): d passes through zero there, so a relative
    #: error means nothing; ``window_abs_error`` is asked for instead.
    window: tuple[float, float]
    #: Below this x the correctly rounded float32 d is subnormal (or zero):
    #: :data:`FLOAT32_MAX_ABS_ERROR_SUBNORMAL` is asked for there (:func:`subnormal_edge`).
    subnormal_edge: float
    window_abs_error: float = FLOAT32_MAX_ABS_ERROR_ROOT

    def in_window(self, x: npt.ArrayLike) -> np.ndarray:
        """True where x lies in :attr:`window`."""
        x = np.asarray(x, dtype=np.float64)
        return (x >= self.window[0]) & (x <= self.window[1])

    def normal(self, x: npt.ArrayLike) -> np.ndarray:
        """Where the relative-error target applies: finite x whose d is normal."""
        x = np.asarray(x, dtype=np.float64)
        return (x >= self.subnormal_edge) & np.isfinite(x)

    def subnormal(self, x: npt.ArrayLike) -> np.ndarray:
        """Where the correctly rounded float32 d is subnormal (or zero): x below the edge."""
        return np.asarray(x, dtype=np.float64) < self.subnormal_edge


def subnormal_edge(
    reference: Callable[[np.ndarray], np.ndarray], lo: float = -100.0, hi: float = -80.0
) -> float:
    """The smallest float32 x in [lo, hi] whose correctly rounded ``reference`` is normal.

    Bisected; ``|reference|`` must cross 2^-126 once in the interval, rising with x (the
    gradients of Mish and SiLU fall like x·e^x as x goes to -inf).
    """
    return first_true(lambda x: np.abs(reference(x)) >= FLOAT32_TINY, float32, lo, hi)


#: MishGrad's regions: the root window around x ~ -1.19243, reported on its own and sampled
#: densely, and where its d is subnormal (d ~ (1 + x) e^x < 2^-126).
MISH_GRAD_REGIONS: Final = Regions((-1.25, -1.15), subnormal_edge(dmish_oracle))
ROOT_WINDOW: Final = MISH_GRAD_REGIONS.window
FLOAT32_SUBNORMAL_EDGE: Final = MISH_GRAD_REGIONS.subnormal_edge


def result_and_truth(result: npt.ArrayLike, truth: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Both as native arrays of MishGrad's dtypes (:func:`~mishgrad.math.dtypes.as_floats`).

    The measures read the floats' bits, so a ``>f4`` array must be converted, not viewed.
    """
    return as_floats(result, "result"), as_floats(truth, "truth")


def ulp_distance(result: npt.ArrayLike, truth: npt.ArrayLike) -> np.ndarray:
    """ULPs between ``result`` and ``truth`` (same dtype, any byte order), as float64.

    Zero for equal values (``+0`` and ``-0`` are equal, and so are two NaNs); ``inf``
    where exactly one side is NaN.
    """
    result, truth = result_and_truth(result, truth)
    if result.dtype != truth.dtype:
        raise ValueError(f"dtypes differ: {result.dtype} vs {truth.dtype}")
    distance = np.asarray(np.abs(ordered(result) - ordered(truth)), dtype=np.float64)
    result_nan = np.isnan(result.astype(np.float64))
    truth_nan = np.isnan(truth.astype(np.float64))
    distance[result_nan | truth_nan] = np.inf
    distance[result_nan & truth_nan] = 0.0
    return distance


def misses_target(
    x: npt.ArrayLike,
    result: npt.ArrayLike,
    truth: npt.ArrayLike,
    regions: Regions = MISH_GRAD_REGIONS,
) -> np.ndarray:
    """Return where a finite result misses the accuracy target of its dtype.

    float16, bfloat16
        More than the dtype's ``max_ulp`` (its record in :data:`~mishgrad.math.dtypes.TABLE`)
        from the correctly rounded truth.
    float32
        More than its ``max_ulp`` for x >= 0; relative error above its ``max_rel_error``
        where d is normal; absolute error above the window's in :attr:`Regions.window` (the
        operator's ``regions``, MishGrad's by default) and above
        :data:`FLOAT32_MAX_ABS_ERROR_SUBNORMAL` where d is subnormal.

    NaN and infinite results are not flagged here: :func:`failure_masks` names them.
    """
    result, truth = result_and_truth(result, truth)
    r64, t64 = result.astype(np.float64), truth.astype(np.float64)
    both = np.isfinite(r64) & np.isfinite(t64)
    distance = np.where(both, ulp_distance(result, truth), 0.0)
    target = record(result.dtype)
    if target.exhaustive:
        return both & (distance > target.max_ulp)
    x64 = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        absolute = np.where(both, np.abs(r64 - t64), 0.0)
        relative = np.where(both & (t64 != 0), absolute / np.abs(t64), 0.0)
    return both & (
        ((x64 >= 0) & (distance > target.max_ulp))
        | (regions.normal(x64) & (relative > target.max_rel_error))
        | (regions.in_window(x64) & (absolute > regions.window_abs_error))
        | (regions.subnormal(x64) & (absolute > FLOAT32_MAX_ABS_ERROR_SUBNORMAL))
    )


def failure_masks(
    x: npt.ArrayLike,
    result: npt.ArrayLike,
    truth: npt.ArrayLike,
    regions: Regions = MISH_GRAD_REGIONS,
) -> dict[str, np.ndarray]:
    """Return boolean masks of the kinds of failure: ``result`` against the correct ``truth``.

    ``NaN`` and ``±Inf``
        The result is NaN (or infinite) where the truth is finite.
    ``wrong sign``
        Result and truth are both nonzero and of opposite signs.
    ``inaccurate``
        Finite, of the right sign, but beyond the dtype's target (:func:`misses_target`, with
        the operator's ``regions``).
    """
    result, truth = result_and_truth(result, truth)
    r64, t64 = result.astype(np.float64), truth.astype(np.float64)
    finite_truth = np.isfinite(t64)
    with np.errstate(invalid="ignore"):
        wrong_sign = r64 * t64 < 0
    return {
        "NaN": np.isnan(r64) & finite_truth,
        "±Inf": np.isinf(r64) & finite_truth,
        "wrong sign": wrong_sign,
        "inaccurate": misses_target(x, result, truth, regions) & ~wrong_sign,
    }
