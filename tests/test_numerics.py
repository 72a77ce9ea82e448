"""Every formula of mishgrad.math.numerics against the oracle, and the claims the notebooks make."""

import dataclasses
import re

import error_summary
import mpmath
import numpy as np
import precision_standard
import pytest
from pytorch_formula import dmish_pytorch

from mishgrad.kernel import source
from mishgrad.kernel.twin import NUMERICS_MODELS
from mishgrad.math import dtypes, errors, numerics, oracle, samples

ALL = ("float32", "float16", "bfloat16")


def f32_summaries(x, result, truth):
    return (
        error_summary.summarize(
            result,
            truth,
            rel_mask=errors.MISH_GRAD_REGIONS.normal(x),
            abs_mask=errors.MISH_GRAD_REGIONS.in_window(x),
        ),
        error_summary.summarize(result[x >= 0], truth[x >= 0]),
    )


@pytest.mark.parametrize("model", NUMERICS_MODELS)
def test_ours_meets_the_16bit_targets_exhaustively(exhaustive, model):
    x, truth = exhaustive
    d = numerics.dmish_ours(x, numerics=model)
    checks = error_summary.check_exhaustive(error_summary.summarize(d, truth), x.dtype.name)
    assert all(c.met for c in checks), checks


@pytest.mark.parametrize("model", NUMERICS_MODELS)
def test_ours_meets_the_float32_targets(float32_sample, model):
    x = np.concatenate(list(float32_sample.values()))
    truth = oracle.dmish_oracle(x)
    whole, positive = f32_summaries(x, numerics.dmish_ours(x, numerics=model), truth)
    checks = error_summary.check_float32(whole, positive)
    assert all(c.met for c in checks), checks


@pytest.mark.parametrize("model", NUMERICS_MODELS)
def test_d_stays_normal_where_the_exponential_is_flushed(model):
    # e^x is subnormal below x = -87.3 (flushed under hardware/adversarial), d is not.
    x = samples.float32_every(-100.0, -86.0, 97)
    truth = oracle.dmish_oracle(x)
    d = numerics.dmish_ours(x, numerics=model)
    normal = errors.MISH_GRAD_REGIONS.normal(x)
    assert (
        error_summary.summarize(d, truth, rel_mask=normal).max_rel_error
        <= dtypes.TABLE["float32"].max_rel_error
    )
    tail = error_summary.summarize(d, truth, abs_mask=errors.MISH_GRAD_REGIONS.subnormal(x))
    assert error_summary.check_float32_subnormal(tail).met and tail.wrong_sign == 0


@pytest.mark.parametrize("model", NUMERICS_MODELS)
def test_root_window_keeps_relative_accuracy_and_passes_cann(model):
    root = float(numerics.root_expansion().high)
    x = samples.float32_every(root - 0.06, root + 0.06, 5)  # the window and its edges
    truth = oracle.dmish_oracle(x)
    d = numerics.dmish_ours(x, numerics=model)
    assert error_summary.summarize(d, truth).max_rel_error <= dtypes.TABLE["float32"].max_rel_error
    assert precision_standard.evaluate(d, truth).passed


def test_t_plus_p_form_fails_cann_at_the_root_where_ours_passes():
    x = samples.float32_every(-1.1925, -1.1923)
    truth = oracle.dmish_oracle(x)
    assert not precision_standard.evaluate(numerics.dmish_sign_split(x), truth).mare_passed
    assert precision_standard.evaluate(numerics.dmish_ours(x), truth).passed


def test_kernel_root_constants_are_the_derived_ones():
    header = (source.OPERATOR_DIR / "op_kernel" / "mish_grad.h").read_text()
    root = numerics.root_expansion()
    for name, value in [
        ("kRootHigh", root.high),
        ("kRootLow", root.low),
        ("kRootC1", root.c1),
        ("kRootC2", root.c2),
        ("kRootC3", root.c3),
        ("kRootHalfWidth", numerics.ROOT_HALF_WIDTH),
    ]:
        literal = re.search(rf"constexpr float {name} = ([^f;]+)f;", header)
        assert literal and np.float32(literal.group(1)) == value, name


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("formula", [numerics.dmish_ours, numerics.dmish_tanhx])
def test_special_values_are_the_limits(formula, dtype):
    x = np.array([np.nan, np.inf, -np.inf, 0.0], dtype=dtype)
    args = (x,) if formula is numerics.dmish_ours else (x, oracle.tanh_softplus_oracle(x))
    d = formula(*args).astype(np.float64)
    assert d.dtype == np.float64 and formula(*args).dtype == np.dtype(dtype)
    assert np.isnan(d[0]) and d[1] == 1.0 and d[2] == 0.0
    assert d[3] == np.array(0.6).astype(dtype)  # t(0) = 3/5, rounded once


