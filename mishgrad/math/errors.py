"""Measuring error: ULP distances, summaries, and the accuracy targets.

The unit of error is the ULP of the *output* dtype: the distance between a result and
the correctly rounded truth, counted in representable values (see
:func:`mishgrad.math.dtypes.ordered`). Near the root of d (x ~ -1.19243) the derivative
passes through zero: a method that forms d = t + p from a rounded t keeps an absolute
error of about half an ULP of t there, which is a large *relative* error; a root-centred
evaluation does not (:mod:`mishgrad.math.numerics`). :data:`ROOT_WINDOW` marks that band,
where the float32 relative error is also reported on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from .dtypes import as_floats, float32, from_ordered, ordered
from .oracle import dmish_oracle

#: x interval around the root of dmish/dx, reported on its own (and sampled densely).
ROOT_WINDOW: Final = (-1.25, -1.15)

#: The smallest normal float32, 2^-126.
FLOAT32_TINY: Final = float(np.finfo(np.float32).tiny)


def _float32_normal_edge() -> float:
    """The smallest float32 x whose correctly rounded d is a normal float32 (bisection)."""
    below, above = ordered(np.array([-100.0, -80.0], dtype=float32)).tolist()
    while above - below > 1:
        middle = (below + above) // 2
        d = dmish_oracle(from_ordered(np.array([middle]), float32))
        if abs(float(d[0])) >= FLOAT32_TINY:
            above = middle
        else:
            below = middle
    return float(from_ordered(np.array([above]), float32)[0])


#: Below this x the correctly rounded float32 d is subnormal (d ~ (1 + x) e^x < 2^-126):
#: there only an absolute error can be asked for.
FLOAT32_SUBNORMAL_EDGE: Final = _float32_normal_edge()

# The accuracy targets. Notebook 03 states the figure each is anchored in (v1's and V2's
# measured errors, PyTorch's CPU formula, CANN's precision thresholds, AscendC's documented
# Exp and Div accuracy); notebook 11 checks that they hold under every numerics model of the twin.
#: float16 and bfloat16, every finite input: largest ULP error, share correctly rounded.
HALF_MAX_ULP: Final = 1.0
HALF_CORRECTLY_ROUNDED_PCT: Final = 99.9
#: float32: ULP error for x >= 0; relative error wherever the correctly rounded d is
#: normal (root window included); absolute error in the root window and where d is
#: subnormal.
FLOAT32_MAX_ULP_POSITIVE: Final = 4.0
FLOAT32_MAX_REL_ERROR: Final = 1e-5
FLOAT32_MAX_ABS_ERROR_ROOT: Final = 1e-7
FLOAT32_MAX_ABS_ERROR_SUBNORMAL: Final = FLOAT32_TINY
#: float32, per numerics model: the share of results within 1 ULP on uniform[-20, 20], where
#: training activations live. Under ``ieee`` it must beat PyTorch's CPU formula (notebook 03);
#: merely faithful Exp and Div cost every formula some of it, so the other models ask less.
FLOAT32_WITHIN_1ULP_UNIFORM_PCT: Final = {"ieee": 92.0, "hardware": 82.0, "adversarial": 78.0}


def _result_and_truth(result: npt.ArrayLike, truth: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Both as native arrays of MishGrad's dtypes (:func:`~mishgrad.math.dtypes.as_floats`).

    The measures read the floats' bits, so a ``>f4`` array must be converted, not viewed.
    """
    return as_floats(result, "result"), as_floats(truth, "truth")


def operator_close(result: npt.ArrayLike, truth: npt.ArrayLike) -> np.ndarray:
    """Where an operator result ``grad * d`` is as close to the oracle as the targets promise.

    The one tolerance for every run of the whole operator, on the twin under any numerics
    model and on an NPU (``MISHGRAD_BACKEND=ascend``): it follows from the targets, not from
    one machine's last bits. float16/bfloat16: d is within the float32 relative error target
    before ``grad * d`` is rounded once, so the result is within 1 ULP
    (:data:`HALF_MAX_ULP`). float32: relative error :data:`FLOAT32_MAX_REL_ERROR` plus one
    rounding of the product, with :data:`FLOAT32_MAX_ABS_ERROR_SUBNORMAL` times 2 as the
    absolute floor where the result is subnormal; or within 2 ULP. Equal NaNs are close.
    Arrays of any byte order; lists are float32.
    """
    result, truth = _result_and_truth(result, truth)
    distance = ulp_distance(result, truth)
    if result.dtype != np.float32:
        return distance <= HALF_MAX_ULP
    wide_result, wide_truth = result.astype(np.float64), truth.astype(np.float64)
    with np.errstate(invalid="ignore"):
        allowed = (FLOAT32_MAX_REL_ERROR + 2.0**-24) * np.abs(wide_truth)
        near = np.abs(wide_result - wide_truth) <= allowed + 2 * FLOAT32_MAX_ABS_ERROR_SUBNORMAL
    return (distance <= 2) | near


