"""Tests of mishgrad.math.symbolic: the proofs, our rational parts and the critical points."""

import mpmath
import pytest
import symbolic_forms
import sympy as sp

from mishgrad.math import oracle, symbolic

PRINTED = "B1 with tanhx (as v1's README prints)"


def mish_mp(value: mpmath.mpf) -> mpmath.mpf:
    """Mish written directly in mpmath, independent of SymPy."""
    return value * mpmath.tanh(mpmath.log1p(mpmath.exp(value)))


@pytest.fixture(scope="module")
def proofs() -> dict[str, sp.Expr]:
    return symbolic_forms.proofs()


@pytest.fixture(scope="module")
def points() -> symbolic_forms.CriticalPoints:
    return symbolic_forms.critical_points()


def test_proofs_cover_every_form(proofs):
    assert set(proofs) == set(symbolic_forms.forms())


@pytest.mark.parametrize("name", [n for n in symbolic_forms.forms() if n != PRINTED])
def test_every_documented_form_is_proven(proofs, name):
    assert proofs[name] == 0


def test_readme_printed_form_is_not_the_gradient(proofs):
    difference = proofs[PRINTED]
    assert difference != 0
    # A nonzero rational function: a genuine counterexample at x = 1.
    value = difference.subs({symbolic.x: 1, symbolic.E: sp.E})
    assert abs(float(value)) > 0.1


def test_the_chain_rule_form_equals_dmish():
    assert symbolic.difference(symbolic_forms.chain_rule_form()) == 0


@pytest.mark.parametrize("positive", [True, False])
def test_ours_parts(positive):
    parts = symbolic_forms.ours_parts(positive)
    t_x = symbolic.tanh_softplus()
    expected = {"t": t_x, "1 - t": 1 - t_x, "s": symbolic_forms.sigmoid()}
    for name, expr in parts.items():
        assert sp.cancel(symbolic.to_rational(expr - expected[name])) == 0, name


def test_to_rational_of_t():
    E = symbolic.E
    expected = (E**2 + 2 * E) / (E**2 + 2 * E + 2)
    assert sp.cancel(symbolic.to_rational(symbolic.tanh_softplus()) - expected) == 0


def test_second_derivative_matches_mpmath_diff():
    f = sp.lambdify(symbolic.x, symbolic_forms.second_derivative(), "mpmath")
    with mpmath.workdps(30):
        for point in ("-3.5", "-0.25", "0.7", "4"):
            value = mpmath.mpf(point)
            assert abs(f(value) - mpmath.diff(mish_mp, value, 2)) < mpmath.mpf("1e-20")


def test_sign_change_roots_finds_known_zeros():
    roots = symbolic.sign_change_roots(sp.sin(symbolic.x), -4.0, 4.0, steps=50)
    with mpmath.workdps(30):
        expected = [-mpmath.pi, mpmath.mpf(0), +mpmath.pi]
        assert len(roots) == len(expected)
        assert all(abs(r - e) < mpmath.mpf("1e-25") for r, e in zip(roots, expected, strict=True))


def test_root_of_d(points):
    with mpmath.workdps(30):
        assert abs(mpmath.diff(mish_mp, points.root)) < mpmath.mpf("1e-25")
        assert abs(points.mish_min - mish_mp(points.root)) < mpmath.mpf("1e-25")
        # The minimum of Mish: its neighbours are higher.
        assert mish_mp(points.root - mpmath.mpf("1e-3")) > points.mish_min
        assert mish_mp(points.root + mpmath.mpf("1e-3")) > points.mish_min
    assert -1.25 < points.root < -1.15
    # The oracle's independent evaluation agrees that d changes sign there.
    near = float(points.root)
    assert oracle.dmish_mp(near - 1e-9) < 0 < oracle.dmish_mp(near + 1e-9)