def test_tanhx_branch_with_exact_t_matches_ours(exhaustive):
    x, truth = exhaustive
    x32 = x.astype(np.float32)
    via_t = numerics.dmish_tanhx(x32, oracle.tanh_softplus_oracle(x32)).astype(x.dtype)
    assert error_summary.summarize(via_t, truth).max_ulp <= 1
    # Both round correctly on all but a few inputs (the 16-bit path's misroundings, 7 of
    # float16's 63487), and those few differ by one ULP.
    ours = numerics.dmish_ours(x)
    assert np.mean(via_t == ours) > 0.9998 and errors.ulp_distance(via_t, ours).max() <= 1


@pytest.mark.parametrize("dtype", ALL)
def test_tanhx_branch_is_finite_for_every_finite_x(dtype):
    x = (
        dtypes.all_values(dtype)
        if dtype != "float32"
        else np.array([-3.4e38, -1e4, -100.0, -1.2, 0.0, 50.0, 1e4, 3.4e38], np.float32)
    )
    d = numerics.dmish_tanhx(x, oracle.tanh_softplus_oracle(x)).astype(np.float64)
    assert np.all(np.isfinite(d))


def test_b1_overflows_to_nan_where_x_exp_x_overflows():
    x = np.array([84.0, 84.5, 100.0], dtype=np.float32)
    d = numerics.dmish_b1(x, oracle.tanh_softplus_oracle(x)).astype(np.float64)
    assert np.isfinite(d[0]) and np.isnan(d[1]) and np.isnan(d[2])


def test_b2_naive_fails_beyond_its_y1_threshold():
    d = numerics.dmish_b2_naive(np.array([41.0, 42.0], dtype=np.float32)).astype(np.float64)
    assert np.isfinite(d[0]) and np.isnan(d[1])


def test_sign_split_drifts_for_large_x_where_ours_does_not():
    x = np.linspace(8, 16, 4001, dtype=np.float32)
    truth = oracle.dmish_oracle(x)
    assert error_summary.summarize(numerics.dmish_sign_split(x), truth).max_ulp >= 10
    assert error_summary.summarize(numerics.dmish_ours(x), truth).max_ulp <= 2


def test_sign_split_gives_nan_at_infinity_and_propagates_nan():
    x = np.array([np.inf, -np.inf, np.nan], dtype=np.float32)
    assert np.all(np.isnan(numerics.dmish_sign_split(x)))


def test_v2_loses_relative_accuracy_for_very_negative_bfloat16():
    x = dtypes.all_values("bfloat16")
    x = x[(x.astype(np.float64) > -96) & (x.astype(np.float64) < -14.4)]
    assert error_summary.summarize(numerics.dmish_v2(x), oracle.dmish_oracle(x)).max_ulp > 100


@pytest.mark.parametrize(
    ("function", "exact"),
    [
        (numerics.tanh_softplus, lambda v: mpmath.tanh(mpmath.log1p(mpmath.exp(v)))),
    ],
)
def test_forward_functions_are_accurate(function, exact):
    x = np.concatenate([np.linspace(-80, 80, 1601), [-1e-3, 1e-3, 0.0]]).astype(np.float32)
    result = function(x).astype(np.float64)
    with mpmath.workdps(40):
        truth = np.array([float(exact(mpmath.mpf(float(v)))) for v in x])
    tiny = np.finfo(np.float32).tiny
    rel = np.abs(result - truth) / np.maximum(np.abs(truth), tiny)
    assert rel.max() < 5e-6


