"""The oracle is the ruler for every error figure: test it against independent arithmetic."""

import mpmath
import numpy as np
import pytest

from mishgrad.math import dtypes, oracle, samples


def independent_dmish(x: float) -> mpmath.mpf:
    """d(x) from the textbook formula at 150 digits (no shared code with the oracle)."""
    with mpmath.workdps(150):
        xm = mpmath.mpf(x)
        t = mpmath.tanh(mpmath.log(1 + mpmath.exp(xm)))
        s = 1 / (1 + mpmath.exp(-xm))
        return +(t + xm * s * (1 - t * t))


def independent_tanh_softplus(x: float) -> mpmath.mpf:
    with mpmath.workdps(150):
        return +mpmath.tanh(mpmath.log(1 + mpmath.exp(mpmath.mpf(x))))


def rounded(values, dtype):
    dtype = dtypes.as_dtype(dtype)
    return np.array([oracle._round_exact(v, dtype) for v in values], dtype=dtype)


def assert_same_bits(a, b):
    assert a.dtype == b.dtype
    mismatch = np.flatnonzero(dtypes.uint_view(a) != dtypes.uint_view(b))
    assert mismatch.size == 0, f"{mismatch.size} differ, first at {mismatch[:5]}"


def test_round_exact_is_nearest_even_and_keeps_the_sign_of_zero():
    bf16, two = dtypes.bfloat16, mpmath.mpf(2)
    with mpmath.workprec(200):
        below_midpoint = 1 + two**-8 - two**-60
        above_midpoint = 1 + two**-8 + two**-60
        negative_tiny = -(two**-400)
    assert oracle._round_exact(below_midpoint, bf16) == 1.0
    assert oracle._round_exact(above_midpoint, bf16) == 1 + 2.0**-7
    zero = oracle._round_exact(negative_tiny, np.dtype(np.float32))
    assert zero == 0 and np.signbit(zero)
    # An exact midpoint (SiluGrad's grad * d(0) = grad / 2) goes to the even neighbour.
    assert oracle._round_exact(1 + two**-11, np.dtype(np.float16)) == 1.0
    assert oracle._round_exact(1 + 3 * two**-11, np.dtype(np.float16)) == 1 + 2.0**-9


def test_correctly_round_avoids_double_rounding_to_bfloat16():
    # float64 -> float32 lands exactly on a bfloat16 midpoint, then ties to even: wrong.
    value = 1 + 2.0**-8 + 2.0**-30
    naive = np.array([value]).astype(np.float32).astype(dtypes.bfloat16)[0]
    assert float(naive) == 1.0
    fixed = oracle.correctly_round(
        np.array([value]), np.array([0.0]), dtypes.bfloat16, lambda i: mpmath.mpf(value)
    )
    assert float(fixed[0]) == 1 + 2.0**-7


@pytest.mark.parametrize(
    ("dtype", "largest", "limit"),
    [("float16", 65504.0, 65520.0), ("float32", 2.0**128 - 2.0**104, 2.0**128 - 2.0**103)],
)
def test_values_past_half_an_ulp_beyond_the_largest_round_to_infinity(dtype, largest, limit):
    # Near the limit the float64 interval straddles it, so both paths run: the proof and the
    # exact comparison of _round_exact.
    values = np.array([largest, limit - limit * 2.0**-40, limit + limit * 2.0**-40, 2 * limit])
    values = np.concatenate([values, -values])
    for bound in (0.0, limit * 2.0**-30):
        rounded = oracle.correctly_round(
            values, np.full_like(values, bound), dtype, lambda i: mpmath.mpf(values[i])
        ).astype(np.float64)
        expected = [largest, largest, np.inf, np.inf]
        assert list(rounded) == [*expected, *(-v for v in expected)]


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_dmish_oracle_matches_independent_mpmath_on_16bit(name):
    x = dtypes.all_values(name)[::5]
    expected = rounded([independent_dmish(float(v)) for v in x], name)
    assert_same_bits(oracle.dmish_oracle(x), expected)


def test_dmish_oracle_matches_independent_mpmath_on_float32():
    parts = samples.float32_sample(grid_count=3000, uniform_count=1500, root_stride=1 << 11)
    x = np.concatenate(list(parts.values()))
    # The float32 neighbours of the root itself, where cancellation is total.
    root = np.float32(mpmath.findroot(independent_dmish, -1.19))
    near = dtypes.from_ordered(dtypes.ordered(np.array([root])) + np.arange(-40, 41), "float32")
    x = np.concatenate([x, near])
    expected = rounded([independent_dmish(float(v)) for v in x], "float32")
    assert_same_bits(oracle.dmish_oracle(x), expected)


def test_tanh_softplus_oracle_matches_independent_mpmath():
    x = np.concatenate([dtypes.all_values("bfloat16")[::9], samples.float32_uniform(500)])
    x = x[np.abs(x) < 6e4]  # within float16's range
    for dtype in ("float32", "float16", "bfloat16"):
        xs = x.astype(dtype)
        expected = rounded([independent_tanh_softplus(float(v)) for v in xs], dtype)
        assert_same_bits(oracle.tanh_softplus_oracle(xs), expected)


