"""Shared fixtures (exhaustive 16-bit inputs, the float32 sample, CANN's stand-in kernel), the
``slow`` marker on what ``make check`` leaves out (nbval's notebook cells, the browser tests),
the tests' own folder of scratch copies, and a run on CANN's terms: one worker, and nbval's
sanitizers for what differs with the NPU."""

from __future__ import annotations

import os
from pathlib import Path

import nbval.kernel
import numpy as np
import pytest
from kernel_start import retrying

from mishgrad.aclnn import backends
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


#: nbval's sanitizers for a run on CANN, added to tests/nbval_sanitize.cfg: outputs that differ
#: with the NPU (its vector cores, CANN's workspace), which the notebooks recorded on the twin.
NPU_SANITIZERS = Path(__file__).with_name("nbval_sanitize_npu.cfg")
#: Both sets of sanitizers in one file, as nbval reads one (written for a run on CANN).
COMBINED_SANITIZERS = source.REPOSITORY / "build" / "nbval_sanitize_npu.cfg"


def runs_on_cann() -> bool:
    """Whether ``$MISHGRAD_BACKEND`` loads CANN: ascend, ascend-builtin, or auto with CANN."""
    kind = os.environ.get("MISHGRAD_BACKEND", "auto")
    if kind == "auto":
        try:
            backends._cann_root()  # where load_backend("auto") looks
        except OSError:
            return False
        return True
    return kind in ("ascend", "ascend-builtin")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers() -> int | None:
    """``-n auto`` on CANN: one worker. Every session sets device 0 (``aclrtSetDevice``), and
    dozens of processes on one NPU would only contend for it; on the twin, xdist's count."""
    return 1 if runs_on_cann() else None


def pytest_configure(config: pytest.Config) -> None:
    """Point ``MISHGRAD_SCRATCH`` at :data:`TEST_SCRATCH`, whatever the shell set; start nbval's
    kernels again if one dies starting (tests/kernel_start.py); on CANN, allow one worker only
    and add :data:`NPU_SANITIZERS` to nbval's.

    Every process a test starts inherits the variable: nbval's kernels, xdist's workers, JupyterLab.
    The checkout's identity header is written first, as its first build would, so that a test that
    compares ``kernel/`` before and after a build sees the same files.
    """
    os.environ[scratch.ROOT_VARIABLE] = str(TEST_SCRATCH)
    identity.write_header(source.OPERATOR_DIR)
    nbval.kernel.start_new_kernel = retrying(nbval.kernel.start_new_kernel)
    if runs_on_cann():
        require_one_worker(config)
        add_npu_sanitizers(config)


def require_one_worker(config: pytest.Config) -> None:
    """Refuse ``-n`` above 1 on CANN (:func:`pytest_xdist_auto_num_workers`)."""
    workers = getattr(config.option, "numprocesses", None) or 0
    if workers > 1:
        raise pytest.UsageError(
            f"MISHGRAD_BACKEND={os.environ.get('MISHGRAD_BACKEND', 'auto')} runs on the NPU, "
            f"device 0: run one worker (-n 1 or -n auto), not {workers}"
        )


def add_npu_sanitizers(config: pytest.Config) -> None:
    """Give nbval :data:`COMBINED_SANITIZERS`: its sanitizers file and :data:`NPU_SANITIZERS`."""
    sanitizers = getattr(config.option, "nbval_sanitize_with", None)
    if not sanitizers or Path(sanitizers) == COMBINED_SANITIZERS:  # none, or a worker's copy
        return
    text = Path(sanitizers).read_text() + "\n" + NPU_SANITIZERS.read_text()
    COMBINED_SANITIZERS.parent.mkdir(parents=True, exist_ok=True)
    partial = COMBINED_SANITIZERS.with_suffix(f".{os.getpid()}")
    partial.write_text(text)
    partial.replace(COMBINED_SANITIZERS)  # atomic: a reader sees the old file or the new
    config.option.nbval_sanitize_with = str(COMBINED_SANITIZERS)


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