def test_mish_backward_matches_the_oracle_and_keeps_dtype():
    rng = np.random.default_rng(7)
    for dtype in ALL:
        x = rng.uniform(-30, 30, 5000).astype(dtype)
        grad = rng.normal(size=5000).astype(dtype)
        out = numerics.mish_backward(grad, x)
        assert out.dtype == np.dtype(dtype)
        truth = oracle.mish_backward_oracle(grad, x)
        # float32 keeps ULP accuracy only for x >= 0; the 16-bit types everywhere but near
        # the root. d is rounded to float32 before the product: one extra rounding.
        ulp_region = x >= 0 if dtype == "float32" else ~errors.MISH_GRAD_REGIONS.in_window(x)
        assert error_summary.summarize(out[ulp_region], truth[ulp_region]).max_ulp <= 3
        summary = error_summary.summarize(out, truth, rel_mask=errors.MISH_GRAD_REGIONS.normal(x))
        assert summary.max_rel_error < 1e-5 and summary.wrong_sign == 0


def test_mish_backward_tanhx_branch_and_broadcasting():
    x = np.linspace(-5, 5, 12, dtype=np.float32).reshape(3, 4)
    grad = np.array([1.0, 2.0, -1.0, 0.5], dtype=np.float32)
    with_t = numerics.mish_backward(grad, x, oracle.tanh_softplus_oracle(x))
    without = numerics.mish_backward(grad, x)
    assert with_t.shape == without.shape == (3, 4)
    np.testing.assert_allclose(with_t, without, rtol=1e-5, atol=1e-6)


def test_mish_backward_rejects_bad_input():
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="grad has dtype float16"):
        numerics.mish_backward(np.zeros(4, np.float16), x)
    with pytest.raises(ValueError, match="tanhx has dtype"):
        numerics.mish_backward(x, x, np.zeros(4, np.float16))
    with pytest.raises(ValueError, match="do not broadcast"):
        numerics.mish_backward(np.zeros(3, np.float32), x)
    with pytest.raises(ValueError, match="dtype must be one of"):
        numerics.mish_backward(np.zeros(4), np.zeros(4))


def test_formulas_take_the_numerics_model_by_position_or_by_name():
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    t = oracle.tanh_softplus_oracle(x)
    by_name = numerics.dmish_tanhx(x, t, numerics="adversarial")
    assert np.array_equal(numerics.dmish_tanhx(x, t, "adversarial"), by_name)
    assert np.array_equal(
        numerics.tanh_softplus(x, "hardware"), numerics.tanh_softplus(x, numerics="hardware")
    )
    with pytest.raises(TypeError, match="tanhx"):
        numerics.dmish_b1(x)


def test_formulas_registry_names_every_no_tanhx_formula():
    assert set(numerics.FORMULAS.values()) == {
        numerics.dmish_b2_naive,
        numerics.dmish_sign_split,
        numerics.dmish_v2,
        numerics.dmish_ours,
    }


@pytest.fixture(scope="module")
def bulk():
    """The documented sample's uniform[-20, 20] part and its correctly rounded d."""
    x = samples.float32_sample()["uniform"]
    return x, oracle.dmish_oracle(x)


@pytest.mark.parametrize("model", NUMERICS_MODELS)
def test_ours_meets_the_bulk_target_ahead_of_pytorch(bulk, model):
    x, truth = bulk
    ours = error_summary.summarize(numerics.dmish_ours(x, model), truth)
    assert error_summary.check_float32_uniform(ours, model).met
    pytorch = error_summary.summarize(dmish_pytorch(x), truth).within_1ulp_pct
    assert ours.within_1ulp_pct > pytorch or model != "ieee"


def test_pytorch_formula_is_float32_arithmetic_with_nan_at_the_infinities(bulk):
    x, truth = bulk
    d = dmish_pytorch(x)
    assert d.dtype == np.float32 and error_summary.summarize(d, truth).within_1ulp_pct > 80
    wide = x.astype(np.float64)
    t = np.tanh(np.log1p(np.exp(wide)))
    in_float64 = (t + wide / (1 + np.exp(-wide)) * (1 - t * t)).astype(np.float32)
    assert np.mean(d != in_float64) > 0.05  # each step rounds to float32, as PyTorch's does
    assert np.isnan(dmish_pytorch(np.array([np.inf, -np.inf], np.float32))).all()


def test_a_missed_bulk_target_is_reported(bulk):
    _, truth = bulk
    exact = error_summary.summarize(truth, truth)
    assert error_summary.check_float32_uniform(exact, "hardware").met
    missed = error_summary.check_float32_uniform(
        dataclasses.replace(exact, within_1ulp_pct=81.9), "hardware"
    )
    assert not missed.met and missed.target == ">= 82"


