"""Checkers for notebook 03 (where the formulas break).

The inputs a learner's ``v1_sign_split`` is called on come from this module's own seed and
ranges; no cell prints them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from .. import dtypes, errors, oracle, thresholds
from . import Verdict, correct, wrong
from .learner import learner_result, number_verdict

_SEED: Final = 4711
#: Where v1's drift must show: its error there reaches tens of ULP, ours stays within 2.
_DRIFT_RANGE: Final = (8.0, 16.0)
_DRIFT_MIN_ULP: Final = 8.0
#: A formula that computes d at all is within this relative error away from the root window.
_LOOSE_REL_ERROR: Final = 1e-3


def _sign_split_probe() -> np.ndarray:
    """Seeded float32 inputs over [-80, 80] and the drift range, both signs, zeros included."""
    rng = np.random.default_rng(_SEED)
    parts = [rng.uniform(-80, 80, 20_000), rng.uniform(*_DRIFT_RANGE, 20_000), [0.0, -0.0]]
    return np.concatenate(parts).astype(np.float32)


def check_sign_split(function: Callable[[np.ndarray], np.ndarray] | None) -> Verdict:
    """Write-code: v1's sign split in NumPy float32, with its drift for large x."""
    x = _sign_split_probe()
    result, verdict = learner_result(function, x, "check_sign_split(v1_sign_split)")
    if verdict is not None:
        return verdict
    if not np.all(np.isfinite(result)):
        return wrong(
            "some results are NaN or infinite — hint: a vector unit computes both halves; "
            "how does the merge keep the masked-out half (which may be NaN) out of the sum?"
        )
    truth = oracle.dmish_oracle(x)
    away = ~errors.in_root_window(x) & (x > -80)
    relative = np.abs(result[away].astype(np.float64) / truth[away].astype(np.float64) - 1)
    if relative.max() > _LOOSE_REL_ERROR:
        return wrong("some results are far from d — hint: check each half's formula and its sign")
    drift = (x >= _DRIFT_RANGE[0]) & (x <= _DRIFT_RANGE[1])
    if errors.ulp_distance(result[drift], truth[drift]).max() < _DRIFT_MIN_ULP:
        return wrong(
            "your function is more accurate than v1 for large x — hint: v1 forms 1 − t·t from "
            "the rounded t, in float32"
        )
    return correct("that is v1's formula, drift included")


def check_one_plus_e(answer: object) -> Verdict:
    """The smallest bfloat16 x at which ``1 + np.exp(-x)`` is exactly 1 in bfloat16 arithmetic."""
    expected = thresholds.first_true(lambda x: 1 + np.exp(-x) == 1, "bfloat16", 0.0, 100.0)
    return number_verdict(
        answer,
        dtypes.bfloat16,
        expected,
        "not quite — hint: 1 + e rounds to 1 once e is at most half an ULP of 1 in bfloat16 "
        "(a tie goes to the even neighbour, 1); e^(−x) is itself rounded to bfloat16",
    )
