import error_checks
import error_summary
import numpy as np
import pytest
from pytorch_formula import dmish_pytorch

from mishgrad import aclnn
from mishgrad.kernel import operators
from mishgrad.math import errors, oracle


def f32(*values):
    return np.array(values, dtype=np.float32)


def test_ulp_distance_counts_representable_steps():
    one = np.float32(1)
    up2 = np.nextafter(np.nextafter(one, np.float32(2)), np.float32(2))
    assert errors.ulp_distance(f32(up2), f32(1.0))[0] == 2
    assert errors.ulp_distance(f32(-0.0), f32(0.0))[0] == 0
    assert errors.ulp_distance(f32(1.4e-45), f32(-1.4e-45))[0] == 2


def test_ulp_distance_nan_rules():
    d = errors.ulp_distance(f32(np.nan, np.nan, 1.0), f32(np.nan, 1.0, np.nan))
    assert d[0] == 0 and np.isinf(d[1]) and np.isinf(d[2])


def test_ulp_distance_rejects_mixed_dtypes():
    with pytest.raises(ValueError, match="dtypes differ"):
        errors.ulp_distance(f32(1.0), np.array([1.0], dtype=np.float16))


def test_summarize_counts_every_kind_of_error():
    truth = f32(1.0, 2.0, -3.0, 4.0, 0.5)
    result = f32(1.0, np.nextafter(np.float32(2), np.float32(3)), 3.0, np.inf, 0.5)
    s = error_summary.summarize(result, truth, abs_mask=[True, True, False, False, False])
    assert s.count == 5
    assert s.correctly_rounded_pct == pytest.approx(40.0)
    assert s.within_1ulp_pct == pytest.approx(60.0)
    assert s.spurious_nonfinite == 1
    assert s.wrong_sign == 1
    assert s.max_rel_error == pytest.approx(2.0)
    assert s.max_abs_error == pytest.approx(2.0**-22)
    assert s.max_ulp > 1e9  # the wrong-sign element is far away on the float grid


def test_summarize_empty_masks_give_nan():
    s = error_summary.summarize(f32(1.0), f32(1.0), rel_mask=[False])
    assert np.isnan(s.max_rel_error) and np.isnan(s.max_abs_error)


def test_masks_follow_the_design_windows():
    x = np.array([-100.0, -87.0, -1.2, -1.0, 5.0, np.inf])
    assert list(errors.MISH_GRAD_REGIONS.in_window(x)) == [False, False, True, False, False, False]
    assert list(errors.MISH_GRAD_REGIONS.normal(x)) == [False, True, True, True, True, False]
    assert list(errors.MISH_GRAD_REGIONS.subnormal(x)) == [True, False, False, False, False, False]


def test_subnormal_edge_is_where_the_correctly_rounded_d_stops_being_normal():
    edge = np.array([errors.FLOAT32_SUBNORMAL_EDGE], dtype=np.float32)
    below = np.nextafter(edge, np.float32(-np.inf))
    assert abs(float(oracle.dmish_oracle(edge)[0])) >= errors.FLOAT32_TINY
    assert abs(float(oracle.dmish_oracle(below)[0])) < errors.FLOAT32_TINY


def steep_gradient(x: np.ndarray) -> np.ndarray:
    """Another operator's reference, falling like e^(2x): subnormal from x ~ -43.7."""
    return np.exp(2.0 * np.asarray(x, dtype=np.float64)).astype(np.float32)


def test_another_operators_regions_steer_the_float32_targets():
    edge = errors.subnormal_edge(steep_gradient, -60.0, -30.0)
    assert edge == pytest.approx(-126 * np.log(2) / 2, abs=1e-3)
    below = np.nextafter(np.float32(edge), np.float32(-np.inf))
    assert steep_gradient(np.array([edge]))[0] >= errors.FLOAT32_TINY
    assert steep_gradient(np.array([below]))[0] < errors.FLOAT32_TINY
    steep = errors.Regions((-1.30, -1.26), edge)
    x = np.array([-1.28, -1.2, -50.0, -40.0])
    assert list(steep.in_window(x)) == [True, False, False, False]
    assert list(steep.subnormal(x)) == [False, False, True, False]
    # A subnormal truth off by less than 2^-126: a relative error of 1, an absolute one too
    # small to count. Wrong where d is normal (MishGrad's regions at x = -50), right where d is
    # subnormal (the steep operator's).
    truth, result = f32(*[1e-39] * 4), f32(*[2e-39] * 4)
    assert list(errors.misses_target(x, result, truth)) == [True, True, True, True]
    assert list(errors.misses_target(x, result, truth, steep)) == [True, True, False, True]
    assert list(errors.failure_masks(x, result, truth, steep)["inaccurate"]) == [1, 1, 0, 1]


def test_mishgrads_spec_carries_its_regions():
    assert operators.MISH_GRAD.regions is errors.MISH_GRAD_REGIONS
    assert errors.MISH_GRAD_REGIONS.window == errors.ROOT_WINDOW == (-1.25, -1.15)


def test_mask_intervals_finds_maximal_runs():
    x = np.arange(8.0)
    mask = np.array([1, 1, 0, 0, 1, 0, 1, 1], dtype=bool)
    assert error_checks.mask_intervals(x, mask) == [(0.0, 1.0), (4.0, 4.0), (6.0, 7.0)]
    assert error_checks.mask_intervals(x, np.zeros(8, bool)) == []


