"""Shared fixtures: exhaustive 16-bit inputs, the float32 sample, CANN's stand-in kernel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mishgrad.kernel import scratch, twin_build
from mishgrad.math import dtypes, oracle, samples


@pytest.fixture(scope="session", params=["float16", "bfloat16"])
def exhaustive(request: pytest.FixtureRequest) -> tuple[np.ndarray, np.ndarray]:
    """Every finite value of a 16-bit dtype and its correctly rounded dmish/dx."""
    x = dtypes.all_values(request.param)
    return x, oracle.dmish_oracle(x)


@pytest.fixture(scope="session")
def float32_sample() -> dict[str, np.ndarray]:
    """The documented float32 sample (smaller than the benchmark's, same construction)."""
    return samples.float32_sample(grid_count=1 << 18, uniform_count=1 << 18, root_stride=64)


#: The kernel entry's stamp call (kernel/op_kernel/mish_grad.cpp), taken out for CANN's stand-in.
STAMP_CALL = """    if (workspace != nullptr && AscendC::GetBlockIdx() == 0) {
        mishgrad::WriteStamp<DTYPE_X>(AscendC::GetUserWorkspace(workspace), tilingData);
    }
"""


@pytest.fixture(scope="session")
def cann_s_own_kernel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """CANN's own MishGrad, for stand-ins: a copy of ``kernel/`` whose kernel leaves no stamp."""
    copy = scratch.scratch_kernel("cann-own", root=tmp_path_factory.mktemp("cann-own"))
    copy.replace("op_kernel/mish_grad.cpp", STAMP_CALL, "    (void)workspace;\n")
    return copy.path


@pytest.fixture(scope="session")
def cann_s_own_library(cann_s_own_kernel: Path) -> Path:
    """The twin library built from :func:`cann_s_own_kernel`."""
    return twin_build.build(twin_build.kernel_spec(root=cann_s_own_kernel))