def test_sign_split_is_its_two_halves_each_kept_on_its_own_side():
    """Notebook 02 writes v1's two halves out and keeps each on its own side of 0.

    For finite x that is numerics.dmish_sign_split (which adds the two masked halves).
    """
    probe = np.array([-100, -50, -10, -1, 1, 10, 50, 100], dtype=np.float32)
    x = np.concatenate([probe, np.linspace(-120, 120, 100_001, dtype=np.float32)])
    with np.errstate(all="ignore"):
        u, v = np.exp(-x), np.exp(-2 * x)
        t_pos = (1 + 2 * u) / (2 * u + 2 * v + 1)
        d_pos = t_pos + (x / (u + 1)) * (1 - t_pos * t_pos)
        w, w2 = np.exp(x), np.exp(2 * x)
        t_neg = (2 * w + w2) / (2 * w + w2 + 2)
        d_neg = t_neg + ((x * w) / (w + 1)) * (1 - t_neg * t_neg)
    assert np.array_equal(np.where(x > 0, d_pos, d_neg), numerics.dmish_sign_split(x))


def test_notebook_03s_pytorch_formula_is_dmish_pytorch(bulk):
    """Notebook 03 writes PyTorch's CPU formula out in NumPy: it is dmish_pytorch.

    Bit for bit, on the sample's uniform part, at the special values, and on every finite
    16-bit input (widened to float32, the result rounded once, as the notebook does).
    """

    def library(function, x):
        return function(x.astype(np.float64)).astype(np.float32)

    def pytorch_formula(x):
        x = x.astype(np.float32)
        with np.errstate(all="ignore"):
            sigmoid = np.float32(1) / (np.float32(1) + library(np.exp, -x))
            t = library(np.tanh, library(np.log1p, library(np.exp, x)))
            return t + x * sigmoid * (np.float32(1) - t * t)

    big = np.finfo(np.float32).max
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, big, -big], np.float32)
    inputs = [bulk[0], special, dtypes.all_values("float16"), dtypes.all_values("bfloat16")]
    for x in inputs:
        written = pytorch_formula(x).astype(x.dtype).astype(np.float64)
        packaged = dmish_pytorch(x).astype(np.float64)
        assert np.array_equal(written, packaged, equal_nan=True), x.dtype
        assert np.array_equal(np.signbit(written), np.signbit(packaged)), x.dtype


def test_notebook_03s_special_inputs_are_the_oracles_values():
    """Notebook 03 (Reference) shows ours at NaN, ±inf, ±0 and each dtype's largest inputs.

    Ours returns the oracle's value at every one of them (NaN for NaN); the sign of a zero
    differs only at -inf, where the oracle returns the limit +0 and ours -0, the sign d has at
    every very negative x (the oracle's own at the most negative finite float32).
    """
    for dtype in ALL:
        big = float(dtypes.float_info(dtype).max)
        x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, big, -big], dtype=dtype)
        ours = numerics.dmish_ours(x).astype(np.float64)
        truth = oracle.dmish_oracle(x).astype(np.float64)
        assert np.array_equal(ours, truth, equal_nan=True), dtype
        zeros = (ours == 0) & (truth == 0)
        differ = zeros & (np.signbit(ours) != np.signbit(truth))
        assert list(np.flatnonzero(differ)) == [2], dtype  # -inf only
    far_left = np.array([-np.inf, -np.finfo(np.float32).max], np.float32)
    assert not np.any(oracle.dmish_oracle(far_left)) and not np.any(numerics.dmish_ours(far_left))


def test_notebook_10s_b1_is_the_packaged_one(exhaustive):
    """Notebook 10 writes v1's tanhx formula B1 out in NumPy: bit for bit numerics.dmish_b1."""
    x, _ = exhaustive
    t = oracle.tanh_softplus_oracle(x)
    x32, t32 = x.astype(np.float32), t.astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        ex = np.exp(x32)
        b1 = (t32 - (x32 * ex) * (t32 * t32 - 1) * (1 / (ex + 1))).astype(x.dtype)
    assert np.array_equal(b1.view(np.uint16), numerics.dmish_b1(x, t).view(np.uint16))
