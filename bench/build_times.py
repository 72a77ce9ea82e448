"""How long the CPU twin takes to build: from nothing, and again after a one-line kernel edit.

Used by ``bench/kernel.py`` (the rebuild target) and ``bench/notebook_times.py`` (the run
times the notebooks state). Timings depend on the machine and its load.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mishgrad.kernel import source, twin_build


@dataclass(frozen=True)
class BuildTimes:
    """Seconds to build what a float32 launch needs: cold, then after a one-line edit."""

    cold: float
    edit: float


def twin_build_times() -> BuildTimes:
    """Build the twin in a fresh cache from a fresh copy of ``kernel/``, edit it, build again.

    The edit adds a line to the kernel's header, which only the kernel's own unit reads: what a
    learner's edit of a scratch copy costs. ``MISHGRAD_CACHE`` is restored afterwards.
    """
    saved = {name: os.environ.get(name) for name in ("MISHGRAD_CACHE", "MISHGRAD_BUILD_PROGRESS")}
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "kernel"
        shutil.copytree(source.OPERATOR_DIR, copy)
        os.environ["MISHGRAD_CACHE"] = str(Path(folder) / "cache")
        os.environ["MISHGRAD_BUILD_PROGRESS"] = "0"
        try:
            cold = _timed_build(copy)
            header = copy / "op_kernel" / "mish_grad.h"
            header.write_text(header.read_text() + "// one line\n")
            edit = _timed_build(copy)
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return BuildTimes(cold=cold, edit=edit)


def _timed_build(kernel_dir: Path) -> float:
    start = time.perf_counter()
    twin_build.build(twin_build.kernel_spec(root=kernel_dir, dtype="float32"))
    return time.perf_counter() - start
