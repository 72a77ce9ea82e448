"""The operator's ops-nn-format unit tests fail when what they test breaks.

`make test` runs them as they are first (`make ut`); here each runs on a broken copy.
"""

from __future__ import annotations

import shutil

import pytest

from mishgrad.kernel import ut
from mishgrad.kernel.source import KERNEL_DIR

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
    shutil.copytree(KERNEL_DIR, kernel, ignore=shutil.ignore_patterns("twin"))
    shutil.copytree(KERNEL_DIR / "twin", kernel / "twin")
    source = kernel / path
    assert right in source.read_text()
    source.write_text(source.read_text().replace(right, wrong))
    broken = {p.name: p for p in ut.programs(kernel)}[program]
    result = ut.run(broken, kernel, tmp_path / "build")
    assert result.returncode != 0
    assert f"[  FAILED  ] {failing}" in result.stdout
    assert says in result.stdout
