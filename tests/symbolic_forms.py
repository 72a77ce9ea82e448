"""The SymPy proofs that every formula of the book equals dmish/dx (for tests/test_symbolic.py).

:mod:`mishgrad.math.symbolic` holds the gradient of Mish in SymPy and how a proof works (the
substitution ``E = e^x`` that makes every formula rational); here are the formulas of
:mod:`mishgrad.math.numerics` as SymPy expressions (:func:`forms`), their proofs
(:func:`proofs`), the chain rule's form, the kernel's parts and the critical points of d
(:func:`critical_points`), which the tests check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import mpmath
import sympy as sp

from mishgrad.math.symbolic import difference, dmish, mish, sign_change_roots, tanh_softplus, x

#: The value the forward pass may save: tanh(softplus(x)).
t: Final = sp.Symbol("t")


def sigmoid() -> sp.Expr:
    """s(x) = 1 / (1 + e^-x)."""
    return 1 / (1 + sp.exp(-x))


def chain_rule_form() -> sp.Expr:
    """Return d as the chain rule gives it, ``t + x s (1 - t^2)``, with t and s in terms of x."""
    t_x = tanh_softplus()
    return t_x + x * sigmoid() * (1 - t_x**2)


def with_t(expr: sp.Expr) -> sp.Expr:
    """Replace t(x) = tanh(softplus(x)) by the symbol ``t`` (to read formulas as ops-nn's do)."""
    return expr.subs(tanh_softplus(), t)


def _b1(t_value: sp.Expr) -> sp.Expr:
    ex = sp.exp(x)
    return t_value + x * ex * (1 - t_value**2) / (1 + ex)


def _b1_as_printed(t_value: sp.Expr) -> sp.Expr:
    """v1's README, read literally: grad*(tanhx - x*(1 - tanh^2 x)*e^x)/(1 + e^x)."""
    ex = sp.exp(x)
    return (t_value - x * (1 - t_value**2) * ex) / (1 + ex)


def _b2_y1() -> sp.Expr:
    ex = sp.exp(x)
    y1 = 1 / ((1 + ex) ** 2 + 1)
    return 4 * x * ex * (ex + 1) * y1**2 - 2 * y1 + 1


def _sign_split_positive() -> sp.Expr:
    u, v = sp.exp(-x), sp.exp(-2 * x)
    t_pos = (1 + 2 * u) / (1 + 2 * u + 2 * v)
    return t_pos + x / (1 + u) * (1 - t_pos**2)


def _sign_split_negative() -> sp.Expr:
    w, w2 = sp.exp(x), sp.exp(2 * x)
    n = 2 * w + w2
    t_neg = n / (n + 2)
    return t_neg + x * w / (w + 1) * (1 - t_neg**2)


def _v2(relu: sp.Expr, abs_x: sp.Expr) -> sp.Expr:
    t_v2 = sp.tanh(relu + sp.log(1 + sp.exp(-abs_x)))
    return t_v2 + x * (1 - t_v2**2) / (1 + sp.exp(-x))


def ours_parts(positive: bool) -> dict[str, sp.Expr]:
    """Our rational t, 1 - t and s in terms of e = e^-|x|, on one sign of x."""
    e = sp.exp(-x) if positive else sp.exp(x)
    if positive:
        numerator, one_minus_numerator, s = 1 + 2 * e, 2 * e**2, 1 / (1 + e)
    else:
        numerator, one_minus_numerator, s = 2 * e + e**2, sp.Integer(2), e / (1 + e)
    denominator = numerator + one_minus_numerator
    return {"t": numerator / denominator, "1 - t": one_minus_numerator / denominator, "s": s}


def _ours(positive: bool) -> sp.Expr:
    parts = ours_parts(positive)
    return parts["t"] + x * parts["s"] * parts["1 - t"] * (1 + parts["t"])


def _ours_kernel(positive: bool) -> sp.Expr:
    """The kernel's form: d = P (L - e (S a + V D) / D^2), e = e^-|x|, a = -|x|."""
    e = sp.exp(-x) if positive else sp.exp(x)
    a = -x if positive else x
    sigma = 1 + e
    v = 2 * e if positive else sigma
    denominator = 1 + sigma * v
    s = 2 * sigma * v if positive else v * denominator + denominator + 2 * e
    leading, p = (sp.Integer(1), sp.Integer(1)) if positive else (1 + x, e)
    return p * (leading - e * (s * a + v * denominator) / denominator**2)


def forms() -> dict[str, tuple[sp.Expr, str]]:
    """Every formula for dmish/dx, with the range of x on which it is claimed to hold.

    Sources, cann/ops-nn at commit e5c3fa9327ea95ba26d06227e746923580d10921: B1 and B2 as
    ``experimental/activation/mish_grad/README.md`` lines 12-27 prints them; v1's sign split
    and its tanhx branch as ``experimental/activation/mish_grad/op_kernel/mish_grad.h``
    computes them (float32 path, lines 232-299); MishGradV2 as
    ``experimental/activation/mish_grad_v2/README.md`` lines 21-31 states it. "Ours" is this
    project's (derived in notebook 01).

    Returns
    -------
    dict
        name -> (expression in x, "all x" | "x > 0" | "x < 0").

    """
    t_exact = tanh_softplus()
    return {
        "B1 with tanhx (as v1's code computes)": (_b1(t_exact), "all x"),
        "B1 with tanhx (as v1's README prints)": (_b1_as_printed(t_exact), "all x"),
        "B2 without tanhx (y1 form)": (_b2_y1(), "all x"),
        "sign split, x > 0 half": (_sign_split_positive(), "all x"),
        "sign split, x <= 0 half": (_sign_split_negative(), "all x"),
        "V2, x > 0": (_v2(x, x), "x > 0"),
        "V2, x < 0": (_v2(sp.Integer(0), -x), "x < 0"),
        "ours, x > 0": (_ours(True), "all x"),
        "ours, x <= 0": (_ours(False), "all x"),
        "ours as the kernel computes it, x > 0": (_ours_kernel(True), "all x"),
        "ours as the kernel computes it, x <= 0": (_ours_kernel(False), "all x"),
    }


def proofs() -> dict[str, sp.Expr]:
    """Return the cancelled difference from dmish/dx of every formula in :func:`forms`.

    Zero means proven on the stated range; anything else is a counterexample family.
    """
    return {name: sp.factor(difference(expr)) for name, (expr, _) in forms().items()}


def second_derivative() -> sp.Expr:
    """Return d'(x) = d^2 mish/dx^2, whose zeros are where d has its minimum and maximum."""
    return sp.diff(dmish(), x)


@dataclass(frozen=True)
class CriticalPoints:
    """Where Mish and its gradient d turn, and the limits of d (see :func:`critical_points`).

    Attributes
    ----------
    root, mish_min
        The zero of d, where Mish has its minimum, and that minimum value.
    d_min_x, d_min
        Where d is smallest (a zero of d'), and the value there (negative).
    d_max_x, d_max
        Where d is largest (the other zero of d'), and the value there (above 1).
    limit_minus_inf, limit_plus_inf
        The limits of d at -oo and +oo, by :func:`sympy.limit`.

    """

    root: mpmath.mpf
    mish_min: mpmath.mpf
    d_min_x: mpmath.mpf
    d_min: mpmath.mpf
    d_max_x: mpmath.mpf
    d_max: mpmath.mpf
    limit_minus_inf: sp.Expr
    limit_plus_inf: sp.Expr


def critical_points(digits: int = 30) -> CriticalPoints:
    """Locate the critical points of Mish and of d = dmish/dx, to ``digits`` digits.

    Zeros are searched on [-10, 10] with :func:`sign_change_roots`. Outside that interval
    there are none: for x -> -oo, d ~ e^x (1 + x) and d' ~ e^x (2 + x); for x -> +oo,
    d ~ 1 + (4x - 2) e^-2x and d' ~ 8 (1 - x) e^-2x: leading terms without zeros there.

    Raises
    ------
    ArithmeticError
        If the scan does not find exactly one zero of d and two of d'.

    """
    roots = sign_change_roots(dmish(), -10.0, 10.0, digits=digits)
    extrema = sign_change_roots(second_derivative(), -10.0, 10.0, digits=digits)
    if len(roots) != 1 or len(extrema) != 2:
        raise ArithmeticError(f"expected 1 zero of d and 2 of d', got {roots} and {extrema}")
    with mpmath.workdps(digits):
        mish_f = sp.lambdify(x, mish(), "mpmath")
        d_f = sp.lambdify(x, dmish(), "mpmath")
        low, high = sorted(extrema)
        return CriticalPoints(
            root=roots[0],
            mish_min=mish_f(roots[0]),
            d_min_x=low,
            d_min=d_f(low),
            d_max_x=high,
            d_max=d_f(high),
            limit_minus_inf=sp.limit(dmish(), x, -sp.oo),
            limit_plus_inf=sp.limit(dmish(), x, sp.oo),
        )