@pytest.mark.parametrize("which", ["min", "max"])
def test_extrema_of_d(points, which):
    where = getattr(points, f"d_{which}_x")
    value = getattr(points, f"d_{which}")
    step = mpmath.mpf("1e-3")
    with mpmath.workdps(30):
        assert abs(mpmath.diff(mish_mp, where, 2)) < mpmath.mpf("1e-25")
        assert abs(mpmath.diff(mish_mp, where) - value) < mpmath.mpf("1e-25")
        neighbours = [mpmath.diff(mish_mp, where - step), mpmath.diff(mish_mp, where + step)]
    if which == "min":
        assert value < 0 and all(n > value for n in neighbours)
    else:
        assert value > 1 and all(n < value for n in neighbours)


def test_limits(points):
    assert points.limit_minus_inf == 0
    assert points.limit_plus_inf == 1
    assert abs(oracle.dmish_mp(-60.0)) < 1e-20
    assert abs(oracle.dmish_mp(60.0) - 1) < 1e-20


def test_critical_points_are_ordered(points):
    assert points.d_min_x < points.root < 0 < points.d_max_x


# ---------------------------------------------------------------------------------------
# Notebook 01 builds its expressions, proofs and critical points in plain SymPy and mpmath;
# the package's (which later notebooks use) must be the same.
# ---------------------------------------------------------------------------------------


def _notebook_01s_rational(expr: sp.Expr) -> sp.Expr:
    """Notebook 01's ``rational``: tanh rewritten with exp, E for e^x, cancelled."""
    rewritten = sp.expand_log(expr.rewrite(sp.exp), force=True)
    return sp.cancel(sp.powsimp(rewritten).subs(sp.exp(symbolic.x), symbolic.E))


def _notebook_01s_formulas() -> dict[str, tuple[sp.Expr, str]]:
    """Section 4 of notebook 01, each formula as it writes it, under the package's names."""
    x = symbolic.x
    ex, t_x = sp.exp(x), sp.tanh(sp.log(1 + sp.exp(x)))
    y1 = 1 / ((1 + ex) ** 2 + 1)
    t_pos = (1 + 2 * sp.exp(-x)) / (1 + 2 * sp.exp(-x) + 2 * sp.exp(-2 * x))
    t_neg = (2 * ex + sp.exp(2 * x)) / (2 * ex + sp.exp(2 * x) + 2)

    def t_v2(relu, abs_x):
        return sp.tanh(relu + sp.log(1 + sp.exp(-abs_x)))

    def ours(positive):
        e = sp.exp(-x) if positive else ex
        n, m = (1 + 2 * e, 2 * e**2) if positive else (2 * e + e**2, sp.Integer(2))
        t, s = n / (n + m), (1 if positive else e) / (1 + e)
        return t + x * s * (m / (n + m)) * (1 + t)

    def ours_kernel(positive):
        e, a = (sp.exp(-x), -x) if positive else (ex, x)
        v = 2 * e if positive else 1 + e
        dd = 1 + (1 + e) * v
        s = 2 * (1 + e) * v if positive else v * dd + dd + 2 * e
        leading, p = (1, 1) if positive else (1 + x, e)
        return p * (leading - e * (s * a + v * dd) / dd**2)

    return {
        "B1 with tanhx (as v1's code computes)": (
            t_x + x * ex * (1 - t_x**2) / (1 + ex),
            "all x",
        ),
        PRINTED: ((t_x - x * (1 - t_x**2) * ex) / (1 + ex), "all x"),
        "B2 without tanhx (y1 form)": (4 * x * ex * (ex + 1) * y1**2 - 2 * y1 + 1, "all x"),
        "sign split, x > 0 half": (t_pos + x / (1 + sp.exp(-x)) * (1 - t_pos**2), "all x"),
        "sign split, x <= 0 half": (t_neg + x * ex / (ex + 1) * (1 - t_neg**2), "all x"),
        "V2, x > 0": (t_v2(x, x) + x * (1 - t_v2(x, x) ** 2) / (1 + sp.exp(-x)), "x > 0"),
        "V2, x < 0": (t_v2(0, -x) + x * (1 - t_v2(0, -x) ** 2) / (1 + sp.exp(-x)), "x < 0"),
        "ours, x > 0": (ours(True), "all x"),
        "ours, x <= 0": (ours(False), "all x"),
        "ours as the kernel computes it, x > 0": (ours_kernel(True), "all x"),
        "ours as the kernel computes it, x <= 0": (ours_kernel(False), "all x"),
    }


