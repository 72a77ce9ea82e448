"""Right and wrong answers for notebook 09's checkers."""

from __future__ import annotations

import numpy as np

from exercise_answers import Case
from mishgrad import dtypes
from mishgrad.exercises import nb09

_T = {"float32": 2.0**-13, "float16": 2.0**-10, "bfloat16": 2.0**-7}


def _ulp(golden, dtype_name):
    dtype = dtypes.as_dtype(dtype_name)
    return np.abs(np.spacing(np.abs(golden).astype(dtype))).astype(np.float64)


def allowed_ulps(golden, dtype_name):
    return 10 * _T[dtype_name] * (np.abs(golden) + 1e-7) / _ulp(golden, dtype_name)


def allowed_ulps_without_floor(golden, dtype_name):
    # A plausible mistake: the allowance taken as purely relative, 10 T |g|.
    return 10 * _T[dtype_name] * np.abs(golden) / _ulp(golden, dtype_name)


CASES = [
    Case(nb09.check_allowed_ulps, right=allowed_ulps, wrong=allowed_ulps_without_floor),
    # 101 and 103 float16 subnormal steps: with the floor 1e-7, and without it.
    Case(nb09.check_allowance, right=101 * 2.0**-24, wrong=103 * 2.0**-24),
    # The float32 stretch (printed in the notebook) would give 6.
    Case(nb09.check_sample_size, right=3, wrong=6),
]
