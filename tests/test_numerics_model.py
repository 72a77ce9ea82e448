"""The twin's numerics models of Exp and Div (twin/numerics.h) and their NumPy twin."""

from __future__ import annotations

import ctypes
import ctypes.util
from fractions import Fraction

import accuracy_runs
import mpmath
import numpy as np
import pytest

from mishgrad import aclnn
from mishgrad.kernel import launcher, platforms, twin, twin_abi
from mishgrad.kernel.operators import MISH_GRAD
from mishgrad.kernel.twin_abi import run_entry
from mishgrad.math import dtypes, oracle, vector_math

FAITHFUL = ("hardware", "adversarial")
FLT_MIN = np.finfo(np.float32).tiny
FLT_MAX = np.finfo(np.float32).max


def as_fraction(value: mpmath.mpf | Fraction) -> Fraction:
    """An mpf (a binary number) or a Fraction as an exact Fraction."""
    if isinstance(value, Fraction):
        return value
    mantissa, exponent = value.man_exp
    return Fraction(mantissa) * Fraction(2) ** exponent


def neighbours(exact: Fraction) -> tuple[np.float32, np.float32]:
    """The float32 values just below (or at) and just above an exact value."""
    low = np.float32(float(exact))
    if Fraction(float(low)) > exact:
        low = np.nextafter(low, np.float32(-np.inf))
    return low, np.nextafter(low, np.float32(np.inf))


def check_faithful(results: np.ndarray, exacts: list, model: str) -> None:
    """Each result is a float32 neighbour of its exact value; adversarial the farther one."""
    for result, value in zip(results, exacts, strict=True):
        exact = as_fraction(value)
        low, high = neighbours(exact)
        assert result in (low, high), (exact, result)
        if model == "adversarial" and low != exact:
            below = exact - Fraction(float(low))
            above = Fraction(float(high)) - exact
            assert result == (high if below <= above else low), (exact, result)


