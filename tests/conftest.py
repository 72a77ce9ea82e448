"""Shared fixtures (exhaustive 16-bit inputs, the float32 sample, CANN's stand-in kernel), the
``slow`` marker on what ``make check`` leaves out (nbval's notebook cells, the browser tests),
and the tests' own folder of scratch copies."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from mishgrad.kernel import identity, scratch, source, twin_build
from mishgrad.math import dtypes, oracle, samples


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--stale-translations``: fail on a Chinese edition that lags the English, or only warn.

    ``make check`` passes ``warn``, so that an English edit can be tested before its translation
    catches up; ``make test`` keeps the default, ``fail`` (tests/test_rules.py).
    """
    parser.addoption(
        "--stale-translations",
        choices=("fail", "warn"),
        default="fail",
        help="fail (default) or warn when the Chinese edition lags the English (tests/rules)",
    )


#: Where the notebooks' scratch copies go in a test run (nbval, `make lab` in the browser tests),
#: never the learner's ``build/scratch``; tests/nbval_sanitize.cfg shows it as that in outputs.
TEST_SCRATCH = source.REPOSITORY / "build" / "test-scratch"


def pytest_configure() -> None:
    """Point ``MISHGRAD_SCRATCH`` at :data:`TEST_SCRATCH`, whatever the shell set.

    Every process a test starts inherits it: nbval's kernels, xdist's workers, JupyterLab. The
    checkout's identity header is written first, as its first build would, so that a test that
    compares ``kernel/`` before and after a build sees the same files.
    """
    os.environ[scratch.ROOT_VARIABLE] = str(TEST_SCRATCH)
    identity.write_header(source.OPERATOR_DIR)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark nbval's notebook cells and the browser tests slow: ``make check`` runs neither."""
    for item in items:
        if item.path.suffix == ".ipynb" or "browser" in item.path.parts:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", params=["float16", "bfloat16"])
def exhaustive(request: pytest.FixtureRequest) -> tuple[np.ndarray, np.ndarray]:
    """Every finite value of a 16-bit dtype and its correctly rounded dmish/dx."""
    x = dtypes.all_values(request.param)
    return x, oracle.dmish_oracle(x)


@pytest.fixture(scope="session")
def float32_sample() -> dict[str, np.ndarray]:
    """The documented float32 sample (smaller than the benchmark's, same construction)."""
    return samples.float32_sample(grid_count=1 << 18, uniform_count=1 << 18, root_stride=64)


@pytest.fixture(scope="session")
def cann_s_own_kernel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """CANN's own MishGrad, for stand-ins: a copy of ``kernel/`` whose kernel leaves no stamp."""
    copy = scratch.scratch_kernel("cann-own", root=tmp_path_factory.mktemp("cann-own"))
    entry = source.OPERATOR_DIR / "op_kernel" / "mish_grad.cpp"
    stamp_call = source.read_lines(entry, "// Proof for the host", "    }")  # as notebook 13 does
    copy.replace("op_kernel/mish_grad.cpp", stamp_call, "    (void)workspace;")
    return copy.path


@pytest.fixture(scope="session")
def cann_s_own_library(cann_s_own_kernel: Path) -> Path:
    """The twin library built from :func:`cann_s_own_kernel`."""
    return twin_build.build(twin_build.kernel_spec(root=cann_s_own_kernel))
