"""The operator's ops-nn-format unit tests fail when what they test breaks.

`make test` runs them as they are first (`make ut`); here each runs on a broken copy.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mishgrad.kernel import twin
from mishgrad.kernel.source import OPERATOR_DIR
from tools import ut

pytestmark = pytest.mark.slow  # builds broken copies of the operator and their unit tests

#: The kernel test suites of the 16-bit dtypes (tests/ut/op_kernel/test_mish_grad_*.cpp).
SIXTEEN_BIT_SUITES = ("mish_grad_half_test", "mish_grad_bfloat16_test")


@pytest.mark.parametrize(
    ("program", "path", "right", "wrong", "failing", "says"),  # failing: suite.test
    [
        (
            "op_host",
            "op_host/mish_grad_infershape.cpp",
            "xGradShape->AppendDim(dim);",
            "(void)dim;",
            "MishGradInferShape.mish_grad_x_grad_has_the_shape_of_x",
            "",
        ),
        (  # a status code changed: the contract that both CANN's adapter and the twin apply
            "op_api",
            "common/mish_grad_contract.h",
            'return {kAclnnErrParamNullptr, std::string(names[i]) + " is a null pointer"',
            'return {kAclnnErrParamInvalid, std::string(names[i]) + " is a null pointer"',
            "l2_mish_backward_test.mish_backward_003_exception_null_tensors",
            "Which is: 161002",
        ),
        (
            "op_kernel",
            "op_kernel/mish_grad.cpp",
            "kernel.Process();",
            "",
            "mish_grad_half_test.test_case_without_tanhx",
            "mixed tolerance (in force): matched",
        ),
        (  # a wrong golden: compare_data.py's verdict must fail the gtest, with its report
            "op_kernel",
            "tests/ut/op_kernel/mish_grad_data/mish_grad_golden.py",
            "return round_float64(product, dtype)",
            "return round_float64(1.5 * product, dtype)",
            "mish_grad_bfloat16_test.test_case_without_tanhx",
            "compare_data.py bfloat16 failed in ./mish_grad_data:\nbfloat16, 196765 elements",
        ),
        (  # gen_data.py failing (as without NumPy) must stop the test before the kernel runs
            "op_kernel",
            "tests/ut/op_kernel/mish_grad_data/gen_data.py",
            "def main(argv: list[str]) -> None:",
            "def main(argv: list[str]) -> None:\n    raise SystemExit(3)",
            "mish_grad_test.test_case_with_tanhx",
            "gen_data.py 3001 float32 tanhx failed in ./mish_grad_data",
        ),
    ],
    ids=["infershape", "status_code", "kernel", "golden", "gen_data"],
)
def test_a_broken_operator_fails_its_unit_test(
    tmp_path, program, path, right, wrong, failing, says
):
    result = _run_broken(tmp_path, program, path, right, wrong)
    assert result.returncode != 0
    assert f"[  FAILED  ] {failing}" in result.stdout
    assert says in result.stdout


def test_a_wrong_widening_fails_the_16_bit_kernel_tests_and_only_them(tmp_path):
    # The 16-bit path widens x to float32 first; widening grad in its place must be caught by
    # the half and bfloat16 tests, which compile that path, and by them alone.
    right = "Cast(xf, x, RoundMode::CAST_NONE, count);"
    wrong = "Cast(xf, grad, RoundMode::CAST_NONE, count);"
    result = _run_broken(tmp_path, "op_kernel", "op_kernel/mish_grad.h", right, wrong)
    failed = set(re.findall(r"^\[  FAILED  \] (\w+\.\w+)$", result.stdout, re.MULTILINE))
    cases = ("test_case_without_tanhx", "test_case_with_tanhx")
    assert result.returncode != 0
    assert failed == {f"{suite}.{case}" for suite in SIXTEEN_BIT_SUITES for case in cases}
    assert "compare_data.py float16 failed" in result.stdout
    assert "compare_data.py bfloat16 failed" in result.stdout


def _run_broken(tmp_path: Path, program: str, path: str, right: str, wrong: str):
    """Run ``program`` built from a copy of the operator with ``right`` replaced by ``wrong``."""
    kernel = tmp_path / "kernel"
    shutil.copytree(OPERATOR_DIR, kernel)
    source = kernel / path
    assert right in source.read_text()
    source.write_text(source.read_text().replace(right, wrong))
    broken = {p.name: p for p in ut.programs(kernel)}[program]
    return ut.run(broken, kernel, tmp_path / "build")


# Notebook 13 reads these programs' log (section 6); the checks of what it shows are here.
@functools.cache
def _program(name: str) -> subprocess.CompletedProcess[str]:
    return ut.run({p.name: p for p in ut.programs()}[name])


def _passed(result: subprocess.CompletedProcess[str]) -> set[str]:
    return set(re.findall(r"^\[       OK \] (\w+\.\w+) \(", result.stdout, re.MULTILINE))


def _declared(folder: str) -> set[str]:
    """Every ``TEST_F(suite, name)`` of the test files in ``tests/ut/<folder>``."""
    files = (OPERATOR_DIR / "tests" / "ut" / folder).glob("test_*.cpp")
    pattern = r"^TEST_F\((\w+), (\w+)\)$"
    return {".".join(m) for f in files for m in re.findall(pattern, f.read_text(), re.MULTILINE)}


def test_the_aclnn_unit_test_runs_every_case():
    result = _program("op_api")
    assert result.returncode == 0
    assert len(_declared("op_api")) >= 12  # null, dtype, shape, rank, empty, strides, format
    assert _passed(result) == _declared("op_api")


def test_the_kernel_unit_test_runs_every_case_of_every_dtype():
    result = _program("op_kernel")
    assert result.returncode == 0
    suites = {case.split(".")[0] for case in _declared("op_kernel")}
    assert suites == {"mish_grad_test", *SIXTEEN_BIT_SUITES}
    assert _passed(result) == _declared("op_kernel")


def test_every_kernel_case_meets_both_standards():
    reports = re.findall(
        r"^(\w+), \d+ elements\n"
        r"  mixed tolerance \(in force\): .*: (pass|fail)\n"
        r"  MERE/MARE \(first release\): .*: (pass|fail)$",
        _program("op_kernel").stdout,
        re.MULTILINE,
    )
    # two cases per dtype, each judged by both standards
    assert sorted(dtype for dtype, *_ in reports) == sorted(2 * ["float32", "float16", "bfloat16"])
    assert {verdict for _, *verdicts in reports for verdict in verdicts} == {"pass"}


def test_the_mixed_tolerance_by_hand_is_what_the_float16_test_prints():
    data = OPERATOR_DIR / "tests" / "ut" / "op_kernel" / "mish_grad_data"
    spec = importlib.util.spec_from_file_location("mish_grad_golden", data / "mish_grad_golden.py")
    mg = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mg  # dataclasses look their module up there
    spec.loader.exec_module(mg)
    grad, x = (mg.from_float32(v, "float16") for v in mg.inputs(48 * 4099 + 13))
    golden = mg.golden(grad, x, "float16")
    out = twin.run_kernel(grad, x).out
    # The mixed tolerance as notebook 13 writes it out in NumPy (float16, opbase aa3cd74).
    a, g = out.astype(np.float64), golden.astype(np.float64)
    error = np.abs(a - g)
    matched = np.mean(error <= 2.0**-9 + 2.0**-9 * np.abs(g))
    ulp = np.abs(np.spacing(golden)).astype(np.float64)
    within_cap = bool(np.all(error <= np.maximum(0.1, 32 * ulp)))
    script = mg.mixed_tolerance(out, golden, "float16")
    assert (matched, error.max(), within_cap) == (
        script.matched_ratio,
        script.max_abs_error,
        script.cap_passed,
    )
    line = (
        f"matched {100 * matched:.4f} % (at least 99 %), largest absolute error "
        f"{error.max():.3g} within the cap: {within_cap}: pass"
    )
    lines = _program("op_kernel").stdout.splitlines()
    assert lines[lines.index(f"float16, {x.size} elements") + 1].endswith(line)