def exp_operands(rng: np.random.Generator, n: int) -> np.ndarray:
    """Normal-result arguments: uniform over [-87, 88.7] and a log-spread around zero."""
    spread = np.exp2(rng.uniform(-29, 3, n // 2)) * rng.choice([-1, 1], n // 2)
    return np.concatenate([rng.uniform(-87, 88.7, n - n // 2), spread]).astype(np.float32)


def random_floats(rng: np.random.Generator, n: int, low: float, high: float) -> np.ndarray:
    """Signed float32 of magnitudes spread evenly over [2^low, 2^high)."""
    magnitudes = np.exp2(rng.uniform(low, high, n)) * rng.choice([-1, 1], n)
    return magnitudes.astype(np.float32)


def random_bits(rng: np.random.Generator, n: int) -> np.ndarray:
    """Every float32 pattern equally likely: NaNs, infinities and subnormals included."""
    return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("model", FAITHFUL)
def test_exp_is_faithful_to_the_exact_exponential(model):
    x = exp_operands(np.random.default_rng(1), 4000)
    with mpmath.workdps(40):
        exacts = [mpmath.exp(mpmath.mpf(float(v))) for v in x]
    check_faithful(twin.native_exp(x, model), exacts, model)


@pytest.mark.parametrize("model", FAITHFUL)
def test_div_is_faithful_to_the_exact_quotient(model):
    rng = np.random.default_rng(2)
    a, b = random_floats(rng, 4000, -60, 60), random_floats(rng, 4000, -60, 60)
    exacts = [Fraction(float(p)) / Fraction(float(q)) for p, q in zip(a, b, strict=True)]
    check_faithful(twin.native_div(a, b, model), exacts, model)


def test_hardware_takes_either_neighbour_about_equally_often():
    rng = np.random.default_rng(3)
    x = exp_operands(rng, 20000)
    a, b = random_floats(rng, 20000, -20, 20), random_floats(rng, 20000, -20, 20)
    for hardware, ieee in [
        (twin.native_exp(x, "hardware"), twin.native_exp(x, "ieee")),
        (twin.native_div(a, b, "hardware"), twin.native_div(a, b, "ieee")),
    ]:
        assert 0.45 < np.mean(hardware == ieee) < 0.55  # the nearer one half of the time


@pytest.mark.parametrize("model", FAITHFUL)
def test_exact_results_stay_exact(model):
    a = np.array([6, 1, -7, 3, 0.75, 2**-100, FLT_MAX], dtype=np.float32)
    b = np.array([3, 4, 2, -0.5, 0.25, 2**20, 2], dtype=np.float32)
    np.testing.assert_array_equal(twin.native_div(a, b, model), a / b)
    assert twin.native_exp(np.array([0, -0.0], dtype=np.float32), model).tolist() == [1, 1]


@pytest.mark.parametrize("model", FAITHFUL)
def test_tiny_arguments_give_one_or_its_neighbour_on_their_side(model):
    x = np.array([2**-31, -(2**-31), 2**-60, -(2**-149)], dtype=np.float32)
    above, below = np.nextafter(np.float32(1), np.float32(2)), np.nextafter(np.float32(1), 0)
    result = twin.native_exp(x, model)
    assert np.all(np.where(x > 0, np.isin(result, [1, above]), np.isin(result, [below, 1])))
    if model == "adversarial":
        np.testing.assert_array_equal(result, np.where(x > 0, above, below))


@pytest.mark.parametrize("model", FAITHFUL)
def test_exp_flushes_subnormal_results_to_zero(model):
    x = np.linspace(-103, -87.2, 200_001, dtype=np.float32)
    ieee, result = twin.native_exp(x, "ieee"), twin.native_exp(x, model)
    subnormal = (ieee > 0) & (ieee < FLT_MIN)
    assert subnormal.sum() > 100_000  # the C library keeps them
    assert np.all(result[subnormal] == 0)
    assert np.all(result[ieee > FLT_MIN] >= FLT_MIN)  # normal results are kept


@pytest.mark.parametrize("model", FAITHFUL)
def test_div_flushes_subnormal_results_but_not_subnormal_inputs(model):
    a = np.array([2**-140, -(2**-140), 2**-140, 2**-100], dtype=np.float32)
    b = np.array([1, 1, 2**-20, 2**30], dtype=np.float32)
    result = twin.native_div(a, b, model)
    assert result[0] == 0 and result[1] == 0 and np.signbit(result[1])  # a zero of its sign
    assert result[2] == np.float32(2**-120)  # a subnormal operand counts (no flush of inputs)
    assert result[3] == 0


@pytest.mark.parametrize("model", twin.NUMERICS_MODELS)
def test_special_values(model):
    x = np.array([np.nan, np.inf, -np.inf, 89, 88.72283, -104], dtype=np.float32)
    result = twin.native_exp(x, model)
    assert np.isnan(result[0]) and result[1] == np.inf and result[2] == 0 and result[3] == np.inf
    assert np.isfinite(result[4]) and result[5] == 0
    a = np.array([1, -1, 0, np.inf, np.nan, 0, FLT_MAX], dtype=np.float32)
    b = np.array([0, 0, 0, np.inf, 1, -5, 0.5], dtype=np.float32)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(twin.native_div(a, b, model), a / b)


@pytest.mark.parametrize("model", twin.NUMERICS_MODELS)
def test_numpy_model_is_bit_identical_to_the_twin(model):
    rng = np.random.default_rng(4)
    edges = [np.linspace(-88.5, -86.5, 20_000), np.linspace(88, 89.5, 2_000)]
    x = np.concatenate(
        [
            exp_operands(rng, 100_000),
            random_bits(rng, 50_000),
            *(e.astype(np.float32) for e in edges),
        ]
    )
    expected = twin.native_exp(x, model).view(np.uint32)
    identical = vector_math.exp(x, model).view(np.uint32) == expected
    if model == "ieee":  # the C library's expf is not always correctly rounded
        assert np.mean(identical) > 0.998
    else:
        assert identical.all()
    a = np.concatenate([random_floats(rng, 100_000, -130, 128), random_bits(rng, 50_000)])
    b = np.concatenate([random_floats(rng, 100_000, -130, 128), random_bits(rng, 50_000)])
    expected = twin.native_div(a, b, model).view(np.uint32)
    np.testing.assert_array_equal(vector_math.div(a, b, model).view(np.uint32), expected)


def test_ieee_is_the_c_library_and_ieee_division():
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.expf.argtypes, libm.expf.restype = [ctypes.c_float], ctypes.c_float
    x = exp_operands(np.random.default_rng(5), 3000)
    expected = np.array([libm.expf(float(v)) for v in x], dtype=np.float32)
    np.testing.assert_array_equal(twin.native_exp(x, "ieee"), expected)
    a, b = x[:1500], x[1500:]
    np.testing.assert_array_equal(twin.native_div(a, b, "ieee"), a / b)


def kernel_inputs(n: int = 100_000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(6)
    return rng.normal(size=n).astype(np.float32), rng.uniform(-30, 30, n).astype(np.float32)


def test_the_kernel_runs_each_model_deterministically():
    grad, x = kernel_inputs()
    ieee = twin.run_kernel(grad, x).out
    np.testing.assert_array_equal(twin.run_kernel(grad, x, numerics="ieee").out, ieee)
    for model in FAITHFUL:
        reference = twin.run_kernel(grad, x, numerics=model).out
        assert np.mean(reference != ieee) > 0.05  # the model reaches the kernel's Exp and Div
        for cores, threads in [(1, 1), (7, 2), (None, 1)]:
            run = twin.run_kernel(grad, x, numerics=model, cores=cores, host_threads=threads)
            np.testing.assert_array_equal(run.out, reference)


def test_the_environment_chooses_the_model(monkeypatch):
    grad, x = kernel_inputs(5000)
    monkeypatch.delenv(launcher.NUMERICS_VARIABLE, raising=False)
    assert twin.numerics_model() == "ieee"
    monkeypatch.setenv(launcher.NUMERICS_VARIABLE, "")
    assert twin.numerics_model() == "ieee"
    monkeypatch.setenv(launcher.NUMERICS_VARIABLE, "adversarial")
    assert twin.numerics_model() == "adversarial" and twin.numerics_model("ieee") == "ieee"
    adversarial = twin.run_kernel(grad, x, numerics="adversarial").out
    np.testing.assert_array_equal(twin.run_kernel(grad, x).out, adversarial)
    np.testing.assert_array_equal(twin.native_exp(x), twin.native_exp(x, "adversarial"))


def test_unknown_models_are_refused(monkeypatch):
    grad, x = kernel_inputs(100)
    monkeypatch.setenv(launcher.NUMERICS_VARIABLE, "fast")
    with pytest.raises(ValueError, match="MISHGRAD_TWIN_NUMERICS is 'fast'"):
        twin.run_kernel(grad, x)
    with pytest.raises(ValueError, match="numerics is 'Hardware'"):
        twin.run_kernel(grad, x, numerics="Hardware")
    with pytest.raises(ValueError, match="model is 'hw'"):
        vector_math.div(x, x, "hw")


def test_the_c_abi_refuses_an_unknown_model():
    grad, x = kernel_inputs(1000)
    out = np.empty_like(x)
    chip = platforms.platform("910B2")
    plan = twin.native_tiling(x.size, 4, False, chip.ub_reported, chip.vector_cores)
    config = twin_abi.TwinConfig(chip.ub_bytes, chip.select_scratch_begin, 1, 0, 3)
    lib = twin.library()
    tensors = {"grad": grad, "x": x, "x_grad": out}
    tiling = bytes(twin.TilingData.from_plan(plan))
    launch = twin.Launch("mish_grad_float", MISH_GRAD.arguments, tensors, ("x_grad",), tiling, 1, 1)
    regions = {name: (array.ctypes.data, array.nbytes) for name, array in tensors.items()}
    status = run_entry(lib, launch, regions, config)
    assert status == 2 and b"numerics is 3" in lib.mishgrad_twin_last_error()
    pointer = ctypes.POINTER(ctypes.c_float)
    assert (
        lib.mishgrad_twin_exp(x.ctypes.data_as(pointer), out.ctypes.data_as(pointer), x.size, 3)
        == 2
    )


def test_aclnn_follows_the_environment(monkeypatch):
    grad, x = kernel_inputs(5000)
    monkeypatch.setenv(launcher.NUMERICS_VARIABLE, "hardware")
    with aclnn.Session("twin") as session:
        out = aclnn.mish_backward(grad, x, session=session)
        np.testing.assert_array_equal(out, twin.run_kernel(grad, x, numerics="hardware").out)
        monkeypatch.setenv(launcher.NUMERICS_VARIABLE, "nonsense")
        with pytest.raises(aclnn.AclError, match="MISHGRAD_TWIN_NUMERICS is 'nonsense'"):
            aclnn.mish_backward(grad, x, session=session)


def test_notebook_11s_adversarial_exp_is_the_twins():
    """Notebook 11 writes the adversarial Exp out: the float32 neighbour of exp(x) (float64)
    farther from it, flushed to 0 below the smallest normal float32. The twin's model agrees."""
    rng = np.random.default_rng(11)
    shown = [-1.0, 0.5, 3.0, -87.0, -87.5, -100.0]  # the notebook's arguments
    x = np.concatenate([shown, rng.uniform(-87.9, 88.5, 5000)]).astype(np.float32)
    exact = np.exp(x.astype(np.float64))
    nearest = exact.astype(np.float32)
    low = np.where(nearest <= exact, nearest, np.nextafter(nearest, np.float32(0)))
    high = np.nextafter(low, np.float32(np.inf))
    chosen = np.where(exact - low <= high - exact, high, low)
    chosen = np.where(nearest == exact, nearest, chosen)
    adversarial = np.where(chosen < FLT_MIN, np.float32(0), chosen)
    assert np.array_equal(adversarial, vector_math.exp(x, "adversarial"))
    assert np.array_equal(adversarial, twin.native_exp(x, "adversarial"))


def test_notebook_11s_sixteen_bit_targets_by_hand_are_accuracys():
    """Notebook 11 measures the 16-bit targets and CANN's verdict from the kernel's outputs by
    hand, under each model; ``accuracy_runs.sixteen_bit`` reports the same."""
    for name in ("float16", "bfloat16"):
        x, packaged = dtypes.all_values(name), accuracy_runs.sixteen_bit(name)
        g = oracle.dmish_oracle(x)
        limit = {"float16": 2.0**-10, "bfloat16": 2.0**-7}[name]
        for model in twin.NUMERICS_MODELS:
            d = twin.run_kernel(np.ones_like(x), x, numerics=model).out
            bits = np.stack([d, g]).view(np.uint16).astype(np.int64)
            key = np.where(bits >= 0x8000, 0x8000 - bits, bits)  # in the order of the values
            ulps = np.abs(key[0] - key[1])
            correct = 100 * np.mean(ulps == 0)
            nonfinite = int(np.sum(~np.isfinite(d.astype(np.float64))))
            a, g64 = d.astype(np.float64), g.astype(np.float64)
            r = np.where(a == g64, 0.0, np.abs(a - g64) / (np.abs(g64) + 1e-7))
            verdict = "pass" if r.mean() < limit and r.max() < 10 * limit else "fail"
            summary, result = packaged[model].summary, packaged[model]
            assert (ulps.max(), correct, nonfinite) == (
                summary.max_ulp,
                summary.correctly_rounded_pct,
                summary.spurious_nonfinite,
            ), (name, model)
            met = [ulps.max() <= 1, correct >= 99.9, nonfinite == 0]
            assert met == [check.met for check in result.checks], (name, model)
            assert verdict == result.cann.verdict, (name, model)
