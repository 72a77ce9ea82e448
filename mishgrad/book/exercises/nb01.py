"""Checkers for notebook 01's exercises (Mish and its gradient)."""

from collections.abc import Callable
from fractions import Fraction
from typing import Final

import mpmath
import numpy as np
import sympy as sp

from mishgrad.kernel.scratch import ScratchKernel
from mishgrad.math import symbolic

from . import (
    EarlyVerdict,
    Verdict,
    call_on_copy,
    checker,
    correct,
    expect,
    is_number,
    learner_function,
    wrong,
    wrong_kind,
)
from .learner import learner_float, learner_numbers

#: Where the learner's d(x) is evaluated: both signs, the root, the extremes of d, the
#: infinities, and arguments whose exponentials overflow float64 if formed the naive way
#: (e^-x from x < -709.78 on, though d is a normal float64 down to x = -714.6).
DMISH_POINTS = (
    *(-np.inf, -714.0, -711.0, -700.0, -333.3, -41.5, -7.25, -2.2, -1.19, -0.3),
    *(0.0, 0.45, 1.6, 9.1, 52.0, 711.0, 1.0e4, np.inf),
)
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


def _is_rational(answer: object) -> bool:
    """A SymPy Rational, a Fraction or an int: an exact rational number, not a float."""
    return isinstance(answer, sp.Rational | Fraction | int) and not isinstance(answer, bool)


def _is_exact_number(answer: object) -> bool:
    """A rational, or a SymPy expression that is a number with no float in it (``log(2)``)."""
    if _is_rational(answer):
        return True
    return isinstance(answer, sp.Basic) and bool(answer.is_number) and not answer.has(sp.Float)


#: What the exact-value exercises say to an answer of another kind, and to a float: a float
#: is a number, but rounded, and the exercise asks for the value itself.
T_AT_LN3_USAGE: Final = "answer with one exact rational number, as sp.Rational(p, q)"
T_AT_LN3_ROUNDED_USAGE: Final = "a float is rounded: give the exact value, as sp.Rational(p, q)"
SIGN_ONLY_USAGE: Final = "answer with an exact SymPy number, with x as sp.log(2)"
SIGN_ONLY_ROUNDED_USAGE: Final = (
    "a float is rounded: give the exact SymPy number, with x as sp.log(2)"
)


def _expect_exact(
    answer: object, shape: Callable[[object], bool], usage: str, rounded: str
) -> None:
    """:func:`expect` for an exact value: a float is told it is rounded, anything else the kind."""
    if answer is not None and not shape(answer) and is_number(answer):
        raise EarlyVerdict(wrong_kind(rounded))
    expect(answer, shape, usage=usage)


@checker
def check_t_at_ln3(answer: object) -> Verdict:
    """Exercise 1: t(ln 3) exactly, as a SymPy Rational."""
    _expect_exact(answer, _is_rational, T_AT_LN3_USAGE, T_AT_LN3_ROUNDED_USAGE)
    exact = sp.cancel(symbolic.to_rational(symbolic.tanh_softplus()).subs(symbolic.E, 3))
    value = sp.Rational(answer.numerator, answer.denominator)  # type: ignore[union-attr]
    if value == exact:
        return correct()
    return wrong("t is a rational function of E = e^x; what is E at x = ln 3?")


@checker
def check_sign_only(answer: object) -> Verdict:
    """Exercise 2: (t + x(1 - t^2)e^x)/(1 + e^x) - d at x = ln 2, exactly."""
    _expect_exact(answer, _is_exact_number, SIGN_ONLY_USAGE, SIGN_ONLY_ROUNDED_USAGE)
    t_x, ex = symbolic.tanh_softplus(), sp.exp(symbolic.x)
    sign_fixed = (t_x + symbolic.x * (1 - t_x**2) * ex) / (1 + ex)
    expected = symbolic.difference(sign_fixed).subs({symbolic.x: sp.log(2), symbolic.E: 2})
    if sp.simplify(sp.sympify(answer) - expected) == 0:
        return correct("fixing the sign is not enough: t must not be divided by 1 + e^x")
    return wrong(
        "keep the division of the whole bracket, change only the sign, and remember that "
        "x = ln 2 means E = 2 in the rational form (give x as sp.log(2), not a float)"
    )


