"""The operator's ops-nn-format unit tests fail when what they test breaks.

`make test` runs them as they are first (`make ut`); here each runs on a broken copy.
"""

from __future__ import annotations

import shutil

import pytest

from mishgrad.kernel import ut
from mishgrad.kernel.source import KERNEL_DIR


@pytest.mark.parametrize(
    ("program", "path", "right", "wrong", "failing"),  # failing: suite.test
    [
        (
            "op_host",
            "op_host/mish_grad_infershape.cpp",
            "*xGradShape = *xShape;",
            "(void)xShape;",
            "MishGradInferShape.mish_grad_x_grad_has_the_shape_of_x",
        ),
        (
            "op_kernel_float16",
            "op_kernel/mish_grad.cpp",
            "kernel.Process();",
            "",
            "mish_grad_test.test_case_without_tanhx",
        ),
    ],
    ids=["infershape", "kernel"],
)
def test_a_broken_operator_fails_its_unit_test(tmp_path, program, path, right, wrong, failing):
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
