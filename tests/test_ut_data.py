"""The kernel unit test's NumPy-only data scripts agree with the package they stand in for.

``kernel/mish_grad/tests/ut/op_kernel/mish_grad_data`` is copied into ops-nn, where only NumPy is at
hand, so its golden and verdicts are restated there (``mish_grad_golden.py``). Here they are
held to :mod:`mishgrad.math.oracle` and :mod:`mishgrad.evaluation.precision`, and the scripts
are run by an interpreter that cannot import mishgrad, ml_dtypes or mpmath.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import ml_dtypes
import numpy as np
import precision_standard
import pytest

from mishgrad.kernel.source import OPERATOR_DIR
from mishgrad.math import oracle, samples
from mishgrad.math.dtypes import as_dtype, ordered

DATA = OPERATOR_DIR / "tests" / "ut" / "op_kernel" / "mish_grad_data"
DTYPES = ("float32", "float16", "bfloat16")
#: The elements of the unit test's two cases (mish_grad_case.h of the kernel tests).
UT_CASES = {"without tanhx": 48 * 4099 + 13, "with tanhx": 3 * 1000 + 1}
#: Modules the scripts must do without.
BLOCKED = ("mishgrad", "ml_dtypes", "mpmath", "scipy")


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mish_grad_golden", DATA / "mish_grad_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


mg = _load()


def package_view(stored: np.ndarray, dtype: str) -> np.ndarray:
    """Stored elements as the package's dtype (bfloat16 bits as ml_dtypes' bfloat16)."""
    return stored.view(ml_dtypes.bfloat16) if dtype == "bfloat16" else stored


def ulps_apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in ULPs, 0 where both are NaN."""
    distance = np.abs(ordered(a).astype(np.int64) - ordered(b).astype(np.int64))
    both_nan = np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    distance[both_nan] = 0
    return distance


def stored_inputs(n: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    grad, x = mg.inputs(n)
    return mg.from_float32(grad, dtype), mg.from_float32(x, dtype)


def test_seed_and_inputs_are_the_package_sample_convention():
    assert samples.SEED == mg.SEED
    grad, x = mg.inputs(20)
    rng = np.random.default_rng(samples.SEED)
    expected_x = rng.uniform(-20.0, 20.0, 20).astype(np.float32)
    expected_x[:8] = mg.SPECIAL
    np.testing.assert_array_equal(x, expected_x)
    np.testing.assert_array_equal(grad, rng.uniform(-2.0, 2.0, 20).astype(np.float32))


@pytest.mark.parametrize("dtype", DTYPES)
def test_inputs_round_as_the_package_dtypes_do(dtype):
    grad, x = mg.inputs(UT_CASES["without tanhx"])
    for values in (grad, x):
        with np.errstate(over="ignore"):
            expected = values.astype(as_dtype(dtype))
        stored = package_view(mg.from_float32(values, dtype), dtype)
        assert stored.tobytes() == expected.tobytes()


def test_bfloat16_from_float32_is_ml_dtypes_rounding_on_every_kind_of_value():
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)
    # ties, both neighbours of ties, infinities, the largest values, subnormals, zeros
    edges = np.array(
        [
            *(0x3F808000, 0x3F818000, 0x3F807FFF, 0x3F808001),
            *(0x7F7FFFFF, 0x7F7F8000, 0x7F800000, 0xFF7F8000),
            *(0x00008000, 0x00018000, 0x00000001, 0x80000000, 0x00000000),
        ],
        dtype=np.uint32,
    )
    values = np.concatenate([bits, edges]).view(np.float32)
    finite = ~np.isnan(values)
    ours = mg.bfloat16_from_float32(values)
    with np.errstate(over="ignore", invalid="ignore"):
        theirs = values.astype(ml_dtypes.bfloat16).view(np.uint16)
    np.testing.assert_array_equal(ours[finite], theirs[finite])
    assert np.all(np.isnan(mg.bfloat16_to_float32(ours[~finite])))
    np.testing.assert_array_equal(
        mg.bfloat16_to_float32(ours[finite]),
        theirs[finite].view(ml_dtypes.bfloat16).astype(np.float32),
    )


