"""The AscendC kernel, compiled unchanged against the CPU twin, against the oracle."""

from __future__ import annotations

import error_summary
import numpy as np
import precision_standard
import pytest

from mishgrad.kernel import platforms, tiling, twin
from mishgrad.math import dtypes, errors, numerics, oracle, samples

DTYPES = ["float32", "float16", "bfloat16"]
A2 = platforms.platform("910B2")


def lengths(dtype: str, has_tanhx: bool) -> list[int]:
    size = np.dtype(numerics.as_dtype(dtype)).itemsize
    tile = tiling.max_tile_length(size, has_tanhx, A2.ub_reported)
    cores = A2.vector_cores
    fixed = [1, 2, 7, 8, 15, 16, 31, 32, 33, 255, 256, 257]
    return [*fixed, tile - 1, tile, tile + 1, cores * tile - 1, cores * tile + 1, 1_000_003]


def inputs(n: int, dtype: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.uniform(-30, 30, n)
    x[::97] = rng.uniform(-1.3, -1.1, x[::97].size)  # visit the root window often
    grad = rng.normal(size=n)
    return grad.astype(dtype), x.astype(dtype)


def assert_accurate(out: np.ndarray, grad: np.ndarray, x: np.ndarray) -> None:
    """The accuracy targets for grad * d, allowing for the product's extra rounding."""
    truth = oracle.mish_backward_oracle(grad, x)
    if out.dtype == np.float32:
        positive = x >= 0
        if positive.any():  # d within 4 ULP, plus the product's own rounding
            assert error_summary.summarize(out[positive], truth[positive]).max_ulp <= 5
        summary = error_summary.summarize(out, truth, rel_mask=errors.MISH_GRAD_REGIONS.normal(x))
        assert not summary.max_rel_error > 1.1e-5  # NaN: no element where it applies
    else:
        assert error_summary.summarize(out, truth).max_ulp <= 1
    assert error_summary.summarize(out, truth).spurious_nonfinite == 0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cores", [1, 3, None])
def test_no_tanhx_branch_matches_the_oracle(dtype, cores):
    for index, n in enumerate(lengths(dtype, False)):
        if cores == 1 and n > 300_000:
            continue  # one core walks every tile; covered with more cores
        grad, x = inputs(n, dtype, index)
        run = twin.run_kernel(grad, x, cores=cores)
        assert run.out.dtype == x.dtype and run.out.shape == x.shape
        assert_accurate(run.out, grad, x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cores", [1, None])
def test_tanhx_branch_matches_the_numpy_model(dtype, cores):
    for index, n in enumerate(lengths(dtype, True)):
        if cores == 1 and n > 300_000:
            continue
        grad, x = inputs(n, dtype, 100 + index)
        tanhx = oracle.tanh_softplus_oracle(x)
        out = twin.run_kernel(grad, x, tanhx, cores=cores).out
        model = numerics.mish_backward(grad, x, tanhx)
        # Same operations in the same order; under ieee only glibc's expf (twin) and the
        # correctly rounded exp of vector_math may differ.
        close = errors.ulp_distance(out, model) <= 2
        gap = np.abs(out.astype(np.float64) - model.astype(np.float64))
        assert np.all(close | (gap <= 2e-7 * np.maximum(np.abs(grad.astype(np.float64)), 1)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("model", twin.NUMERICS_MODELS)
def test_16bit_and_float32_derivative_meets_the_targets(dtype, model):
    parts = samples.float32_sample(1 << 18, 1 << 18, 64) if dtype == "float32" else {}
    x = np.concatenate(list(parts.values())) if parts else dtypes.all_values(dtype)
    d = twin.run_kernel(np.ones_like(x), x, numerics=model).out
    truth = oracle.dmish_oracle(x)
    if dtype == "float32":
        whole = error_summary.summarize(
            d,
            truth,
            rel_mask=errors.MISH_GRAD_REGIONS.normal(x),
            abs_mask=errors.MISH_GRAD_REGIONS.in_window(x),
        )
        checks = error_summary.check_float32(
            whole, error_summary.summarize(d[x >= 0], truth[x >= 0])
        )
        uniform = slice(parts["grid"].size, parts["grid"].size + parts["uniform"].size)
        checks.append(
            error_summary.check_float32_uniform(
                error_summary.summarize(d[uniform], truth[uniform]), model
            )
        )
    else:
        summary = error_summary.summarize(d, truth)
        checks = error_summary.check_exhaustive(summary, dtype)
        assert summary.wrong_sign == 0  # the 16-bit path keeps d's sign on every input
    assert all(check.met for check in checks), checks


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("with_tanhx", [False, True])
@pytest.mark.parametrize("model", twin.NUMERICS_MODELS)
def test_special_values(dtype, with_tanhx, model):
    big = float(dtypes.float_info(dtype).max)
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, big, -big] + [1.0] * 57, dtype=dtype)
    grad = np.full_like(x, 2.0)
    tanhx = oracle.tanh_softplus_oracle(x) if with_tanhx else None
    out = twin.run_kernel(grad, x, tanhx, numerics=model).out.astype(np.float64)
    assert np.isnan(out[0]) and out[1] == 2.0 and out[2] == 0.0
    assert np.all(np.isfinite(out[3:]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("with_tanhx", [False, True])
@pytest.mark.parametrize("model", ["hardware", "adversarial"])
def test_kernel_is_its_numpy_model_bit_for_bit(dtype, with_tanhx, model):
    # Under the faithful models the twin and mishgrad.math.vector_math round Exp and Div alike,
    # so any difference is an operation the model does not mirror.
    grad, x = inputs(20_000, dtype, 11)
    x[:4] = [np.nan, np.inf, -np.inf, -90]
    tanhx = oracle.tanh_softplus_oracle(x) if with_tanhx else None
    out = twin.run_kernel(grad, x, tanhx, numerics=model).out
    model_out = numerics.mish_backward(grad, x, tanhx, numerics=model)
    assert np.array_equal(out.view(np.uint8), model_out.view(np.uint8))


@pytest.mark.parametrize("model", twin.NUMERICS_MODELS)
def test_kernel_keeps_d_normal_where_the_exponential_flushes(model):
    x = samples.float32_every(-100.0, -86.0, 61)
    truth = oracle.dmish_oracle(x)
    for tanhx in (None, oracle.tanh_softplus_oracle(x)):
        d = twin.run_kernel(np.ones_like(x), x, tanhx, numerics=model).out
        normal = error_summary.summarize(d, truth, rel_mask=errors.MISH_GRAD_REGIONS.normal(x))
        assert (
            normal.max_rel_error <= dtypes.TABLE["float32"].max_rel_error and normal.wrong_sign == 0
        )
        tail = error_summary.summarize(d, truth, abs_mask=errors.MISH_GRAD_REGIONS.subnormal(x))
        assert error_summary.check_float32_subnormal(tail).met


@pytest.mark.parametrize("model", twin.NUMERICS_MODELS)
def test_kernel_passes_cann_standard_across_the_root_window(model):
    root = float(numerics.root_expansion().high)
    x = samples.float32_every(root - 0.06, root + 0.06, 3)
    truth = oracle.dmish_oracle(x)
    d = twin.run_kernel(np.ones_like(x), x, numerics=model).out
    assert error_summary.summarize(d, truth).max_rel_error <= dtypes.TABLE["float32"].max_rel_error
    assert precision_standard.evaluate(d, truth).passed


def test_guard_bytes_around_every_buffer_never_change():
    guard = 96
    for dtype in DTYPES:
        for with_tanhx in (False, True):
            for n in (1, 7, 33, 257, 4609, 48 * 64 + 5):
                grad, x = inputs(n, dtype, n)
                tanhx = oracle.tanh_softplus_oracle(x) if with_tanhx else None
                arenas, views = [], []
                for source in [grad, x] + ([tanhx] if with_tanhx else []) + [np.zeros_like(x)]:
                    arena = np.full((n + 2 * guard) * x.itemsize, 0xA5, dtype=np.uint8)
                    view = arena[guard * x.itemsize : (guard + n) * x.itemsize].view(x.dtype)
                    view[:] = source
                    arenas.append(arena)
                    views.append(view)
                before = [a.copy() for a in arenas]
                twin.run_kernel(*views[:-1], out=views[-1])
                for arena, original in zip(arenas, before, strict=True):
                    edge = guard * x.itemsize
                    assert np.array_equal(arena[:edge], original[:edge])
                    assert np.array_equal(arena[-edge:], original[-edge:])
                assert np.array_equal(views[-1], twin.run_kernel(grad, x, tanhx).out)


@pytest.mark.parametrize("dtype", DTYPES)
def test_results_identical_for_any_host_threads_and_core_count(dtype):
    grad, x = inputs(300_001, dtype, 5)
    reference = twin.run_kernel(grad, x, host_threads=1).out
    for options in ({"host_threads": 2}, {"host_threads": 7}, {"cores": 5}, {"cores": 1}):
        assert np.array_equal(
            twin.run_kernel(grad, x, **options).out.view(np.uint8), reference.view(np.uint8)
        )


def test_kernel_buffers_are_the_budget_table_laid_out_in_order_below_the_limit():
    # Notebook 04 reads core 0's InitBuffer calls (float32, no tanhx) and sums their bytes per
    # element by hand; here every dtype and branch: each buffer is the budget's (bytes and
    # copies), starts where the one before ends, from offset 0, and the layout ends within
    # ub_limit.
    for dtype in DTYPES:
        for with_tanhx in (False, True):
            grad, x = inputs(1000, dtype, 0)
            tanhx = oracle.tanh_softplus_oracle(x) if with_tanhx else None
            run = twin.run_kernel(grad, x, tanhx, trace=True)
            trace = run.trace
            events = trace[(trace["op"] == b"InitBuffer") & (trace["core"] == 0)]
            starts, sizes = events["dst"].astype(np.int64), events["bytes"].astype(np.int64)
            budget = tiling.budget(x.itemsize, with_tanhx)
            assert sizes.tolist() == [b.bytes_for(run.plan.tileLength) for b in budget]
            assert events["count"].tolist() == [b.copies for b in budget]
            assert starts[0] == 0 and np.array_equal(starts[1:], (starts + sizes)[:-1])
            limit = tiling.ub_limit(A2.ub_reported, x.itemsize, with_tanhx, A2.select_uses_scratch)
            assert starts[-1] + sizes[-1] <= limit
            per_element = sizes.sum() / run.plan.tileLength
            assert per_element == sum(b.copies * b.bits_per_element for b in budget) / 8


def test_bad_inputs_raise_clear_errors():
    x = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match="grad has dtype float16"):
        twin.run_kernel(np.zeros(8, np.float16), x)
    with pytest.raises(ValueError, match="grad has 7 elements"):
        twin.run_kernel(np.zeros(7, np.float32), x)
    with pytest.raises(ValueError, match="empty"):
        twin.run_kernel(np.zeros(0, np.float32), np.zeros(0, np.float32))
    with pytest.raises(ValueError, match="dtype must be one of"):
        twin.run_kernel(np.zeros(8), np.zeros(8))
    with pytest.raises(ValueError, match="out must be"):
        twin.run_kernel(x, x, out=np.zeros(8, np.float16))


def test_a_plan_that_overruns_the_tensor_is_caught():
    import dataclasses

    grad, x = inputs(100, "float32", 1)
    plan = twin.native_tiling(100, 4, False, A2.ub_reported, 48)
    too_long = dataclasses.replace(
        plan, lastCoreLength=plan.lastCoreLength + 8, lastTailLength=plan.lastTailLength + 8
    )
    with pytest.raises(twin.KernelError, match="SetGlobalBuffer"):
        twin.run_kernel(grad, x, plan=too_long)
    # Each buffer fits the UB, all of them do not: the twin's InitBuffer says so (a buffer
    # larger than the UB is refused before the launch, naming tileLength: tests/test_twin_plan.py).
    huge_tile = dataclasses.replace(plan, tileLength=plan.tileLength * 2)
    with pytest.raises(twin.KernelError, match="TPipe::InitBuffer"):
        twin.run_kernel(grad, x, plan=huge_tile)


def test_notebook_05s_transcription_is_dmish_ours():
    """Notebook 05: numerics.dmish_ours is the kernel's Derivative, with a correctly rounded Exp.

    On the notebook's float32 inputs (random bit patterns, a uniform sample, the root window,
    the special values): under the faithful models it is the kernel bit for bit; under ieee
    it differs only where the C library's expf (the twin's Exp) and the correctly rounded
    exponential part, for the argument the kernel's Exp is given.
    """
    import re

    from mishgrad.kernel.source import OPERATOR_DIR
    from mishgrad.math import vector_math

    rng = np.random.default_rng(5)
    x = np.concatenate(
        [
            rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32).view(np.float32),
            rng.uniform(-20, 20, 50_000).astype(np.float32),
            np.linspace(-1.3, -1.1, 50_001, dtype=np.float32),
            np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=np.float32),
        ]
    )

    def same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))

    for model in ("hardware", "adversarial"):
        kernel = twin.run_kernel(np.ones_like(x), x, numerics=model).out
        assert np.all(same(kernel, numerics.dmish_ours(x, model))), model
    header = (OPERATOR_DIR / "op_kernel" / "mish_grad.h").read_text()
    far = np.float32(re.search(r"constexpr float kFarLimit = ([-+.\deE]+)f;", header)[1])
    a = -np.abs(x)
    with np.errstate(invalid="ignore"):  # signalling NaNs among the random bit patterns
        argument = np.where(x < far, a * np.float32(0.5), a)  # Exponential: Exp's argument
    exps_agree = same(twin.native_exp(argument, "ieee"), vector_math.exp(argument))
    assert exps_agree.mean() > 0.999
    kernel = twin.run_kernel(np.ones_like(x), x, numerics="ieee").out
    assert np.all(same(kernel, numerics.dmish_ours(x))[exps_agree])
