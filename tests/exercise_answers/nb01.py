"""Right and wrong answers to notebook 01's exercises."""

from __future__ import annotations

import numpy as np
import sympy as sp

from exercise_answers import Case, replace_in
from mishgrad.book.exercises import nb01
from mishgrad.math import symbolic


def dmish_v2(x: np.ndarray) -> np.ndarray:
    """d = t + x s (1 - t^2) from e = e^-|x| alone: no overflow, no lost tail, no inf * 0.

    t goes through MishGradV2's softplus, s is 1 / (1 + e) or e / (1 + e), and x is clipped to
    +-1000, where d is already 1 or 0, so that the infinities multiply no inf by 0.
    """
    x = np.clip(x, -1000.0, 1000.0)
    e = np.exp(-np.abs(x))
    t = np.tanh(np.maximum(x, 0) + np.log1p(e))
    s = np.where(x > 0, 1.0, e) / (1 + e)
    return t + x * s * (1 - t * t)


def dmish_naive(x: np.ndarray) -> np.ndarray:
    """A wrong answer: log(1 + e^x) rounds 1 + e^x to 1 for x < -37, so t becomes 0."""
    t = np.tanh(np.log(1 + np.exp(x)))
    return t + x * (1 - t * t) / (1 + np.exp(-x))


def dmish_textbook(x: np.ndarray) -> np.ndarray:
    """The typical mistake: the textbook t = tanh(log1p(e^x)) and s = 1 / (1 + e^-x).

    Right on [-700, 700]; beyond x = -709.78, e^-x overflows, s becomes 0 and d takes t's
    sign, not its own; at +-inf, x (1 - t^2) is inf * 0 = NaN.
    """
    t = np.tanh(np.log1p(np.exp(x)))
    return t + x * (1 - t * t) / (1 + np.exp(-x))


def edited_kernel_d_old_v(x: float) -> float:
    """The typical mistake of exercise 5: V kept at 1 + e.

    sigma = 2 + e enters D and S, but not V, which is sigma itself for x <= 0.
    """
    e, a = np.exp(-abs(x)), -abs(x)
    sigma = 2 + e
    v = 2 * e if x > 0 else 1 + e
    denominator = 1 + sigma * v
    s = 2 * sigma * v if x > 0 else v * denominator + denominator + 2 * e
    leading, p = (1.0, 1.0) if x > 0 else (1 + x, e)
    return p * (leading - e * (s * a + v * denominator) / denominator**2)


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
EDITED_OLD_V = tuple(round(edited_kernel_d_old_v(x), 4) for x in nb01.KERNEL_PROBES)
UNEDITED = tuple(float(v) for v in np.round(nb01.exact(symbolic.dmish(), nb01.KERNEL_PROBES), 4))


CASES = [
    # The typical mistake: tanh(ln 3), softplus forgotten.
    Case(
        nb01.check_t_at_ln3,
        right=sp.Rational(15, 17),
        plausible=sp.Rational(4, 5),
        wrong=sp.Rational(3, 5),
    ),
    # The typical mistake: the printed formula's sign kept.
    Case(nb01.check_sign_only, right=SIGN_ONLY_AT_LN2, plausible=PRINTED_AT_LN2),
    # The typical mistake: d - 1 searched on a grid of step 1e-3, not refined.
    Case(
        nb01.check_crossing,
        right=CROSSING,
        plausible=round(CROSSING, 3),
        wrong=CROSSING + 2e-6,
    ),
    Case(nb01.check_dmish, right=dmish_v2, plausible=dmish_textbook, wrong=dmish_naive),
    Case(
        nb01.check_kernel_edit,
        right=EDITED,
        plausible=EDITED_OLD_V,
        wrong=UNEDITED,
        edit=lambda s: replace_in(
            s,
            "op_kernel/mish_grad.h",
            "Adds(w, e, 1.0f, count);",
            "Adds(w, e, 2.0f, count);",
        ),
    ),
]