def ulp_distance(result: npt.ArrayLike, truth: npt.ArrayLike) -> np.ndarray:
    """ULPs between ``result`` and ``truth`` (same dtype, any byte order), as float64.

    Zero for equal values (``+0`` and ``-0`` are equal, and so are two NaNs); ``inf``
    where exactly one side is NaN.
    """
    result, truth = _result_and_truth(result, truth)
    if result.dtype != truth.dtype:
        raise ValueError(f"dtypes differ: {result.dtype} vs {truth.dtype}")
    distance = np.asarray(np.abs(ordered(result) - ordered(truth)), dtype=np.float64)
    result_nan = np.isnan(result.astype(np.float64))
    truth_nan = np.isnan(truth.astype(np.float64))
    distance[result_nan | truth_nan] = np.inf
    distance[result_nan & truth_nan] = 0.0
    return distance


@dataclass(frozen=True)
class ErrorSummary:
    """How far one formula's results are from the truth over one set of inputs.

    Attributes
    ----------
    count
        Number of inputs.
    max_ulp
        Largest ULP distance where both result and truth are finite.
    correctly_rounded_pct, within_1ulp_pct
        Share of inputs with distance 0, and with distance <= 1 (percent).
    spurious_nonfinite
        Results that are NaN or infinite where the truth is finite.
    wrong_sign
        Results whose sign is opposite to the truth (both nonzero).
    max_rel_error
        Largest ``|result - truth| / |truth|`` over the relative-error mask (NaN if empty).
    max_abs_error
        Largest ``|result - truth|`` over the absolute-error mask (NaN if empty).

    """

    count: int
    max_ulp: float
    correctly_rounded_pct: float
    within_1ulp_pct: float
    spurious_nonfinite: int
    wrong_sign: int
    max_rel_error: float
    max_abs_error: float


def _masked_max(values: np.ndarray, mask: np.ndarray) -> float:
    return float(values[mask].max()) if mask.any() else float("nan")


def _percent(mask: np.ndarray) -> float:
    return 100.0 * float(np.mean(mask)) if mask.size else float("nan")


def summarize(
    result: npt.ArrayLike,
    truth: npt.ArrayLike,
    *,
    rel_mask: npt.ArrayLike | None = None,
    abs_mask: npt.ArrayLike | None = None,
) -> ErrorSummary:
    """Summarize ``result`` against the correctly rounded ``truth`` (same dtype and shape).

    Parameters
    ----------
    result, truth
        Arrays of one dtype (any byte order); ``truth`` from :mod:`mishgrad.math.oracle`.
    rel_mask
        Where relative error counts; default: wherever the truth is finite and nonzero.
    abs_mask
        Where absolute error counts; default: nowhere.

    """
    result, truth = map(np.ravel, _result_and_truth(result, truth))
    r64, t64 = result.astype(np.float64), truth.astype(np.float64)
    distance = ulp_distance(result, truth)
    both_finite = np.isfinite(r64) & np.isfinite(t64)
    with np.errstate(invalid="ignore", divide="ignore"):
        abs_error = np.abs(r64 - t64)
        rel_error = abs_error / np.abs(t64)
    valid_rel = both_finite & (t64 != 0)
    rel = valid_rel if rel_mask is None else valid_rel & np.ravel(rel_mask)
    absolute = np.zeros_like(both_finite) if abs_mask is None else both_finite & np.ravel(abs_mask)
    return ErrorSummary(
        count=int(result.size),
        max_ulp=_masked_max(distance, both_finite),
        correctly_rounded_pct=_percent(distance == 0),
        within_1ulp_pct=_percent(distance <= 1),
        spurious_nonfinite=int(np.sum(~np.isfinite(r64) & np.isfinite(t64))),
        wrong_sign=int(np.sum(r64 * t64 < 0)),
        max_rel_error=_masked_max(rel_error, rel),
        max_abs_error=_masked_max(abs_error, absolute),
    )


