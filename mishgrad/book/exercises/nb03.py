"""Checkers for notebook 03 (where the formulas break)."""

from collections.abc import Callable
from typing import Final

import numpy as np

from mishgrad.math import dtypes, oracle, thresholds

from . import Verdict, checker, correct, learner_function, wrong
from .learner import learner_result, number_verdict

_SEED: Final = 4711
#: Every float16 of this range, where B1 in float16 arithmetic goes from accurate to NaN.
_PROBE_RANGE: Final = (-24.0, 24.0)


def _b1_probe() -> np.ndarray:
    """Every float16 in the probe range, in a seeded order, infinities included."""
    x = dtypes.all_values("float16")
    x = x[(x >= _PROBE_RANGE[0]) & (x <= _PROBE_RANGE[1])]
    x = np.concatenate([x, np.array([np.inf, -np.inf], np.float16)])
    return np.random.default_rng(_SEED).permutation(x)


def b1_float16(x: np.ndarray) -> np.ndarray:
    """The reference: v1's tanhx formula B1 with every operation rounded to float16."""
    t = oracle.tanh_softplus_oracle(x)
    e = np.exp(x)
    q = x * e
    r = t * t - 1
    s = 1 / (e + 1)
    return t - q * r * s


@learner_function("pass your function itself: check_b1_float16(b1_float16)")
def check_b1_float16(function: Callable[[np.ndarray], np.ndarray]) -> Verdict:
    """Write-code: B1 in float16 arithmetic, in the order the exercise gives."""
    x = _b1_probe()
    result = learner_result(function, x)
    with np.errstate(all="ignore"):
        expected = b1_float16(x)
    if not np.array_equal(np.isnan(result), np.isnan(expected)):
        return wrong(
            "your function returns NaN at other inputs than B1 in float16 does — hint: keep "
            "every intermediate a float16 array (a float32 constant or np.float32 widens them)"
        )
    if not np.array_equal(result, expected, equal_nan=True):
        return wrong("some values differ — hint: follow the order of operations given, in float16")
    first = float(np.min(x[np.isnan(expected) & np.isfinite(x)].astype(np.float64)))
    return correct(
        f"in float16 arithmetic B1 returns NaN from x = {first:g} on: x·eˣ overflows float16 "
        "while t, rounded to float16, is already 1"
    )


@checker
def check_one_plus_e(answer: object) -> Verdict:
    """The smallest bfloat16 x at which ``1 + np.exp(-x)`` is exactly 1 in bfloat16 arithmetic."""
    expected = thresholds.first_true(lambda x: 1 + np.exp(-x) == 1, "bfloat16", 0.0, 100.0)
    return number_verdict(
        answer,
        dtypes.bfloat16,
        expected,
        hint="not quite — hint: 1 + e rounds to 1 once e is at most half an ULP of 1 in bfloat16 "
        "(a tie goes to the even neighbour, 1); e^(−x) is itself rounded to bfloat16",
        off_grid="your x is not a bfloat16 value, and the answer is one: the smallest bfloat16 x "
        "at which 1 + np.exp(-x) is exactly 1 in bfloat16 arithmetic. Which bfloat16 values "
        "are the neighbours of yours, and what does each give?",
    )
