"""Right and wrong answers for notebook 03's checkers."""

from __future__ import annotations

import numpy as np

from mishgrad import numerics
from mishgrad.exercises.nb03 import check_one_plus_e, check_sign_split

from . import Case


def _v1_sign_split(x: np.ndarray) -> np.ndarray:
    """Both halves everywhere, merged by the sign; 1 - t*t from the rounded t."""
    u, v = np.exp(-x), np.exp(-2 * x)
    t_pos = (1 + 2 * u) / (1 + 2 * u + 2 * v)
    d_pos = t_pos + x / (1 + u) * (1 - t_pos * t_pos)
    w, w2 = np.exp(x), np.exp(2 * x)
    t_neg = (2 * w + w2) / (2 * w + w2 + 2)
    d_neg = t_neg + x * w / (w + 1) * (1 - t_neg * t_neg)
    return np.where(x > 0, np.nan_to_num(d_pos), np.nan_to_num(d_neg)).astype(np.float32)


CASES = [
    # The plausible mistake: our own form, which is accurate and so does not drift.
    Case(check_sign_split, right=_v1_sign_split, wrong=numerics.dmish_ours),
    Case(check_one_plus_e, right=5.5625, wrong=5.53125),
]