def in_root_window(x: npt.ArrayLike) -> np.ndarray:
    """True where x lies in :data:`ROOT_WINDOW` (inclusive)."""
    x = np.asarray(x, dtype=np.float64)
    return (x >= ROOT_WINDOW[0]) & (x <= ROOT_WINDOW[1])


def float32_rel_mask(x: npt.ArrayLike) -> np.ndarray:
    """Where the float32 relative-error target applies: finite x whose d is normal."""
    x = np.asarray(x, dtype=np.float64)
    return (x >= FLOAT32_SUBNORMAL_EDGE) & np.isfinite(x)


def float32_subnormal_mask(x: npt.ArrayLike) -> np.ndarray:
    """Where the correctly rounded float32 d is subnormal (or zero): x below the edge."""
    return np.asarray(x, dtype=np.float64) < FLOAT32_SUBNORMAL_EDGE


@dataclass(frozen=True)
class Check:
    """One accuracy target, the measured value and whether it is met."""

    criterion: str
    measured: float
    target: str
    met: bool


def check_16bit(summary: ErrorSummary) -> list[Check]:
    """The float16/bfloat16 targets over every finite input."""
    return [
        Check("max ULP", summary.max_ulp, f"<= {HALF_MAX_ULP:g}", summary.max_ulp <= HALF_MAX_ULP),
        Check(
            "% correctly rounded",
            summary.correctly_rounded_pct,
            f">= {HALF_CORRECTLY_ROUNDED_PCT:g}",
            summary.correctly_rounded_pct >= HALF_CORRECTLY_ROUNDED_PCT,
        ),
        Check("spurious NaN/Inf", summary.spurious_nonfinite, "0", summary.spurious_nonfinite == 0),
    ]


def check_float32(whole: ErrorSummary, positive: ErrorSummary) -> list[Check]:
    """The float32 targets.

    Parameters
    ----------
    whole
        The documented sample, with :func:`float32_rel_mask` and the root window as masks.
    positive
        The sample's x >= 0 part.

    """
    return [
        Check("spurious NaN/Inf", whole.spurious_nonfinite, "0", whole.spurious_nonfinite == 0),
        Check("wrong sign", whole.wrong_sign, "0", whole.wrong_sign == 0),
        Check(
            "max ULP, x >= 0",
            positive.max_ulp,
            f"<= {FLOAT32_MAX_ULP_POSITIVE:g}",
            positive.max_ulp <= FLOAT32_MAX_ULP_POSITIVE,
        ),
        Check(
            "max rel. error where d is normal",
            whole.max_rel_error,
            f"<= {FLOAT32_MAX_REL_ERROR:g}",
            whole.max_rel_error <= FLOAT32_MAX_REL_ERROR,
        ),
        Check(
            "max abs. error in root window",
            whole.max_abs_error,
            f"<= {FLOAT32_MAX_ABS_ERROR_ROOT:g}",
            whole.max_abs_error <= FLOAT32_MAX_ABS_ERROR_ROOT,
        ),
    ]


def check_float32_uniform(uniform: ErrorSummary, model: str) -> Check:
    """The float32 target on uniform[-20, 20] under the numerics ``model``."""
    target = FLOAT32_WITHIN_1ULP_UNIFORM_PCT[model]
    return Check(
        "% within 1 ULP, uniform[-20, 20]",
        uniform.within_1ulp_pct,
        f">= {target:g}",
        uniform.within_1ulp_pct >= target,
    )


def check_float32_subnormal(tail: ErrorSummary) -> Check:
    """The float32 target where d is subnormal.

    ``tail`` summarizes inputs with :func:`float32_subnormal_mask` as its absolute mask.
    """
    return Check(
        "max abs. error where d is subnormal",
        tail.max_abs_error,
        "<= 2^-126",
        not tail.max_abs_error > FLOAT32_MAX_ABS_ERROR_SUBNORMAL,
    )


