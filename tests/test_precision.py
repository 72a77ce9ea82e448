"""mishgrad.evaluation.precision: CANN's MERE/MARE standard for experimental operators."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import precision_standard
import pytest

from mishgrad.evaluation import precision
from mishgrad.math import errors, numerics, oracle


def test_thresholds_are_the_documented_powers_of_two():
    assert precision.threshold("float32") == 2.0**-13
    assert precision.threshold(np.float16) == 2.0**-10
    assert precision.threshold(ml_dtypes.bfloat16) == 2.0**-7
    assert precision.FLOOR == 1e-7
    assert precision.MARE_FACTOR == 10
    with pytest.raises(ValueError):
        precision.threshold("float64")


def test_relative_errors_use_the_floor():
    golden = np.array([0.0, 1.0, -2.0, 1e-7], dtype=np.float32)
    actual = np.array([1e-7, 1.5, -2.0, 0.0], dtype=np.float32)
    r = precision_standard.relative_errors(actual, golden)
    assert r.dtype == np.float64
    expected = [
        float(np.float32(1e-7)) / 1e-7,
        0.5 / (1 + 1e-7),
        0.0,
        float(np.float32(1e-7)) / (float(np.float32(1e-7)) + 1e-7),
    ]
    np.testing.assert_allclose(r, expected, rtol=1e-12)


def test_relative_errors_of_special_values():
    nan, inf = np.nan, np.inf
    golden = np.array([nan, inf, -inf, 1.0, nan, inf, 1.0], dtype=np.float32)
    actual = np.array([nan, inf, -inf, nan, 1.0, -inf, inf], dtype=np.float32)
    r = precision_standard.relative_errors(actual, golden)
    np.testing.assert_array_equal(r, [0, 0, 0, inf, inf, inf, inf])


def test_relative_errors_need_one_size():
    with pytest.raises(ValueError, match="must match"):
        precision_standard.relative_errors(np.zeros(3), np.zeros(4))


def test_evaluate_limits_are_strict():
    t = precision.threshold("float16")
    golden = np.ones(4, dtype=np.float16)
    report = precision_standard.evaluate(golden.copy(), golden)
    assert report.dtype == "float16" and report.count == 4
    assert report.mere == 0 and report.mare == 0 and report.passed
    assert report.mere_margin == "exact (0)"
    # One element off by T: MERE is about T/4 and MARE about T, both below their limits.
    actual = np.array([1.0 + t, 1, 1, 1], dtype=np.float32)
    report = precision_standard.evaluate(actual, np.ones(4, np.float32), "float16")
    assert report.worst == 0
    assert report.mere == pytest.approx(t / 4 / (1 + 1e-7))
    assert report.mere_passed and report.mare_passed and report.verdict == "pass"
    # MERE == T fails (the standard asks for MERE < T).
    report = precision_standard.PrecisionReport("float16", 1, t, t, 0)
    assert not report.mere_passed and report.mare_passed and report.verdict == "fail"
    report = precision_standard.PrecisionReport("float16", 1, 0.0, 10 * t, 0)
    assert report.mere_passed and not report.mare_passed
    assert report.mere_limit == t and report.mare_limit == 10 * t


def test_evaluate_rejects_empty_inputs():
    with pytest.raises(ValueError, match="empty"):
        precision_standard.evaluate(np.zeros(0, np.float32), np.zeros(0, np.float32))


@pytest.mark.parametrize(
    ("value", "limit", "text"),
    [
        (0.0, 1.0, "exact (0)"),
        (0.5, 1.0, "below by < 10×"),
        (0.099, 1.0, "below by ≥ 10×"),
        (2e-5, 1.0, "below by ≥ 10,000×"),
        (1.0, 1.0, "at the limit"),
        (25.0, 1.0, "above by ≥ 10×"),
        (np.inf, 1.0, "above (infinite)"),
    ],
)
def test_margin(value, limit, text):
    assert precision_standard.margin(value, limit) == text


def test_allowed_abs_error():
    allowed = precision.allowed_abs_error(np.array([0.0, -1.0]), "float32")
    np.testing.assert_allclose(allowed, [10 * 2.0**-13 * 1e-7, 10 * 2.0**-13 * (1 + 1e-7)])


def test_matched_ratio():
    golden = np.array([0.0, 1.0, 2.0, np.nan], dtype=np.float32)
    column = precision_standard.MIXED_TOLERANCES["float32"]
    step = column.atol + 2 * column.rtol
    actual = np.array([column.atol, 1.0 + step, 2.0 + step, np.nan], dtype=np.float32)
    # Element by element as the standard states it; equal NaNs match.
    g64 = golden.astype(np.float64)
    expected = np.abs(actual.astype(np.float64) - g64) <= column.atol + column.rtol * g64
    expected[3] = True
    assert precision_standard.matched_ratio(actual, golden) == pytest.approx(np.mean(expected))
    assert 0.25 < precision_standard.matched_ratio(actual, golden) < 1
    assert precision_standard.matched_ratio(actual, golden, rtol=0.0, atol=0.0) == pytest.approx(
        0.25
    )


def test_mixed_tolerance_table_is_the_published_one():
    # opbase experimental_standard.md at aa3cd74, section 2.2.
    table = {
        name: (c.rtol, c.atol, c.abs_cap) for name, c in precision_standard.MIXED_TOLERANCES.items()
    }
    assert table == {
        "float16": (2**-9, 2**-9, 0.1),
        "bfloat16": (2**-6, 2**-6, 1.0),
        "float32": (2**-10, 2**-16, 0.01),
    }


def test_mixed_tolerance_passes_at_99_percent_and_fails_on_the_cap():
    golden = np.linspace(1.0, 2.0, 1000, dtype=np.float16)
    actual = golden.copy()
    actual[:10] += np.float16(0.25)  # 1 % outside the tolerance and above the 0.1 cap
    report = precision_standard.mixed_tolerance(actual, golden)
    assert report.matched_ratio == pytest.approx(0.99)
    assert not report.cap_passed and report.verdict == "fail"
    actual[:10] = golden[:10] + np.float16(0.0625)  # outside the tolerance, inside the cap
    report = precision_standard.mixed_tolerance(actual, golden)
    assert report.cap_passed and report.passed
    actual[:11] = golden[:11] + np.float16(0.0625)  # one more element: 98.9 %
    assert not precision_standard.mixed_tolerance(actual, golden).passed


def test_mixed_tolerance_cap_allows_32_ulps_of_a_large_golden():
    golden = np.array([60000.0], dtype=np.float16)  # one float16 ULP here is 32
    assert precision_standard.mixed_tolerance(golden + np.float16(512), golden).cap_passed
    assert not precision_standard.mixed_tolerance(golden + np.float16(2048), golden).cap_passed


def test_ours_passes_exhaustively_and_the_naive_form_does_not(exhaustive):
    x, truth = exhaustive
    ours = precision_standard.evaluate(numerics.dmish_ours(x), truth)
    assert ours.passed
    naive = precision_standard.evaluate(numerics.dmish_b2_naive(x), truth)
    assert not naive.passed and naive.mare == np.inf  # its NaNs


def test_float32_passes_where_a_t_plus_p_form_fails_near_the_root(float32_sample):
    x = np.concatenate(list(float32_sample.values()))
    truth = oracle.dmish_oracle(x)
    assert precision_standard.evaluate(numerics.dmish_ours(x), truth).passed
    result = numerics.dmish_tanhx(x, oracle.tanh_softplus_oracle(x))  # t + p, t rounded
    whole = precision_standard.evaluate(result, truth)
    assert whole.mere_passed and not whole.mare_passed
    assert errors.MISH_GRAD_REGIONS.in_window(x[whole.worst])
    outside = ~errors.MISH_GRAD_REGIONS.in_window(x)
    assert precision_standard.evaluate(result[outside], truth[outside]).passed
    # The newer mixed tolerance has an absolute part: the root is no problem for it.
    assert (
        precision_standard.matched_ratio(result, truth) >= precision_standard.REQUIRED_MATCHED_RATIO
    )


def _mere_mare_by_hand(actual: np.ndarray, golden: np.ndarray) -> tuple[float, float]:
    """Notebook 10's evaluator, written out: MERE and MARE with the 1e-7 floor."""
    a, g = actual.astype(np.float64), golden.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.abs(a - g) / (np.abs(g) + 1e-7)
    same = (a == g) | (np.isnan(a) & np.isnan(g))
    r[same] = 0.0
    r[~same & ~(np.isfinite(a) & np.isfinite(g))] = np.inf
    return r.mean(), r.max()


