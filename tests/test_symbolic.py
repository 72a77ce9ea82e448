"""Tests of mishgrad.math.symbolic: the proofs, our rational parts and the critical points."""

import mpmath
import pytest
import sympy as sp

from mishgrad.math import oracle, symbolic

PRINTED = "B1 with tanhx (as v1's README prints)"


def mish_mp(value: mpmath.mpf) -> mpmath.mpf:
    """Mish written directly in mpmath, independent of SymPy."""
    return value * mpmath.tanh(mpmath.log1p(mpmath.exp(value)))


@pytest.fixture(scope="module")
def proofs() -> dict[str, sp.Expr]:
    return symbolic.proofs()


@pytest.fixture(scope="module")
def points() -> symbolic.CriticalPoints:
    return symbolic.critical_points()


def test_proofs_cover_every_form(proofs):
    assert set(proofs) == set(symbolic.forms())


@pytest.mark.parametrize("name", [n for n in symbolic.forms() if n != PRINTED])
def test_every_documented_form_is_proven(proofs, name):
    assert proofs[name] == 0


def test_readme_printed_form_is_not_the_gradient(proofs):
    difference = proofs[PRINTED]
    assert difference != 0
    # A nonzero rational function: a genuine counterexample at x = 1.
    value = difference.subs({symbolic.x: 1, symbolic.E: sp.E})
    assert abs(float(value)) > 0.1


def test_the_chain_rule_form_equals_dmish():
    assert symbolic.difference(symbolic.chain_rule_form()) == 0


@pytest.mark.parametrize("positive", [True, False])
def test_ours_parts(positive):
    parts = symbolic.ours_parts(positive)
    t_x = symbolic.tanh_softplus()
    expected = {"t": t_x, "1 - t": 1 - t_x, "s": symbolic.sigmoid()}
    for name, expr in parts.items():
        assert sp.cancel(symbolic.to_rational(expr - expected[name])) == 0, name


def test_to_rational_of_t():
    E = symbolic.E
    expected = (E**2 + 2 * E) / (E**2 + 2 * E + 2)
    assert sp.cancel(symbolic.to_rational(symbolic.tanh_softplus()) - expected) == 0


def test_second_derivative_matches_mpmath_diff():
    f = sp.lambdify(symbolic.x, symbolic.second_derivative(), "mpmath")
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
