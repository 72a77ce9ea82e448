"""Overflow/underflow thresholds against their analytic values and exhaustive scans."""

from __future__ import annotations

import math

import analytic_thresholds as closed_form
import error_checks
import mpmath
import numpy as np
import pytest

from mishgrad.math import dtypes, errors, numerics, oracle, thresholds

ALL_DTYPES = list(dtypes.DTYPES)
HALF_DTYPES = ["float16", "bfloat16"]


def exhaustive_first_overflow(expression, dtype: str) -> float:
    """The smallest x >= 0 of a 16-bit dtype where expression(x) is infinite, by scanning."""
    x = dtypes.all_values(dtype)
    x = x[x >= 0]
    with np.errstate(all="ignore"):
        infinite = np.isinf(expression(x))
    first = int(np.argmax(infinite))
    assert infinite[first], "never overflows"
    assert infinite[first:].all(), "overflow is not monotone in x"
    return float(x[first])


def test_overflow_bound_is_max_plus_half_ulp():
    assert closed_form.overflow_bound("float16") == 65504.0 + 16.0
    flt_max = float(np.finfo(np.float32).max)
    assert closed_form.overflow_bound("float32") == flt_max + 2.0**103
    bf16_max = float(dtypes.float_info("bfloat16").max)
    assert closed_form.overflow_bound("bfloat16") == bf16_max + 2.0**119
    for name in ALL_DTYPES:
        bound = closed_form.overflow_bound(name)
        largest = float(dtypes.float_info(name).max)
        # Between the maximum and the bound rounds down to the maximum; the bound to inf.
        below = np.array([(largest + bound) / 2, bound])
        with np.errstate(over="ignore"):
            rounded = below.astype(dtypes.as_dtype(name)).astype(np.float64)
        assert rounded.tolist() == [largest, np.inf]


def test_exact_expressions_match_the_overflowing_ones():
    assert set(closed_form.EXACT) == set(closed_form.OVERFLOWING)
    for name, expression in closed_form.OVERFLOWING.items():
        exact, _ = closed_form.EXACT[name]
        value = float(expression(np.array([3.0]))[0])
        assert value == pytest.approx(float(exact(mpmath.mpf(3))), rel=1e-14)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_closed_forms(dtype: str):
    omega = closed_form.overflow_bound(dtype)
    analytic = closed_form.analytic_overflow_threshold
    assert analytic("e^x", dtype) == pytest.approx(math.log(omega), rel=1e-15)
    assert analytic("e^2x", dtype) == pytest.approx(math.log(omega) / 2, rel=1e-15)
    assert analytic("(1 + e^x)^2", dtype) == pytest.approx(
        math.log(math.sqrt(omega) - 1), rel=1e-15
    )
    lambert = float(mpmath.lambertw(mpmath.mpf(omega)).real)
    assert analytic("x e^x", dtype) == pytest.approx(lambert, rel=1e-15)
    y1 = analytic("4x e^x (e^x + 1)  (y1 numerator)", dtype)
    assert 4 * y1 * math.exp(y1) * (math.exp(y1) + 1) == pytest.approx(omega, rel=1e-12)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", list(closed_form.OVERFLOWING))
def test_overflow_threshold_is_analytic_value_rounded_up_into_the_grid(dtype: str, name: str):
    measured = thresholds.overflow_threshold(closed_form.OVERFLOWING[name], dtype)
    analytic = closed_form.analytic_overflow_threshold(name, dtype)
    assert measured == closed_form.grid_ceil(analytic, dtype)
    assert measured >= analytic
    # The neighbour below does not overflow.
    below = dtypes.from_ordered(dtypes.ordered(np.array([measured], dtype=dtype)) - 1, dtype)
    with np.errstate(all="ignore"):
        assert np.isfinite(closed_form.OVERFLOWING[name](below)[0])


def test_float32_exp_threshold_is_ln_flt_max_rounded_up():
    flt_max = float(np.finfo(np.float32).max)
    measured = thresholds.overflow_threshold(closed_form.OVERFLOWING["e^x"], "float32")
    assert measured == closed_form.grid_ceil(math.log(flt_max), "float32")
    measured2 = thresholds.overflow_threshold(closed_form.OVERFLOWING["e^2x"], "float32")
    assert measured2 == closed_form.grid_ceil(math.log(flt_max) / 2, "float32")


