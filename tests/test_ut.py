"""The operator's ops-nn-format unit tests fail when what they test breaks.

`make test` runs them as they are first (`make ut`); here each runs on a broken copy.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys

import numpy as np
import pytest

from mishgrad.kernel import twin
from mishgrad.kernel.source import OPERATOR_DIR
from tools import ut

pytestmark = pytest.mark.slow  # builds broken copies of the operator and their unit tests


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
        (
            "op_kernel_float16",
            "op_kernel/mish_grad.cpp",
            "kernel.Process();",
            "",
            "mish_grad_test.test_case_without_tanhx",
            "mixed tolerance (in force): matched",
        ),
        (  # a wrong golden: compare_data.py's verdict must fail the gtest, with its report
            "op_kernel_bfloat16",
            "tests/ut/op_kernel/mish_grad_data/mish_grad_golden.py",
            "return round_float64(product, dtype)",
            "return round_float64(1.5 * product, dtype)",
            "mish_grad_test.test_case_without_tanhx",
            "compare_data.py bfloat16 failed in ./mish_grad_data:\nbfloat16, 196765 elements",
        ),
        (  # gen_data.py failing (as without NumPy) must stop the test before the kernel runs
            "op_kernel_float32",
            "tests/ut/op_kernel/mish_grad_data/gen_data.py",
            "def main(argv: list[str]) -> None:",
            "def main(argv: list[str]) -> None:\n    raise SystemExit(3)",
            "mish_grad_test.test_case_with_tanhx",
            "gen_data.py 3001 float32 tanhx failed in ./mish_grad_data",
        ),
    ],
    ids=["infershape", "kernel", "golden", "gen_data"],
)
def test_a_broken_operator_fails_its_unit_test(
    tmp_path, program, path, right, wrong, failing, says
):
    kernel = tmp_path / "kernel"
    shutil.copytree(OPERATOR_DIR, kernel)
    source = kernel / path
    assert right in source.read_text()
    source.write_text(source.read_text().replace(right, wrong))
    broken = {p.name: p for p in ut.programs(kernel)}[program]
    result = ut.run(broken, kernel, tmp_path / "build")
    assert result.returncode != 0
    assert f"[  FAILED  ] {failing}" in result.stdout
    assert says in result.stdout


# Notebook 13 reads these programs' log (section 6); the checks of what it shows are here.
def _kernel_program(dtype: str):
    return ut.run({p.name: p for p in ut.programs()}[f"op_kernel_{dtype}"])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_every_kernel_case_meets_both_standards(dtype):
    result = _kernel_program(dtype)
    verdicts = re.findall(
        r"^  (mixed tolerance \(in force\)|MERE/MARE \(first release\)): .*: (pass|fail)$",
        result.stdout,
        re.MULTILINE,
    )
    assert result.returncode == 0
    assert len(verdicts) == 4  # two cases, each judged by both standards
    assert {verdict for _, verdict in verdicts} == {"pass"}


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
    lines = _kernel_program("float16").stdout.splitlines()
    assert lines[lines.index(f"float16, {x.size} elements") + 1].endswith(line)
