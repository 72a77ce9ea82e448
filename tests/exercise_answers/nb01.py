"""Right and wrong answers to notebook 01's exercises."""

from __future__ import annotations

import numpy as np
import sympy as sp

from exercise_answers import Case, replace_in
from mishgrad.book.exercises import nb01
from mishgrad.math import symbolic


def dmish_v2(x: np.ndarray) -> np.ndarray:
    """d = t + x s (1 - t^2), t through MishGradV2's softplus: no overflow, no lost tail."""
    t = np.tanh(np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x))))
    return t + x * (1 - t * t) / (1 + np.exp(-x))


def dmish_naive(x: np.ndarray) -> np.ndarray:
    """A plausible mistake: log(1 + e^x) rounds 1 + e^x to 1 for x < -37, so t becomes 0."""
    t = np.tanh(np.log(1 + np.exp(x)))
    return t + x * (1 - t * t) / (1 + np.exp(-x))


def edited_kernel_d(x: float) -> float:
    """The kernel's d with sigma = 2 + e instead of 1 + e (the exercise's edit)."""
    e, a = np.exp(-abs(x)), -abs(x)
    sigma = 2 + e
    v = 2 * e if x > 0 else sigma
    denominator = 1 + sigma * v
    s = 2 * sigma * v if x > 0 else v * denominator + denominator + 2 * e
    leading, p = (1.0, 1.0) if x > 0 else (1 + x, e)
    return p * (leading - e * (s * a + v * denominator) / denominator**2)


def _gap_at_ln2(sign: int) -> sp.Expr:
    """(t + sign x (1 - t^2) e^x) / (1 + e^x) - d at x = ln 2, reduced in x and E = e^x."""
    x, t_x, ex = symbolic.x, symbolic.tanh_softplus(), sp.exp(symbolic.x)
    formula = (t_x + sign * x * (1 - t_x**2) * ex) / (1 + ex)
    return symbolic.difference(formula).subs({x: sp.log(2), symbolic.E: 2})


SIGN_ONLY_AT_LN2, PRINTED_AT_LN2 = _gap_at_ln2(+1), _gap_at_ln2(-1)
CROSSING = float(symbolic.sign_change_roots(symbolic.dmish() - 1, 0.5, 1.5, steps=10)[0])
EDITED = tuple(round(edited_kernel_d(x), 4) for x in nb01.KERNEL_PROBES)
UNEDITED = tuple(float(v) for v in np.round(nb01.exact(symbolic.dmish(), nb01.KERNEL_PROBES), 4))


CASES = [
    Case(nb01.check_t_at_ln3, right=sp.Rational(15, 17), wrong=sp.Rational(3, 5)),
    Case(nb01.check_sign_only, right=SIGN_ONLY_AT_LN2, wrong=PRINTED_AT_LN2),
    Case(nb01.check_crossing, right=CROSSING, wrong=CROSSING + 2e-6),
    Case(nb01.check_dmish, right=dmish_v2, wrong=dmish_naive),
    Case(
        nb01.check_kernel_edit,
        right=EDITED,
        wrong=UNEDITED,
        edit=lambda s: replace_in(
            s,
            "op_kernel/mish_grad.h",
            "Adds(w, e, 1.0f, count);",
            "Adds(w, e, 2.0f, count);",
        ),
    ),
]