@pytest.mark.parametrize("dtype", HALF_DTYPES)
@pytest.mark.parametrize("name", list(closed_form.OVERFLOWING))
def test_overflow_threshold_equals_exhaustive_scan(dtype: str, name: str):
    expression = closed_form.OVERFLOWING[name]
    assert thresholds.overflow_threshold(expression, dtype) == exhaustive_first_overflow(
        expression, dtype
    )


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_underflow_and_subnormal_thresholds_are_analytic_rounded_down(dtype: str):
    underflow = closed_form.exp_underflow_threshold(dtype)
    subnormal = closed_form.exp_subnormal_threshold(dtype)
    assert underflow == closed_form.grid_floor(closed_form.analytic_exp_underflow(dtype), dtype)
    assert subnormal == closed_form.grid_floor(closed_form.analytic_exp_subnormal(dtype), dtype)
    assert underflow < subnormal < 0
    info = dtypes.float_info(dtype)
    assert closed_form.analytic_exp_underflow(dtype) == pytest.approx(
        math.log(float(info.smallest_subnormal)) - math.log(2)
    )


@pytest.mark.parametrize("dtype", HALF_DTYPES)
def test_underflow_and_subnormal_thresholds_equal_exhaustive_scan(dtype: str):
    x = dtypes.all_values(dtype)
    with np.errstate(all="ignore"):
        e = np.exp(x)
    assert closed_form.exp_underflow_threshold(dtype) == float(x[e == 0].max())
    tiny = dtypes.float_info(dtype).tiny
    assert closed_form.exp_subnormal_threshold(dtype) == float(x[e < tiny].max())


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_grid_ceil_floor_and_steps(dtype: str):
    rng = np.random.default_rng(7)
    values = rng.uniform(-200, 200, 200)
    for value in values:
        up, down = (
            closed_form.grid_ceil(value, dtype),
            closed_form.grid_floor(value, dtype),
        )
        assert down <= value <= up
        assert closed_form.grid_steps(up, down, dtype) in (0, 1)
        assert (up == down) == (up == value)
    on_grid = float(np.array([1.5], dtype=dtype)[0])
    assert closed_form.grid_ceil(on_grid, dtype) == closed_form.grid_floor(on_grid, dtype) == 1.5
    assert closed_form.grid_steps(2.0, 1.0, dtype) == 2 ** (dtypes.float_info(dtype).nmant)


def test_failure_masks_on_synthetic_results():
    x = np.array([-2.0, -1.0, 0.5, 3.0, 5.0], dtype=np.float16)
    truth = oracle.dmish_oracle(x)
    clean = errors.failure_masks(x, truth.copy(), truth)
    assert list(clean) == list(error_checks.FAILURE_KINDS)
    assert not any(mask.any() for mask in clean.values())
    broken = truth.copy()
    broken[0] = np.nan
    broken[1] = np.inf
    broken[2] = -broken[2]
    broken[3] = dtypes.from_ordered(dtypes.ordered(truth[3:4]) + 2, "float16")[0]
    broken[4] = dtypes.from_ordered(dtypes.ordered(truth[4:5]) + 1, "float16")[0]
    masks = errors.failure_masks(x, broken, truth)
    assert masks["NaN"].tolist() == [True, False, False, False, False]
    assert masks["±Inf"].tolist() == [False, True, False, False, False]
    assert masks["wrong sign"].tolist() == [False, False, True, False, False]
    assert masks["inaccurate"].tolist() == [False, False, False, True, False]


def test_misses_target_float32_criteria():
    x = np.array([5.0, 5.0, -1.2, -1.2, -100.0, -10.0], dtype=np.float32)
    truth = oracle.dmish_oracle(x)
    result = truth.copy()
    result[0] = dtypes.from_ordered(dtypes.ordered(truth[0:1]) + 4, "float32")[0]  # 4 ULP: ok
    result[1] = dtypes.from_ordered(dtypes.ordered(truth[1:2]) + 5, "float32")[0]  # 5 ULP: miss
    result[3] = truth[3] + np.float32(2e-7)  # root window: absolute error > 1e-7
    result[4] = truth[4] * np.float32(1.5)  # d subnormal: absolute error < 2^-126, no miss
    result[5] = truth[5] * np.float32(1 + 2e-5)  # relative error > 1e-5
    assert errors.misses_target(x, result, truth).tolist() == [
        False,
        True,
        False,
        True,
        False,
        True,
    ]


@pytest.mark.parametrize("dtype", HALF_DTYPES)
def test_b1_nan_region_starts_where_x_exp_x_overflows_in_float32(dtype: str):
    x = dtypes.all_values(dtype)
    truth = oracle.dmish_oracle(x)
    result = numerics.dmish_b1(x, oracle.tanh_softplus_oracle(x))
    regions = error_checks.failure_regions(x, result, truth)
    float32_edge = thresholds.overflow_threshold(closed_form.OVERFLOWING["x e^x"], "float32")
    largest = float(dtypes.float_info(dtype).max)
    assert regions["NaN"] == [(closed_form.grid_ceil(float32_edge, dtype), largest)]
    assert regions["±Inf"] == [] and regions["wrong sign"] == []