def test_notebook_01s_expressions_are_the_packages():
    """Mish, d, t and s as notebook 01 builds them (sections 1 and 2) are the package's."""
    x = symbolic.x
    t_x = sp.tanh(sp.log(1 + sp.exp(x)))
    assert symbolic.mish() == x * t_x
    assert symbolic.dmish() == sp.diff(x * t_x, x)
    assert symbolic.tanh_softplus() == t_x
    assert symbolic_forms.sigmoid() == 1 / (1 + sp.exp(-x))


def test_notebook_01s_formulas_are_the_packages_forms():
    """Each formula notebook 01 writes is, on the same range, the one forms() holds."""
    forms, written = symbolic_forms.forms(), _notebook_01s_formulas()
    assert list(written) == list(forms)
    for name, (expr, claimed) in written.items():
        assert claimed == forms[name][1], name
        assert sp.cancel(_notebook_01s_rational(expr - forms[name][0])) == 0, name


def test_to_rational_is_notebook_01s_three_steps():
    """symbolic.to_rational performs the three steps notebook 01 shows on t, for every formula."""
    exprs = [symbolic.tanh_softplus(), symbolic.dmish()]
    exprs += [expr for expr, _ in symbolic_forms.forms().values()]
    for expr in exprs:
        assert symbolic.to_rational(expr) == _notebook_01s_rational(expr)


def test_notebook_01s_proofs_are_the_packages(proofs):
    """Notebook 01's cancelled differences are proofs(), the printed B1's included."""
    x, E = symbolic.x, symbolic.E
    d = _notebook_01s_rational(symbolic.dmish())
    for name, (expr, _) in _notebook_01s_formulas().items():
        assert sp.factor(sp.cancel(_notebook_01s_rational(expr) - d)) == proofs[name], name
    shown = -E * (E**4 + 4 * E**3 + 8 * E**2 * x + 6 * E**2 + 16 * E * x + 4 * E + 8 * x)
    shown /= (E + 1) * (E**2 + 2 * E + 2) ** 2
    assert sp.cancel(proofs[PRINTED] - shown) == 0


def test_notebook_01s_critical_points_are_the_packages(points):
    """Notebook 01's own scan finds critical_points() to 25 digits; the table's 10 digits hold."""
    import itertools

    import numpy as np

    def zeros(expr):
        f = sp.lambdify(symbolic.x, expr, "mpmath")
        scan = [mpmath.mpf(p) for p in np.linspace(-10, 10, 401)]
        pairs = itertools.pairwise(scan)
        return [mpmath.findroot(f, (a, b), solver="anderson") for a, b in pairs if f(a) * f(b) < 0]

    with mpmath.workdps(30):
        (root,) = zeros(symbolic.dmish())
        low, high = zeros(symbolic_forms.second_derivative())
        found = [(points.root, root), (points.d_min_x, low), (points.d_max_x, high)]
        assert all(abs(theirs - ours) < mpmath.mpf("1e-25") for theirs, ours in found)
    shown = [points.root, points.mish_min, points.d_min_x, points.d_min, points.d_max_x]
    assert [f"{float(v):.10g}" for v in [*shown, points.d_max]] == [
        "-1.192431215",
        "-0.308843413",
        "-2.256376396",
        "-0.1125261224",
        "1.490571179",
        "1.088498161",
    ]
