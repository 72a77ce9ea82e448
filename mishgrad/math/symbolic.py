"""SymPy derivations: the gradient of Mish and proofs that every formula equals it.

Each formula of :mod:`mishgrad.math.numerics` appears here as a SymPy expression in ``x``.
A formula is *proven* equal to dmish/dx when the difference simplifies to exactly zero.
``simplify`` on a mix of ``tanh``, ``log`` and ``exp`` is slow and may not reach zero, so
(notebook 01, section 5) :func:`to_rational` rewrites ``tanh`` with exponentials,
substitutes a positive symbol ``E`` for ``e^x`` and cancels. A zero numerator, a polynomial in
the independent symbols ``x`` and ``E``, means the identity holds for every ``E``, in
particular for ``E = e^x``: a proof. ``relu`` and ``|x|`` (in V2 and in the sign split) are
not rational, so those formulas are proven on each sign separately.
"""

from typing import Final

import mpmath
import sympy as sp

x: Final = sp.Symbol("x", real=True)
#: Stands for e**x in the rational form of every expression.
E: Final = sp.Symbol("E", positive=True)


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


def to_rational(expr: sp.Expr) -> sp.Expr:
    """Rewrite ``expr`` as a rational function of ``x`` and ``E = e^x`` (see module doc)."""
    rewritten = sp.expand_log(expr.rewrite(sp.exp), force=True)
    return sp.cancel(sp.powsimp(rewritten).subs(sp.exp(x), E))


def difference(expr: sp.Expr) -> sp.Expr:
    """``expr - dmish/dx`` as a single cancelled rational function of x and E."""
    return sp.cancel(to_rational(expr) - to_rational(dmish()))


def sign_change_roots(
    expr: sp.Expr, lo: float, hi: float, steps: int = 400, digits: int = 30
) -> list[mpmath.mpf]:
    """Find every zero of ``expr`` (in ``x``) at which it changes sign on [lo, hi], in order.

    The interval is scanned on ``steps`` equal subintervals; each one whose ends differ in sign
    is refined with :func:`mpmath.findroot` (bracketing Anderson solver) at ``digits``
    significant digits, and a grid point where ``expr`` is exactly 0 counts too. Zeros closer
    together than a subinterval, or without a sign change, are not found: choose ``steps``
    accordingly.
    """
    with mpmath.workdps(digits):
        f = sp.lambdify(x, expr, "mpmath")
        grid = [mpmath.mpf(lo) + (mpmath.mpf(hi) - lo) * i / steps for i in range(steps + 1)]
        values = [f(point) for point in grid]
        roots = [point for point, value in zip(grid, values, strict=True) if value == 0]
        roots += [
            mpmath.findroot(f, (a, b), solver="anderson")
            for a, b, fa, fb in zip(grid, grid[1:], values, values[1:], strict=False)
            if fa * fb < 0
        ]
        return sorted(roots)