@pytest.mark.parametrize("dtype", HALF_DTYPES)
def test_ours_has_no_failure_region(dtype: str):
    x = dtypes.all_values(dtype)
    regions = error_checks.failure_regions(x, numerics.dmish_ours(x), oracle.dmish_oracle(x))
    assert all(intervals == [] for intervals in regions.values())


def test_notebook_02s_bisection_finds_the_package_thresholds():
    """Notebook 02 bisects on the keys, with the intermediates written as NumPy evaluates them.

    thresholds finds the same 21 values: five overflow thresholds and the subnormal and
    zero thresholds of e^x, in each dtype.
    """
    written = {
        "e^x": lambda x: np.exp(x),
        "e^2x": lambda x: np.exp(x + x),
        "(1 + e^x)^2": lambda x: (1 + np.exp(x)) * (1 + np.exp(x)),
        "x e^x": lambda x: x * np.exp(x),
        "4x e^x (e^x + 1)  (y1 numerator)": lambda x: 4 * x * np.exp(x) * (np.exp(x) + 1),
    }
    assert set(written) == set(closed_form.OVERFLOWING)

    def bisect(predicate, dtype):  # the smallest x in [0, 1e4] where predicate turns true
        low, high = (int(k) for k in dtypes.ordered(np.array([0.0, 1e4], dtype)))
        while high - low > 1:
            middle = (low + high) // 2
            with np.errstate(all="ignore"):
                holds = predicate(dtypes.from_ordered([middle], dtype))[0]
            low, high = (low, middle) if holds else (middle, high)
        return float(dtypes.from_ordered([high], dtype)[0])

    for name in ALL_DTYPES:
        dtype, tiny = dtypes.as_dtype(name), float(dtypes.float_info(name).tiny)
        for label, f in written.items():
            found = bisect(lambda x, f=f: np.isinf(f(x)), dtype)
            assert found == thresholds.overflow_threshold(closed_form.OVERFLOWING[label], name)
        subnormal = -bisect(lambda x, tiny=tiny: np.exp(-x) < tiny, dtype)
        assert subnormal == closed_form.exp_subnormal_threshold(name)
        assert -bisect(lambda x: np.exp(-x) == 0, dtype) == closed_form.exp_underflow_threshold(
            name
        )


def test_notebook_03s_bisection_finds_the_float32_thresholds():
    """Notebook 03 bisects the bit patterns of positive float32s for each threshold it shows.

    Its overflow points are thresholds.overflow_threshold's, and its other two are
    thresholds.first_true's, on the same conditions.
    """

    def first_float32(condition, lo, hi):
        below, above = np.array([lo, hi], np.float32).view(np.int32).astype(np.int64)
        while above - below > 1:
            middle = (below + above) // 2
            if condition(np.array([middle], np.int32).view(np.float32)[0]):
                above = middle
            else:
                below = middle
        return np.array([above], np.int32).view(np.float32)[0]

    with np.errstate(over="ignore"):
        x_exp = first_float32(lambda x: np.isinf(x * np.exp(x)), 1, 1000)
        numerator = first_float32(lambda x: np.isinf(4 * x * np.exp(x) * (np.exp(x) + 1)), 1, 1000)
        y1_zero = first_float32(lambda x: (1 / ((1 + np.exp(x)) ** 2 + 1)) ** 2 == 0, 1, 1000)
    log_zero = first_float32(lambda a: np.log(1 + np.exp(-a)) == 0, 1, 1000)
    overflowing = closed_form.OVERFLOWING
    assert x_exp == thresholds.overflow_threshold(overflowing["x e^x"], "float32")
    y1_label = "4x e^x (e^x + 1)  (y1 numerator)"
    assert numerator == thresholds.overflow_threshold(overflowing[y1_label], "float32")

    def y1_squared_is_zero(x):
        y1 = 1 / ((1 + np.exp(x)) ** 2 + 1)
        return y1 * y1 == 0

    assert y1_zero == thresholds.first_true(y1_squared_is_zero, "float32", 0.0, 1e4)
    log_is_zero = thresholds.first_true(lambda x: np.log(1 + np.exp(-x)) == 0, "float32", 0.0, 1e4)
    assert log_zero == log_is_zero