def mask_intervals(x: npt.ArrayLike, mask: npt.ArrayLike) -> list[tuple[float, float]]:
    """The maximal runs of sorted ``x`` where ``mask`` holds, as (first x, last x) pairs.

    ``x`` must be sorted (as :func:`mishgrad.math.dtypes.all_values` returns it); a run ends
    at the last sample where the mask holds, so the intervals are exact for exhaustive
    inputs and approximate to the sample spacing otherwise.
    """
    x = np.asarray(x, dtype=np.float64)
    mask = np.asarray(mask, dtype=bool)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(np.int8), [0]])))
    starts, stops = edges[::2], edges[1::2]
    return [(float(x[a]), float(x[b - 1])) for a, b in zip(starts, stops, strict=True)]


# --------------------------------------------------------------------------------------
# Where a formula fails: the kinds of failure the notebooks plot as regions.
# --------------------------------------------------------------------------------------

#: Kinds of failure, in the order region charts draw them.
FAILURE_KINDS: Final = ("NaN", "±Inf", "wrong sign", "inaccurate")


def misses_target(x: npt.ArrayLike, result: npt.ArrayLike, truth: npt.ArrayLike) -> np.ndarray:
    """Return where a finite result misses the accuracy target of its dtype.

    float16, bfloat16
        More than :data:`HALF_MAX_ULP` ULP from the correctly rounded truth.
    float32
        More than :data:`FLOAT32_MAX_ULP_POSITIVE` ULP for x >= 0; relative error above
        :data:`FLOAT32_MAX_REL_ERROR` where d is normal; absolute error above
        :data:`FLOAT32_MAX_ABS_ERROR_ROOT` in the root window and above
        :data:`FLOAT32_MAX_ABS_ERROR_SUBNORMAL` where d is subnormal.

    NaN and infinite results are not flagged here: :func:`failure_masks` names them.
    """
    result, truth = _result_and_truth(result, truth)
    r64, t64 = result.astype(np.float64), truth.astype(np.float64)
    both = np.isfinite(r64) & np.isfinite(t64)
    distance = np.where(both, ulp_distance(result, truth), 0.0)
    if result.dtype.itemsize == 2:
        return both & (distance > HALF_MAX_ULP)
    x64 = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        absolute = np.where(both, np.abs(r64 - t64), 0.0)
        relative = np.where(both & (t64 != 0), absolute / np.abs(t64), 0.0)
    return both & (
        ((x64 >= 0) & (distance > FLOAT32_MAX_ULP_POSITIVE))
        | (float32_rel_mask(x64) & (relative > FLOAT32_MAX_REL_ERROR))
        | (in_root_window(x64) & (absolute > FLOAT32_MAX_ABS_ERROR_ROOT))
        | (float32_subnormal_mask(x64) & (absolute > FLOAT32_MAX_ABS_ERROR_SUBNORMAL))
    )


def failure_masks(
    x: npt.ArrayLike, result: npt.ArrayLike, truth: npt.ArrayLike
) -> dict[str, np.ndarray]:
    """Return boolean masks of :data:`FAILURE_KINDS`: ``result`` against the correct ``truth``.

    ``NaN`` and ``±Inf``
        The result is NaN (or infinite) where the truth is finite.
    ``wrong sign``
        Result and truth are both nonzero and of opposite signs.
    ``inaccurate``
        Finite, of the right sign, but beyond the dtype's target (:func:`misses_target`).
    """
    result, truth = _result_and_truth(result, truth)
    r64, t64 = result.astype(np.float64), truth.astype(np.float64)
    finite_truth = np.isfinite(t64)
    with np.errstate(invalid="ignore"):
        wrong_sign = r64 * t64 < 0
    return {
        "NaN": np.isnan(r64) & finite_truth,
        "±Inf": np.isinf(r64) & finite_truth,
        "wrong sign": wrong_sign,
        "inaccurate": misses_target(x, result, truth) & ~wrong_sign,
    }


def failure_regions(
    x: npt.ArrayLike, result: npt.ArrayLike, truth: npt.ArrayLike
) -> dict[str, list[tuple[float, float]]]:
    """Return the x intervals of each failure kind (``x`` sorted), via ``mask_intervals``."""
    return {kind: mask_intervals(x, mask) for kind, mask in failure_masks(x, result, truth).items()}