def test_dmish_oracle_special_values():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=np.float32)
    d = oracle.dmish_oracle(x).astype(np.float64)
    assert np.isnan(d[0]) and d[1] == 1.0 and d[2] == 0.0
    assert d[3] == d[4] == np.float32(0.6)  # t(0) = tanh(log 2) = 3/5 exactly


def test_dmish_oracle_can_change_dtype():
    x = np.array([0.5, -3.0], dtype=np.float32)
    assert oracle.dmish_oracle(x, "bfloat16").dtype == dtypes.bfloat16
    with pytest.raises(ValueError):
        oracle.dmish_oracle(x, np.float64)


def test_mish_backward_oracle_scales_and_broadcasts():
    x = samples.float32_uniform(64).reshape(8, 8)
    d = oracle.dmish_oracle(x)
    out = oracle.mish_backward_oracle(np.float32(2.0), x)
    assert out.shape == (8, 8)
    assert np.array_equal(out, 2 * d)  # scaling by 2 is exact
    row = oracle.mish_backward_oracle(np.ones(8, np.float32), x)
    assert np.array_equal(row, d)


def test_mish_backward_oracle_rounds_the_product_once():
    x = dtypes.all_values("float16")[::97]
    grad = np.full_like(x, 1.5)
    expected = rounded([mpmath.mpf(1.5) * independent_dmish(float(v)) for v in x], "float16")
    assert_same_bits(oracle.mish_backward_oracle(grad, x), expected)


def test_mish_backward_oracle_special_values():
    grad = np.array([np.inf, np.inf, -np.inf, np.nan, 3.0, 3.0], dtype=np.float32)
    x = np.array([1.0, -np.inf, np.inf, 1.0, np.nan, -np.inf], dtype=np.float32)
    out = oracle.mish_backward_oracle(grad, x).astype(np.float64)
    assert out[0] == np.inf
    assert np.isnan(out[1])  # inf * d(-inf) = inf * 0
    assert out[2] == -np.inf
    assert np.isnan(out[3]) and np.isnan(out[4])
    assert out[5] == 0.0


def test_notebook_02s_written_out_oracle_is_dmish_oracle():
    """Notebook 02 writes the oracle out: float64 with a proven bound, mpmath where it cannot.

    On every finite float16 and bfloat16 value and on 200,001 float32 points of [-120, 120],
    the written-out oracle and oracle.dmish_oracle give the same values (as keys: -0 is +0).
    """
    units, digits = 64, 60  # the float64 error allowance in units of 2^-53; mpmath's digits

    def terms64(x64):
        e = np.exp(-np.abs(x64))
        positive = x64 > 0
        n = np.where(positive, 1 + 2 * e, e * (2 + e))
        m = np.where(positive, 2 * e * e, 2.0)
        t = n / (n + m)
        return t, x64 * np.where(positive, 1.0, e) / (1 + e) * (m / (n + m)) * (1 + t)

    def d_mp(x):
        with mpmath.workdps(digits):
            x = mpmath.mpf(float(x))
            e = mpmath.exp(-abs(x))
            n, m, s = (1 + 2 * e, 2 * e * e, 1) if x > 0 else (e * (2 + e), mpmath.mpf(2), e)
            t = n / (n + m)
            return t + x * s / (1 + e) * (m / (n + m)) * (1 + t)

    def around(keys, dtype):  # the floats below, at and above each key, in float64
        return (dtypes.from_ordered(keys + k, dtype).astype(np.float64) for k in (-1, 0, 1))

    def settle(exact, key, dtype):
        while True:
            below, here, above = around(np.array([key]), dtype)
            if exact < (below[0] + here[0]) / 2:
                key -= 1
            elif exact > (here[0] + above[0]) / 2:
                key += 1
            else:
                return key

    def written_out(x):
        x64 = x.astype(np.float64)
        t, p = terms64(x64)
        approx, bound = t + p, units * 2.0**-53 * (np.abs(t) + np.abs(p))
        keys = dtypes.ordered(approx.astype(np.float32).astype(x.dtype)).astype(np.int64)
        below, here, above = around(keys, x.dtype)
        proven = (approx - bound > (below + here) / 2) & (approx + bound < (here + above) / 2)
        for i in np.flatnonzero(~proven):
            keys[i] = settle(d_mp(x64[i]), keys[i], x.dtype)
        return dtypes.from_ordered(keys, x.dtype)

    ends = dtypes.ordered(np.array([-120.0, 120.0], np.float32))
    grid = dtypes.from_ordered(np.linspace(*ends, 200_001).round(), np.float32)
    for x in (dtypes.all_values("float16"), dtypes.all_values("bfloat16"), grid):
        mine, packaged = written_out(x), oracle.dmish_oracle(x)
        assert mine.dtype == packaged.dtype
        # As keys, -0 and +0 are both 0: the written-out oracle returns +0 where d rounds to 0.
        assert np.array_equal(dtypes.ordered(mine), dtypes.ordered(packaged)), x.dtype