def test_float64_rounds_once_to_bfloat16():
    """Just above and below every kind of midpoint, where rounding through float32 errs."""
    rng = np.random.default_rng(8)
    upper = rng.integers(0x0001, 0x7F7F, 50_000, dtype=np.uint32)
    below, above = (upper << 16), ((upper + 1) << 16)
    lo, hi = below.view(np.float32).astype(np.float64), above.view(np.float32).astype(np.float64)
    midpoint = (lo + hi) / 2  # exact in float64
    tiny = np.spacing(midpoint)
    for values, expected in (
        (np.nextafter(midpoint, np.inf), upper + 1),  # float32 would round to the midpoint
        (np.nextafter(midpoint, -np.inf), upper),
        (midpoint + 1000 * tiny, upper + 1),
        (midpoint, np.where(upper % 2 == 0, upper, upper + 1)),  # ties to even
    ):
        for sign in (1.0, -1.0):
            got = mg.round_float64(sign * values, "bfloat16")
            want = expected.astype(np.uint16) | np.uint16(0x8000 if sign < 0 else 0)
            np.testing.assert_array_equal(got, want)
    extremes = np.array([np.inf, -np.inf, 1e300, -1e300, 1e-300, -1e-300, 0.0, -0.0])
    np.testing.assert_array_equal(
        mg.round_float64(extremes, "bfloat16"),
        np.array([0x7F80, 0xFF80, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0000, 0x8000], np.uint16),
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", UT_CASES)
def test_golden_is_the_oracle_on_the_unit_test_inputs(dtype, case):
    """Measured: no element differs, signs of zero included, for any dtype or case."""
    grad, x = stored_inputs(UT_CASES[case], dtype)
    ours = package_view(mg.golden(grad, x, dtype), dtype)
    truth = oracle.mish_backward_oracle(package_view(grad, dtype), package_view(x, dtype), dtype)
    assert ours.tobytes() == truth.tobytes()
    t = package_view(mg.tanh_softplus(x, dtype), dtype)
    t_truth = oracle.tanh_softplus_oracle(package_view(x, dtype), dtype)
    assert np.count_nonzero(ulps_apart(t, t_truth)) == 0


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_golden_is_the_oracle_for_every_16_bit_x(dtype):
    """Every bit pattern of x, random grad: measured identical."""
    x = np.arange(2**16, dtype=np.uint16)
    x = x if dtype == "bfloat16" else x.view(np.float16)
    grad = mg.from_float32(np.random.default_rng(9).uniform(-2, 2, 2**16).astype(np.float32), dtype)
    ours = package_view(mg.golden(grad, x, dtype), dtype)
    with np.errstate(invalid="ignore"):  # the oracle widens NaN inputs
        truth = oracle.mish_backward_oracle(package_view(grad, dtype), package_view(x, dtype))
    assert np.count_nonzero(ulps_apart(ours, truth)) == 0


def test_float32_golden_near_the_root_of_d_misses_by_at_most_one_ulp_rarely():
    """Near x0 = -1.19243 the terms of d cancel and float64's few-ulp error can straddle a
    float32 rounding midpoint: measured 1 to 3 elements in 200,000 (seeds 0-4), each 1 ULP."""
    rng = np.random.default_rng(0)
    n = 200_000
    grad = rng.uniform(-2, 2, n).astype(np.float32)
    x = (-1.19243 + rng.uniform(-1e-3, 1e-3, n)).astype(np.float32)
    distance = ulps_apart(mg.golden(grad, x, "float32"), oracle.mish_backward_oracle(grad, x))
    assert distance.max() <= 1
    assert np.count_nonzero(distance) <= 10


def _outputs(golden: np.ndarray, dtype: str) -> dict[str, np.ndarray]:
    """Passing and failing outputs made from a golden, as stored elements."""
    g64 = mg.to_float64(golden, dtype)
    rng = np.random.default_rng(10)
    one_ulp = g64 + np.where(rng.random(g64.size) < 0.3, 1.0, 0.0) * mg.ulp(golden, dtype)
    few_wrong = g64.copy()
    # 10 of thousands beyond rtol but under the cap: within the 1 % the mixed tolerance forgives
    few_wrong[100:110] *= 1 + 4 * mg.MIXED_TOLERANCES[dtype][0]
    many_wrong = g64 * (1 + 0.05 * (rng.random(g64.size) < 0.2))
    one_huge = g64.copy()
    one_huge[200] += 50.0
    with_nan = g64.copy()
    with_nan[300] = np.nan
    flipped = -g64
    return {
        name: mg.round_float64(values, dtype)
        for name, values in {
            "golden": g64,
            "one ulp": one_ulp,
            "few wrong": few_wrong,
            "many wrong": many_wrong,
            "one huge": one_huge,
            "nan": with_nan,
            "flipped": flipped,
        }.items()
    }


@pytest.mark.parametrize("dtype", DTYPES)
def test_verdicts_are_the_precision_modules(dtype):
    grad, x = stored_inputs(5000, dtype)
    golden = mg.golden(grad, x, dtype)
    verdicts = {}
    for name, output in _outputs(golden, dtype).items():
        a, g = package_view(output, dtype), package_view(golden, dtype)
        ours, theirs = (
            mg.mixed_tolerance(output, golden, dtype),
            precision_standard.mixed_tolerance(a, g),
        )
        assert ours.matched_ratio == theirs.matched_ratio, name
        assert ours.max_abs_error == theirs.max_abs_error, name
        assert (ours.cap_passed, ours.passed) == (theirs.cap_passed, theirs.passed), name
        first, reference = (
            mg.first_release(output, golden, dtype),
            precision_standard.evaluate(a, g),
        )
        assert first.mere == pytest.approx(reference.mere, rel=1e-12), name
        assert first.mare == reference.mare, name
        assert (first.threshold, first.mare_limit) == (reference.mere_limit, reference.mare_limit)
        assert first.passed == reference.passed, name
        verdicts[name] = ours.passed
    assert verdicts == {
        "golden": True,
        "one ulp": True,
        "few wrong": True,
        "many wrong": False,
        "one huge": False,
        "nan": False,  # one element of 5000, but an infinite error breaks the cap
        "flipped": False,
    }


def _run_without_the_package(
    script: str, args: list[str], cwd: Path
) -> subprocess.CompletedProcess:
    """Run ``script`` in ``cwd`` as ``python3 script args`` would, with BLOCKED unimportable."""
    code = (
        "import runpy, sys\n"
        f"sys.modules.update(dict.fromkeys({BLOCKED!r}))\n"
        f"sys.argv = [{script!r}, *{args!r}]\n"
        f"runpy.run_path({script!r}, run_name='__main__')\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("tanhx", [False, True], ids=["without_tanhx", "with_tanhx"])
def test_scripts_run_without_mishgrad_and_write_the_oracles_golden(tmp_path, dtype, tanhx):
    folder = tmp_path / "mish_grad_data"
    shutil.copytree(DATA, folder)
    n = 3001
    gen = _run_without_the_package("gen_data.py", [str(n), dtype, *(["tanhx"] * tanhx)], folder)
    assert gen.returncode == 0, gen.stderr
    storage = mg.STORAGE[dtype]
    grad, x = (np.fromfile(folder / f"input_{k}.bin", storage) for k in ("grad", "x"))
    golden = np.fromfile(folder / "golden.bin", storage)
    expected_grad, expected_x = stored_inputs(n, dtype)
    np.testing.assert_array_equal(grad, expected_grad)
    np.testing.assert_array_equal(x, expected_x)
    if tanhx:
        t = np.fromfile(folder / "input_tanhx.bin", storage)
        truth_t = oracle.tanh_softplus_oracle(package_view(x, dtype), dtype)
        assert package_view(t, dtype).tobytes() == truth_t.tobytes()
        assert golden.tobytes() == mg.golden_with_tanhx(grad, x, t, dtype).tobytes()
    else:
        truth = oracle.mish_backward_oracle(package_view(grad, dtype), package_view(x, dtype))
        assert np.count_nonzero(ulps_apart(package_view(golden, dtype), truth)) == 0

    outputs = _outputs(golden, dtype)
    for name, expected in (("golden", True), ("many wrong", False), ("one huge", False)):
        outputs[name].tofile(folder / "output.bin")
        compare = _run_without_the_package("compare_data.py", [dtype], folder)
        assert compare.returncode == (0 if expected else 1), (name, compare.stderr)
        lines = compare.stdout.splitlines()
        assert lines[0] == f"{dtype}, {n} elements"
        verdict = precision_standard.mixed_tolerance(
            package_view(outputs[name], dtype), package_view(golden, dtype)
        )
        assert "(in force)" in lines[1] and lines[1].endswith(f": {verdict.verdict}")
        assert f"matched {100 * verdict.matched_ratio:.4f} %" in lines[1]
        assert (folder / "compare_report.txt").read_text() == compare.stdout


def test_a_script_that_imports_mishgrad_fails_there(tmp_path):
    """The guard itself: the blocked interpreter rejects an ``import mishgrad``."""
    folder = tmp_path / "mish_grad_data"
    shutil.copytree(DATA, folder)
    script = folder / "gen_data.py"
    script.write_text("import mishgrad.math.oracle\n" + script.read_text())
    assert _run_without_the_package("gen_data.py", ["16", "float32"], folder).returncode != 0
