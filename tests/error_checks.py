"""How close is close enough for the tests: the operator's tolerance, and failure regions.

:func:`operator_close` is what the aclnn tests accept from the operator (every dtype, every
backend); :func:`failure_regions` and :func:`mask_intervals` turn where a formula fails
(:func:`mishgrad.math.errors.failure_masks`) into x intervals per kind of failure
(:data:`FAILURE_KINDS`), which the tests compare with the thresholds.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from mishgrad.math.dtypes import record
from mishgrad.math.errors import (
    FLOAT32_MAX_ABS_ERROR_SUBNORMAL,
    failure_masks,
    result_and_truth,
    ulp_distance,
)


def operator_close(result: npt.ArrayLike, truth: npt.ArrayLike) -> np.ndarray:
    """Where an operator result ``grad * d`` is as close to the oracle as the targets promise.

    The one tolerance for every run of the whole operator, on the twin under any numerics
    model and on an NPU (``MISHGRAD_BACKEND=ascend``): it follows from the targets, not from
    one machine's last bits. float16/bfloat16: d is within the float32 relative error target
    before ``grad * d`` is rounded once, so the result is within its ``max_ulp`` (1 ULP).
    float32: its ``max_rel_error`` plus one
    rounding of the product, with :data:`FLOAT32_MAX_ABS_ERROR_SUBNORMAL` times 2 as the
    absolute floor where the result is subnormal; or within 2 ULP. Equal NaNs are close.
    Arrays of any byte order; lists are float32.
    """
    result, truth = result_and_truth(result, truth)
    distance = ulp_distance(result, truth)
    target = record(result.dtype)
    if target.exhaustive:
        return distance <= target.max_ulp
    wide_result, wide_truth = result.astype(np.float64), truth.astype(np.float64)
    with np.errstate(invalid="ignore"):
        allowed = (target.max_rel_error + 2.0**-24) * np.abs(wide_truth)
        near = np.abs(wide_result - wide_truth) <= allowed + 2 * FLOAT32_MAX_ABS_ERROR_SUBNORMAL
    return (distance <= 2) | near


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


#: Kinds of failure, in the order region charts draw them.
FAILURE_KINDS: Final = ("NaN", "±Inf", "wrong sign", "inaccurate")


def failure_regions(
    x: npt.ArrayLike, result: npt.ArrayLike, truth: npt.ArrayLike
) -> dict[str, list[tuple[float, float]]]:
    """Return the x intervals of each failure kind (``x`` sorted), via ``mask_intervals``."""
    return {kind: mask_intervals(x, mask) for kind, mask in failure_masks(x, result, truth).items()}