def _mixed_by_hand(actual: np.ndarray, golden: np.ndarray, name: str) -> tuple[float, str]:
    """Notebook 10's mixed tolerance, written out from opbase aa3cd74's table."""
    rtol, atol, cap = {
        "float16": (2.0**-9, 2.0**-9, 1e-1),
        "bfloat16": (2.0**-6, 2.0**-6, 1e0),
        "float32": (2.0**-10, 2.0**-16, 1e-2),
    }[name]
    a, g = actual.astype(np.float64), golden.astype(np.float64)
    error = np.abs(a - g)
    ulp = np.abs(np.spacing(golden).astype(np.float64))
    matched = np.mean(error <= atol + rtol * np.abs(g))
    capped = np.all(error <= np.maximum(cap, 32 * ulp))
    return matched, "pass" if matched >= 0.99 and capped else "fail"


def _notebook_10_cases(x: np.ndarray) -> list[np.ndarray]:
    """What notebook 10 judges: ours, the tanhx branch (t + p), a NaN-prone form, one 10 % off."""
    tanhx = oracle.tanh_softplus_oracle(x)
    with np.errstate(all="ignore"):
        off = (oracle.dmish_oracle(x).astype(np.float64) * 1.1).astype(x.dtype)
        return [
            numerics.dmish_ours(x),
            numerics.dmish_tanhx(x, tanhx),
            numerics.dmish_b2_naive(x),
            off,
        ]


def test_notebook_10s_evaluators_are_the_packaged_ones(exhaustive, float32_sample):
    """Notebook 10 writes the thresholds, MERE/MARE and the mixed tolerance out in NumPy.

    The package's ``THRESHOLDS``, ``evaluate`` and ``mixed_tolerance`` give the same numbers
    and verdicts, exactly, in every dtype.
    """
    assert precision.THRESHOLDS == {"float32": 2.0**-13, "float16": 2.0**-10, "bfloat16": 2.0**-7}
    x32 = np.concatenate(list(float32_sample.values()))
    for x in [exhaustive[0], x32]:
        truth, name = oracle.dmish_oracle(x), x.dtype.name
        limit = precision.THRESHOLDS[name]
        for result in _notebook_10_cases(x):
            report = precision_standard.evaluate(result, truth)
            mere, mare = _mere_mare_by_hand(result, truth)
            assert (report.mere, report.mare) == (mere, mare), name
            assert report.passed == (mere < limit and mare < 10 * limit), name
            mixed = precision_standard.mixed_tolerance(result, truth)
            assert (mixed.matched_ratio, mixed.verdict) == _mixed_by_hand(result, truth, name)
