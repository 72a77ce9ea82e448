"""Right and wrong answers for notebook 10's checkers."""

from __future__ import annotations

import math

import numpy as np

from exercise_answers import Case
from mishgrad.book.exercises import nb10
from mishgrad.math import dtypes

_T = {"float32": 2.0**-13, "float16": 2.0**-10, "bfloat16": 2.0**-7}


def _ulp(golden, dtype_name):
    dtype = dtypes.as_dtype(dtype_name)
    return np.abs(np.spacing(np.abs(golden).astype(dtype))).astype(np.float64)


def allowed_ulps(golden, dtype_name):
    return 10 * _T[dtype_name] * (np.abs(golden) + 1e-7) / _ulp(golden, dtype_name)


def allowed_ulps_without_floor(golden, dtype_name):
    # A plausible mistake: the allowance taken as purely relative, 10 T |g|.
    return 10 * _T[dtype_name] * np.abs(golden) / _ulp(golden, dtype_name)


def _ulps_pass_from(ulps, floor=1e-7):
    # float16 values below 2**-14 are subnormals, all one ULP 2**-24 apart: the smallest
    # k 2**-24 with ulps 2**-24 < 10 T (k 2**-24 + floor), MARE's limit with its floor.
    step, limit = 2.0**-24, 10 * _T["float16"]
    k = math.floor((ulps * step / limit - floor) / step) + 1
    assert k * step < 2.0**-14  # still a subnormal, so the ULP is the step
    return k * step


CASES = [
    Case(nb10.check_allowed_ulps, right=allowed_ulps, plausible=allowed_ulps_without_floor),
    # Two ULPs. The typical mistake forgets the floor 1e-7; the wrong answer is the one-ULP
    # value (a near miss: no notebook prints it).
    Case(
        nb10.check_allowance,
        right=_ulps_pass_from(2),
        plausible=_ulps_pass_from(2, floor=0.0),
        wrong=_ulps_pass_from(1),
    ),
    # The typical mistake: the float32 stretch (printed in the notebook) gives 6; the wrong
    # answer rounds log10 down.
    Case(nb10.check_sample_size, right=3, plausible=6, wrong=2),
]