def test_checks_report_misses():
    bad = error_summary.ErrorSummary(10, 3.0, 99.0, 99.0, 1, 0, 1e-3, 1e-6)
    verdicts = {c.criterion: c.met for c in error_summary.check_exhaustive(bad, "float16")}
    assert verdicts == {"max ULP": False, "% correctly rounded": False, "spurious NaN/Inf": False}
    good = error_summary.ErrorSummary(10, 1.0, 100.0, 100.0, 0, 0, 1e-7, 1e-8)
    assert all(c.met for c in error_summary.check_float32(good, good))
    assert not all(c.met for c in error_summary.check_float32(bad, good))
    tail = error_summary.ErrorSummary(10, 1.0, 100.0, 100.0, 0, 0, 1e-7, 2.0**-127)
    assert error_summary.check_float32_subnormal(tail).met
    tail = error_summary.ErrorSummary(10, 1.0, 100.0, 100.0, 0, 0, 1e-7, 2.0**-125)
    assert not error_summary.check_float32_subnormal(tail).met


def test_zero_dimensional_arrays_are_measured_like_any_other():
    one, nan = np.array(1.0, np.float32), np.array(np.nan, np.float32)
    assert errors.ulp_distance(one, one) == 0 and np.isinf(errors.ulp_distance(one, nan))
    assert np.all(error_checks.operator_close(one, one)) and not np.any(
        error_checks.operator_close(one, nan)
    )


def test_notebook_00s_ulp_subtraction_is_ulp_distance():
    """Notebook 00 counts ULPs as a subtraction of ordered bit patterns, on its grid."""
    x = np.linspace(-8, 8, 2**16 + 1, dtype=np.float32)
    grad = np.ones_like(x)
    with aclnn.Session() as session:
        out = aclnn.mish_backward(grad, x, session=session)
    truth = oracle.mish_backward_oracle(grad, x)
    with np.errstate(over="ignore"):
        t = np.tanh(np.log1p(np.exp(x)))
        s = 1 / (1 + np.exp(-x))
    chain_rule = t + x * s * (1 - t * t)

    def ordered(values):
        bits = values.view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)

    for result in (out, chain_rule):
        subtraction = np.abs(ordered(result) - ordered(truth))
        assert np.array_equal(subtraction, errors.ulp_distance(result, truth))


def test_notebook_02s_key_subtraction_is_ulp_distance():
    """Notebook 02 writes the ULP distance out as a subtraction of sign-magnitude keys.

    On random pairs of finite values of each dtype it is errors.ulp_distance, the keys are
    dtypes.ordered's, and dtypes.from_ordered inverts them.
    """
    from mishgrad.math import dtypes

    rng = np.random.default_rng(2)
    for dtype in dtypes.DTYPES.values():
        width = 8 * dtype.itemsize
        pairs = rng.integers(0, 1 << width, size=(2, 100_000), dtype=np.uint64)
        a, b = pairs.astype(f"uint{width}").view(dtype)
        with np.errstate(invalid="ignore"):  # ml_dtypes warns on casting NaN; it stays NaN
            finite = np.isfinite(a.astype(np.float64)) & np.isfinite(b.astype(np.float64))
        a, b = a[finite], b[finite]

        def keys(values, width=width):
            raw = values.view(f"uint{width}").astype(np.int64)
            magnitude = raw & ((1 << (width - 1)) - 1)
            return np.where(raw >> (width - 1) == 1, -magnitude, magnitude)

        subtraction = np.abs(keys(a) - keys(b)).astype(np.float64)
        assert np.array_equal(subtraction, errors.ulp_distance(a, b)), dtype
        assert np.array_equal(dtypes.ordered(a), keys(a)), dtype
        back = dtypes.from_ordered(keys(a), dtype).astype(np.float64)  # -0 comes back as +0
        assert np.array_equal(back, a.astype(np.float64)), dtype


def test_notebook_03s_classification_by_hand_is_failure_masks(exhaustive):
    """Notebook 03 writes the 16-bit failure rule out in NumPy, then uses errors.failure_masks.

    On every finite float16 and bfloat16 input, for every formula it classifies (PyTorch's
    included), the two agree kind for kind, and its runs of failing inputs are mask_intervals'.
    """
    from mishgrad.math import numerics

    x, truth = exhaustive

    def ordered(values):
        bits = values.view(f"u{values.itemsize}").astype(np.int64)
        sign = 1 << (8 * values.itemsize - 1)
        return np.where(bits & sign, -(bits & (sign - 1)), bits)

    def classify(r, g):
        r64, g64 = r.astype(np.float64), g.astype(np.float64)
        ulps = np.abs(ordered(r) - ordered(g))
        with np.errstate(invalid="ignore"):
            wrong_sign = r64 * g64 < 0
        return {
            "NaN": np.isnan(r64) & np.isfinite(g64),
            "±Inf": np.isinf(r64) & np.isfinite(g64),
            "wrong sign": wrong_sign,
            "inaccurate": np.isfinite(r64) & np.isfinite(g64) & (ulps > 1) & ~wrong_sign,
        }

    def runs(values, mask):
        edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(np.int8), [0]])))
        return [(values[a], values[b - 1]) for a, b in zip(edges[::2], edges[1::2], strict=True)]

    tanhx = oracle.tanh_softplus_oracle(x)
    results = {name: formula(x) for name, formula in numerics.FORMULAS.items()}
    results["B1"] = numerics.dmish_b1(x, tanhx)
    results["tanhx branch"] = numerics.dmish_tanhx(x, tanhx)
    results["PyTorch"] = dmish_pytorch(x)
    x64 = x.astype(np.float64)
    for name, result in results.items():
        mine, helper = classify(result, truth), errors.failure_masks(x, result, truth)
        assert list(mine) == list(error_checks.FAILURE_KINDS), name
        for kind in error_checks.FAILURE_KINDS:
            assert np.array_equal(mine[kind], helper[kind]), (name, kind)
            assert runs(x64, mine[kind]) == error_checks.mask_intervals(x64, mine[kind]), (
                name,
                kind,
            )
