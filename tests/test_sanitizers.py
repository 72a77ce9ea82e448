"""The twin and the kernel under AddressSanitizer and UndefinedBehaviorSanitizer."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def runtime(name: str) -> str:
    compiler = os.environ.get("CXX", "g++")
    path = subprocess.run(
        [compiler, f"-print-file-name={name}"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert Path(path).is_file(), f"{compiler} has no {name}: install the sanitizer runtimes"
    return path


@pytest.mark.slow
@pytest.mark.timeout(2400)  # a hang guard: the ASan build takes a minute when quiet
def test_kernel_and_misuse_cases_run_clean_under_asan_and_ubsan(tmp_path):
    assert shutil.which(os.environ.get("CXX", "g++"))
    env = {
        **os.environ,
        "MISHGRAD_TWIN_FLAVOUR": "asan",
        "LD_PRELOAD": f"{runtime('libasan.so')}:{runtime('libubsan.so')}",
        # Python itself is not instrumented and keeps memory until exit: leaks are not ours.
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:halt_on_error=1",
        "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    }
    script = Path(__file__).parent / "twin" / "sanitized_run.py"
    result = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, check=False
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report[-4000:]
    assert "sanitized run: ok" in result.stdout
    print(next(line for line in result.stdout.splitlines() if line.startswith("hostile cases")))
    assert "runtime error" not in report and "AddressSanitizer" not in report, report[-4000:]
