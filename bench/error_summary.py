"""Error summaries of a batch of results, and the accuracy targets checked against them.

The targets themselves, and the ULP distance every summary counts in, are
:mod:`mishgrad.math.errors`' (notebook 03 states and derives them). Here a whole array of
results is summarised against the correctly rounded truth (:func:`summarize`,
:class:`ErrorSummary`) and each target is checked on a summary (:func:`check_exhaustive`,
:func:`check_float32`, :func:`check_float32_uniform`, :func:`check_float32_subnormal`, each
a list of :class:`Check`): ``bench/accuracy.py`` prints them, ``bench/exhaustive_run.py`` files
them, and the tests hold the kernel to them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mishgrad.math.dtypes import TABLE
from mishgrad.math.errors import (
    FLOAT32_MAX_ABS_ERROR_ROOT,
    FLOAT32_MAX_ABS_ERROR_SUBNORMAL,
    FLOAT32_WITHIN_1ULP_UNIFORM_PCT,
    result_and_truth,
    ulp_distance,
)


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
    result, truth = map(np.ravel, result_and_truth(result, truth))
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


@dataclass(frozen=True)
class Check:
    """One accuracy target, the measured value and whether it is met."""

    criterion: str
    measured: float
    target: str
    met: bool


def check_exhaustive(summary: ErrorSummary, dtype: str) -> list[Check]:
    """The targets of a dtype tested exhaustively (float16, bfloat16), over every finite input."""
    target = TABLE[dtype]
    return [
        Check(
            "max ULP", summary.max_ulp, f"<= {target.max_ulp:g}", summary.max_ulp <= target.max_ulp
        ),
        Check(
            "% correctly rounded",
            summary.correctly_rounded_pct,
            f">= {target.correctly_rounded_pct:g}",
            summary.correctly_rounded_pct >= target.correctly_rounded_pct,
        ),
        Check("spurious NaN/Inf", summary.spurious_nonfinite, "0", summary.spurious_nonfinite == 0),
    ]


def check_float32(whole: ErrorSummary, positive: ErrorSummary) -> list[Check]:
    """The float32 targets.

    Parameters
    ----------
    whole
        The documented sample, with MishGrad's normal region and root window as masks.
    positive
        The sample's x >= 0 part.

    """
    return [
        Check("spurious NaN/Inf", whole.spurious_nonfinite, "0", whole.spurious_nonfinite == 0),
        Check("wrong sign", whole.wrong_sign, "0", whole.wrong_sign == 0),
        Check(
            "max ULP, x >= 0",
            positive.max_ulp,
            f"<= {TABLE['float32'].max_ulp:g}",
            positive.max_ulp <= TABLE["float32"].max_ulp,
        ),
        Check(
            "max rel. error where d is normal",
            whole.max_rel_error,
            f"<= {TABLE['float32'].max_rel_error:g}",
            whole.max_rel_error <= TABLE["float32"].max_rel_error,
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

    ``tail`` summarizes inputs with MishGrad's subnormal region as its absolute mask.
    """
    return Check(
        "max abs. error where d is subnormal",
        tail.max_abs_error,
        "<= 2^-126",
        not tail.max_abs_error > FLOAT32_MAX_ABS_ERROR_SUBNORMAL,
    )
