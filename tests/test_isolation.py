"""A learner's kernel runs in a worker process: faults become KernelError, results stay exact.

One scratch copy carries every planted fault, chosen by the input's length, so that the twin
is built from it once: an endless loop without AscendC calls, one whose tile counter never
advances, a null pointer and an integer division by zero.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from mishgrad.kernel import isolation, source, twin
from mishgrad.kernel.scratch import ScratchKernel, scratch_kernel

SPIN, STUCK, NULL, DIVIDE = 1001, 1002, 1003, 1004
FAULTS = f"""
        if (tiling.totalLength == {SPIN}) {{ volatile bool spin = true; while (spin) {{}} }}
        if (tiling.totalLength == {NULL}) {{ volatile int* p = nullptr; *p = 1; }}
        volatile int zero = 0;
        if (tiling.totalLength == {DIVIDE}) {{ volatile int q = 7 / zero; (void)q; }}
        stuck_ = tiling.totalLength == {STUCK};"""


def plant(copy: ScratchKernel) -> None:
    header = copy.file("op_kernel/mish_grad.h")
    text = header.read_text()
    text = text.replace(
        "        hasTanhx_ = tiling.hasTanhx != 0;",
        "        hasTanhx_ = tiling.hasTanhx != 0;" + FAULTS,
    )
    text = text.replace(
        "for (uint64_t tile = 0; tile < tileNum_; ++tile) {",
        "for (uint64_t tile = 0; tile < tileNum_; tile += stuck_ ? 0 : 1) {",
    )
    text = text.replace(
        "    bool hasTanhx_ = false;", "    bool hasTanhx_ = false;\n    bool stuck_ = false;"
    )
    header.write_text(text)


@pytest.fixture(scope="module")
def faulty(tmp_path_factory) -> ScratchKernel:
    copy = scratch_kernel("faults", root=tmp_path_factory.mktemp("scratch"))
    plant(copy)
    return copy


def inputs(n: int, dtype: str = "float32") -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(-20, 20, n).astype(dtype)
    return np.full_like(x, 0.5), x


def test_the_projects_kernel_runs_in_process_and_a_copy_isolated(faulty):
    assert not twin.runs_isolated(None) and not twin.runs_isolated(source.KERNEL_DIR)
    assert twin.runs_isolated(faulty.path) and not twin.runs_isolated(faulty.path, False)


@pytest.mark.parametrize(("dtype", "with_tanhx"), [("float32", False), ("float16", True)])
def test_an_isolated_run_is_bit_identical_to_an_in_process_one(dtype, with_tanhx):
    grad, x = inputs(30_011, dtype)
    tanhx = np.tanh(np.log1p(np.exp(x.astype(np.float64)))).astype(dtype) if with_tanhx else None
    here = twin.run_kernel(grad, x, tanhx, trace=True)
    there = twin.run_kernel(grad, x, tanhx, trace=True, isolated=True)
    assert there.out.tobytes() == here.out.tobytes()
    assert np.array_equal(there.trace, here.trace) and there.plan == here.plan


def test_an_endless_loop_without_calls_is_stopped_and_the_next_run_works(faulty):
    start = time.monotonic()
    with pytest.raises(twin.KernelError, match=r"no AscendC call on any core for 2 s.*while"):
        faulty.run_kernel(*inputs(SPIN), watchdog=twin.Watchdog(stall=2))
    assert time.monotonic() - start < 2 + 30  # the stall, and a rebuild at most
    grad, x = inputs(5000)
    assert np.array_equal(faulty.run_kernel(grad, x).out, twin.run_kernel(grad, x).out)


def test_a_tile_loop_that_never_advances_is_stopped_at_the_limit(faulty):
    faulty.run_kernel(*inputs(5000))  # built
    start = time.monotonic()
    with pytest.raises(twin.KernelError, match=r"no result after 3 s.*core 0: \w+ \(call \d+\)"):
        faulty.run_kernel(*inputs(STUCK), watchdog=twin.Watchdog(limit=3))
    assert time.monotonic() - start < 3 + 2


@pytest.mark.parametrize(
    ("length", "name", "hint"),
    [
        (NULL, "SIGSEGV", "a pointer that is null"),
        (DIVIDE, "SIGFPE", "an integer division or modulo by zero"),
    ],
)
def test_a_crash_names_the_signal_and_what_to_look_for(faulty, length, name, hint):
    with pytest.raises(twin.KernelError, match=f"crashed with {name}.*Look for {hint}"):
        faulty.run_kernel(*inputs(length))
    grad, x = inputs(777)
    assert np.array_equal(faulty.run_kernel(grad, x).out, twin.run_kernel(grad, x).out)


INTERRUPTED = """
import os, sys, time
import numpy as np
from pathlib import Path
from mishgrad.kernel import twin
from mishgrad.kernel.scratch import ScratchKernel
copy = ScratchKernel(Path(sys.argv[1]))
x = np.linspace(-20, 20, {stuck}).astype(np.float32)
copy.run_kernel(np.ones(5, np.float32), np.ones(5, np.float32))  # built, and the worker up
print("running", flush=True)
try:
    copy.run_kernel(np.ones_like(x), x)
except KeyboardInterrupt:
    stopped = time.monotonic()
    print("interrupted", flush=True)
    small = np.linspace(-3, 3, 100, dtype=np.float32)
    same = np.array_equal(copy.run_kernel(small, small).out, twin.run_kernel(small, small).out)
    print("next run", same, round(time.monotonic() - stopped, 1), flush=True)
"""


def test_an_interrupt_stops_a_running_kernel_and_the_process_carries_on(faulty):
    script = INTERRUPTED.format(stuck=STUCK)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(faulty.path)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "running"
    time.sleep(1.0)
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)  # what JupyterLab's Interrupt does
    assert child.stdout.readline().strip() == "interrupted"
    latency = time.monotonic() - sent
    rest = child.stdout.read()
    assert child.wait(timeout=120) == 0
    assert latency < 2.0 and rest.startswith("next run True"), (latency, rest)


def test_worker_blocks_are_unlinked(faulty):
    before = set(os.listdir("/dev/shm")) if Path("/dev/shm").is_dir() else set()
    faulty.run_kernel(*inputs(3000))
    with pytest.raises(twin.KernelError):
        faulty.run_kernel(*inputs(NULL))
    after = set(os.listdir("/dev/shm")) if Path("/dev/shm").is_dir() else set()
    assert not {name for name in after - before if name.startswith("psm_")}
    assert isolation.STEP <= 0.1  # the interrupt latency the module promises


def test_call_runs_a_function_in_the_worker_and_raises_what_it_raises():
    assert isolation.call(os.getpid) != os.getpid()
    with pytest.raises(ValueError, match="invalid literal"):
        isolation.call(int, "not a number")
