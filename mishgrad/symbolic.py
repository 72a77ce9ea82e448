"""SymPy derivations: the gradient of Mish and proofs that every formula equals it.

Each formula of :mod:`mishgrad.numerics` appears here as a SymPy expression in ``x``.
A formula is *proven* equal to dmish/dx when the difference simplifies to exactly zero.

How the proofs work, and why a substitution is needed
-----------------------------------------------------
``simplify`` on expressions that mix ``tanh``, ``log`` and ``exp`` is slow and may fail
to reach zero. Every formula here is a rational function of ``x`` and ``e^x`` once
``tanh`` is rewritten with exponentials (``tanh(u) = (e^u - e^-u)/(e^u + e^-u)``, and
``e^{log(1 + e^x)} = 1 + e^x``). So we

1. rewrite ``tanh`` in terms of ``exp``;
2. substitute a positive symbol ``E`` for ``e^x`` (so ``e^-x -> 1/E``, ``e^2x -> E^2``);
3. put the difference over a common denominator (``cancel``).

If the numerator is the zero polynomial in the independent symbols ``x`` and ``E``, the
identity holds for every value of ``E``, in particular for ``E = e^x``: a proof.

``relu`` and ``|x|`` (in V2 and in the sign split) are not rational, so those formulas
are proven on each sign separately, where they are.
"""

from __future__ import annotations

from typing import Final

import sympy as sp

x: Final = sp.Symbol("x", real=True)
#: Stands for e**x in the rational form of every expression.
E: Final = sp.Symbol("E", positive=True)
#: The value the forward pass may save: tanh(softplus(x)).
t: Final = sp.Symbol("t")


def softplus(arg: sp.Expr) -> sp.Expr:
    """``log(1 + e^arg)``."""
    return sp.log(1 + sp.exp(arg))


def mish() -> sp.Expr:
    """Mish(x) = x tanh(softplus(x))."""
    return x * sp.tanh(softplus(x))


def dmish() -> sp.Expr:
    """dmish/dx, by SymPy's differentiation of :func:`mish`."""
    return sp.diff(mish(), x)


def tanh_softplus() -> sp.Expr:
    """t(x) = tanh(softplus(x))."""
    return sp.tanh(softplus(x))


def sigmoid() -> sp.Expr:
    """s(x) = 1 / (1 + e^-x)."""
    return 1 / (1 + sp.exp(-x))


def with_t(expr: sp.Expr) -> sp.Expr:
    """Replace t(x) = tanh(softplus(x)) by the symbol ``t`` (to read formulas as the seeds do)."""
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


def forms() -> dict[str, tuple[sp.Expr, str]]:
    """Every formula for dmish/dx, with the range of x on which it is claimed to hold.

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
    }


def to_rational(expr: sp.Expr) -> sp.Expr:
    """Rewrite ``expr`` as a rational function of ``x`` and ``E = e^x`` (see module doc)."""
    rewritten = sp.expand_log(expr.rewrite(sp.exp), force=True)
    return sp.cancel(sp.powsimp(rewritten).subs(sp.exp(x), E))


def difference(expr: sp.Expr) -> sp.Expr:
    """``expr - dmish/dx`` as a single cancelled rational function of x and E."""
    return sp.cancel(to_rational(expr) - to_rational(dmish()))


def proofs() -> dict[str, sp.Expr]:
    """The cancelled difference from dmish/dx of every formula in :func:`forms`.

    Zero means proven on the stated range; anything else is a counterexample family.
    """
    return {name: sp.factor(difference(expr)) for name, (expr, _) in forms().items()}