@checker
def check_crossing(answer: object) -> Verdict:
    """Exercise 3: the x > 0 at which d crosses its limit 1."""
    value = learner_float(answer, usage="give one number, the x at which d(x) = 1")
    (crossing,) = symbolic.sign_change_roots(symbolic.dmish() - 1, 0.0, 10.0)
    if abs(value - float(crossing)) < 1e-6:
        return correct()
    return wrong(
        "d - 1 is negative at x = 0 and positive where d is largest: bracket its zero "
        "there and refine (bisection, or mpmath.findroot) until the bracket is below 1e-6"
    )


def _with_limits(expr: sp.Expr, limits: tuple[float, float], points: np.ndarray) -> np.ndarray:
    """:func:`exact` at the finite points; at -inf and +inf, ``limits``."""
    finite = np.isfinite(points)
    values = np.where(points > 0, limits[1], limits[0])
    values[finite] = exact(expr, tuple(points[finite]))
    return values


@learner_function("pass the function itself: check_dmish(dmish)")
def check_dmish(dmish: object) -> Verdict:
    """Exercise 4 (write code): a float64 NumPy d(x), accurate on both signs, no overflow.

    Tried beyond +-709.78, where e^x or e^-x overflows float64 (the textbook
    ``tanh(log1p(exp(x)))`` with ``1 / (1 + exp(-x))`` gets the sign of d wrong there), and
    at +-inf, where d is 1 and 0 (and ``inf * 0`` is NaN).
    """
    points = np.array(DMISH_POINTS)
    got = learner_numbers(
        dmish,
        points,
        shape=points.shape,
        usage=f"return a NumPy array of floats, one value per input: shape {points.shape}",
    )
    truth = _with_limits(symbolic.dmish(), (0.0, 1.0), points)
    t = _with_limits(symbolic.tanh_softplus(), (0.0, 1.0), points)
    allowed = DMISH_REL * np.abs(truth) + DMISH_CANCEL * t
    with np.errstate(invalid="ignore"):  # inf - inf: a wrong value, caught as one
        bad = ~(np.abs(got - truth) <= allowed)
    if not bad.any():
        return correct()
    worst = points[bad]
    return wrong(
        f"off at x = {', '.join(f'{p:g}' for p in worst)}: where does an exponential overflow, "
        "or log(1 + tiny) lose the tiny part, for that sign of x? At ±inf, d is its limit: "
        "does your formula multiply inf by 0 there?"
    )


def _kernel_d(scratch: ScratchKernel) -> np.ndarray:
    probe = np.array(KERNEL_PROBES, dtype=np.float32)
    return scratch.run_kernel(np.ones_like(probe), probe).out.astype(np.float64)


@checker
def check_kernel_edit(answer: object, scratch: ScratchKernel) -> Verdict:
    """Exercise 5 (edit the kernel): predict (d(-2.5), d(0.7)) of the edited scratch copy."""
    expect(answer, (is_number, is_number), usage="give a pair (d(-2.5), d(0.7)) to 4 decimals")
    if not scratch.edited():
        return wrong(f"edit the copy first ({scratch}/op_kernel/mish_grad.h), then re-run")
    predicted = np.array([float(v) for v in answer], dtype=np.float64)  # type: ignore[union-attr]
    kernel = call_on_copy(scratch, _kernel_d, scratch)
    if np.allclose(predicted, kernel, atol=5e-5, rtol=0):
        return correct("your algebra predicts what the edited kernel computes")
    return wrong(
        "sigma enters V (for x <= 0), D = 1 + sigma V and S; the leading term L and the "
        "factor P do not change. Which V, S, L and P does each sign of x take?"
    )
