"""Checkers for notebook 01's exercises (Mish and its gradient).

Each checker computes its expected answer here, at parameters no cell of the notebook
prints: the exact ``t`` at ``x = ln 3``, the sign-only repair of the README's formula at
``x = ln 2``, the crossing of ``d = 1``, a learner's float64 ``d(x)`` at points of the
checker's choosing, and the prediction for an edited scratch copy of the kernel.
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from mishgrad.kernel.scratch import ScratchKernel
from mishgrad.math import symbolic

from . import UNANSWERED, Verdict, call_learner, correct, learner_function, wrong

#: Where the learner's d(x) is evaluated: both signs, the root, the extremes of d, and
#: arguments whose exponentials overflow float64 if formed the naive way.
DMISH_POINTS = (-700.0, -333.3, -41.5, -7.25, -2.2, -1.19, -0.3, 0.0, 0.45, 1.6, 9.1, 52.0, 711.0)
#: Accept a float64 d(x) within this relative error, plus an allowance of this many times
#: |t| for the cancellation of t + x s (1 - t^2) near the root of d.
DMISH_REL, DMISH_CANCEL = 1e-12, 1e-15
#: The inputs of the kernel-edit exercise (outside the root window, one of each sign).
KERNEL_PROBES = (-2.5, 0.7)


def exact(expr: sp.Expr, points: tuple[float, ...], digits: int = 400) -> np.ndarray:
    """``expr`` (in x) at ``points`` through mpmath at ``digits`` digits, rounded to float64.

    ``log(1 + e^x)`` keeps e^x only when the working precision spans it: 400 digits do so
    down to x = -900.
    """
    with mpmath.workdps(digits):
        function = sp.lambdify(symbolic.x, expr, "mpmath")
        return np.array([float(function(mpmath.mpf(p))) for p in points])


def check_t_at_ln3(answer: object) -> Verdict:
    """Exercise 1: t(ln 3) exactly, as a SymPy Rational."""
    if answer is None:
        return UNANSWERED
    exact = sp.cancel(symbolic.to_rational(symbolic.tanh_softplus()).subs(symbolic.E, 3))
    try:
        value = sp.sympify(answer)
    except (sp.SympifyError, TypeError):
        return wrong("give a number, e.g. sp.Rational(p, q)")
    if not isinstance(value, sp.Basic):
        return wrong("give one number, e.g. sp.Rational(p, q)")
    if value == exact and value.is_Rational:
        return correct()
    if value.is_Float or isinstance(answer, float):
        return wrong("give the exact value as sp.Rational(p, q), not a float")
    return wrong("t is a rational function of E = e^x; what is E at x = ln 3?")


def check_sign_only(answer: object) -> Verdict:
    """Exercise 2: (t + x(1 - t^2)e^x)/(1 + e^x) - d at x = ln 2, exactly."""
    if answer is None:
        return UNANSWERED
    t_x, ex = symbolic.tanh_softplus(), sp.exp(symbolic.x)
    sign_fixed = (t_x + symbolic.x * (1 - t_x**2) * ex) / (1 + ex)
    expected = symbolic.difference(sign_fixed).subs({symbolic.x: sp.log(2), symbolic.E: 2})
    try:
        same = sp.simplify(sp.sympify(answer) - expected) == 0
    except (sp.SympifyError, TypeError):
        return wrong("give an exact SymPy number")
    if same:
        return correct("fixing the sign is not enough: t must not be divided by 1 + e^x")
    return wrong(
        "keep the division of the whole bracket, change only the sign, and remember that "
        "x = ln 2 means E = 2 in the rational form (give x as sp.log(2), not a float)"
    )


def check_crossing(answer: object) -> Verdict:
    """Exercise 3: the x > 0 at which d crosses its limit 1."""
    if answer is None:
        return UNANSWERED
    (crossing,) = symbolic.sign_change_roots(symbolic.dmish() - 1, 0.0, 10.0)
    try:
        distance = abs(float(answer) - float(crossing))
    except (TypeError, ValueError):
        return wrong("give one number, the x at which d(x) = 1")
    if distance < 1e-6:
        return correct()
    return wrong(
        "d - 1 is negative at x = 0 and positive where d is largest: bracket its zero "
        "there and refine (bisection, or mpmath.findroot) until the bracket is below 1e-6"
    )


@learner_function("pass the function itself: check_dmish(dmish)")
def check_dmish(dmish: object) -> Verdict:
    """Exercise 4 (write code): a float64 NumPy d(x), accurate on both signs, no overflow."""
    points = np.array(DMISH_POINTS)
    with np.errstate(all="ignore"):
        got, failed = call_learner(dmish, points.copy())
    if failed is not None:
        return failed
    if got is None:  # the scaffold, not yet written
        return UNANSWERED
    try:
        got = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return wrong("return a NumPy array of floats")
    if got.shape != points.shape:
        return wrong(f"return one value per input: an array of shape {points.shape}")
    truth = exact(symbolic.dmish(), DMISH_POINTS)
    allowed = DMISH_REL * np.abs(truth) + DMISH_CANCEL * exact(
        symbolic.tanh_softplus(), DMISH_POINTS
    )
    bad = ~(np.abs(got - truth) <= allowed)
    if not bad.any():
        return correct()
    worst = points[bad]
    return wrong(
        f"off at x = {', '.join(f'{p:g}' for p in worst)}: where does an exponential overflow, "
        "or log(1 + tiny) lose the tiny part, for that sign of x?"
    )


def _kernel_d(scratch: ScratchKernel) -> np.ndarray:
    probe = np.array(KERNEL_PROBES, dtype=np.float32)
    return scratch.run_kernel(np.ones_like(probe), probe).out.astype(np.float64)


def check_kernel_edit(answer: object, scratch: ScratchKernel) -> Verdict:
    """Exercise 5 (edit the kernel): predict (d(-2.5), d(0.7)) of the edited scratch copy."""
    if answer is None:
        return UNANSWERED
    if not scratch.edited():
        return wrong(f"edit the copy first ({scratch}/op_kernel/mish_grad.h), then re-run")
    if np.shape(answer) != (2,):
        return wrong("give a pair (d(-2.5), d(0.7)) to 4 decimals")
    try:
        predicted = np.asarray(answer, dtype=np.float64)
    except (TypeError, ValueError):
        return wrong("give two numbers")
    kernel, failed = call_learner(_kernel_d, scratch)  # an edit that does not build: a verdict
    if failed is not None:
        return failed
    if np.allclose(predicted, kernel, atol=5e-5, rtol=0):
        return correct("your algebra predicts what the edited kernel computes")
    return wrong(
        "sigma enters V (for x <= 0), D = 1 + sigma V and S; the leading term L and the "
        "factor P do not change. Which V, S, L and P does each sign of x take?"
    )
