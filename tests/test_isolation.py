"""A learner's kernel runs in a worker process: faults become KernelError, results stay exact.

One scratch copy carries every planted fault, chosen by the input's length, so that the twin
is built from it once: an endless loop without AscendC calls, one whose tile counter never
advances, a null pointer and an integer division by zero.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from multiprocessing.shared_memory import SharedMemory
from pathlib import Path

import numpy as np
import pytest
from spinning import wait_until_spinning

from mishgrad.kernel import isolation, shared_tensors, source, twin
from mishgrad.kernel.scratch import ScratchKernel, scratch_kernel

pytestmark = pytest.mark.slow  # builds a scratch copy with planted faults

SPIN, STUCK, NULL, DIVIDE, SLOW, HUNGRY, KILLED = 1001, 1002, 1003, 1004, 1005, 1006, 1007
#: SLOW repeats each core's first tile this often, pausing PAUSE_US each time: it runs for
#: REPEATS * PAUSE_US (3 s) however fast the machine, its cores calling AscendC all along.
REPEATS, PAUSE_US = 20, 150_000
FAULTS = f"""
        if (tiling.totalLength == {SPIN}) {{ volatile bool spin = true; while (spin) {{}} }}
        if (tiling.totalLength == {NULL}) {{ volatile int* p = nullptr; *p = 1; }}
        volatile int zero = 0;
        if (tiling.totalLength == {DIVIDE}) {{ volatile int q = 7 / zero; (void)q; }}
        volatile size_t huge = tiling.totalLength == {HUNGRY} ? size_t{{1}} << 62 : 0;
        if (huge != 0) {{ delete[] new uint8_t[huge]; }}
        if (tiling.totalLength == {KILLED}) {{ raise(SIGKILL); }}  // as the OOM killer would
        stuck_ = tiling.totalLength == {STUCK};
        slow_ = tiling.totalLength == {SLOW};"""
ADVANCE = f"""
    uint64_t Advance()
    {{
        if (stuck_) {{ return 0; }}
        if (slow_ && repeats_ < {REPEATS}) {{ ++repeats_; usleep({PAUSE_US}); return 0; }}
        return 1;
    }}
    bool stuck_ = false;
    bool slow_ = false;
    int repeats_ = 0;"""
#: With this variable set, loading the library takes LOAD_SECONDS (a static initializer).
SLOW_LOAD, LOAD_SECONDS = "MISHGRAD_TEST_SLOW_LOAD", 5
LOADER = f"""#include <csignal>
#include <cstdlib>
#include <unistd.h>
[[maybe_unused]] static const bool gSlowLoad = [] {{
    if (std::getenv("{SLOW_LOAD}") != nullptr) {{ sleep({LOAD_SECONDS}); }}
    return true;
}}();
"""


def plant(copy: ScratchKernel) -> None:
    header = copy.file("op_kernel/mish_grad.h")
    text = header.read_text()
    for old, new in [
        ("#include <type_traits>\n", "#include <type_traits>\n" + LOADER),
        (
            "        hasTanhx_ = tiling.hasTanhx != 0;",
            "        hasTanhx_ = tiling.hasTanhx != 0;" + FAULTS,
        ),
        ("tile < tileNum_; ++tile) {", "tile < tileNum_; tile += Advance()) {"),
        ("    bool hasTanhx_ = false;", "    bool hasTanhx_ = false;" + ADVANCE),
    ]:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    header.write_text(text)


@pytest.fixture(scope="module")
def faulty(tmp_path_factory) -> ScratchKernel:
    copy = scratch_kernel("faults", root=tmp_path_factory.mktemp("scratch"))
    plant(copy)
    return copy


def inputs(n: int, dtype: str = "float32") -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(-20, 20, n).astype(dtype)
    return np.full_like(x, 0.5), x


def same_as_the_projects(copy: ScratchKernel, n: int, **kwargs) -> bool:
    grad, x = inputs(n)
    return np.array_equal(copy.run_kernel(grad, x, **kwargs).out, twin.run_kernel(grad, x).out)


def test_the_projects_kernel_runs_in_process_and_a_copy_isolated(faulty):
    assert not twin.runs_isolated(None) and not twin.runs_isolated(source.OPERATOR_DIR)
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
    with pytest.raises(twin.KernelError, match=r"no AscendC call on any core for 2 s.*while") as e:
        faulty.run_kernel(*inputs(SPIN), watchdog=twin.Watchdog(stall=2))
    assert e.value.stalled >= 2  # the watchdog's own measure of the stall, against its setting
    assert same_as_the_projects(faulty, 5000)


def test_a_tile_loop_that_never_advances_is_stopped_by_its_call_budget(faulty):
    budget = twin.Watchdog().calls_for(1)  # one tile a core at this length
    pattern = rf"core \d+ made [\d,]+ AscendC calls, more than the {budget:,} its tiles.*advances"
    with pytest.raises(twin.KernelError, match=pattern):
        faulty.run_kernel(*inputs(STUCK), watchdog=twin.Watchdog(stall=1e6))
    assert same_as_the_projects(faulty, 4000)


def test_a_launch_whose_cores_keep_calling_runs_on_and_says_so(faulty, capsys):
    # It runs REPEATS * PAUSE_US = 3 s on any machine: more than the limit and the time to tell.
    assert same_as_the_projects(faulty, SLOW, watchdog=twin.Watchdog(limit=0.5, tell=1))
    printed = capsys.readouterr().out
    assert re.search(r"Still running after 1 s; AscendC calls so far: core 0: [\d,]+, ", printed)
    assert printed.count("Still running") == 1 and "Interrupt stops it." in printed


def test_the_clocks_start_once_the_worker_has_loaded_the_library(faulty, monkeypatch):
    # Loading takes LOAD_SECONDS, more than the stall and the limit allow a launch.
    monkeypatch.setenv(SLOW_LOAD, "1")
    isolation._stop_worker()  # the next worker starts with the variable set
    try:
        assert same_as_the_projects(faulty, 777, watchdog=twin.Watchdog(stall=2, limit=2))
    finally:
        isolation._stop_worker()


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


def test_the_host_running_out_of_memory_is_named(faulty):
    with pytest.raises(twin.KernelError, match=r"ran out of memory .*std::bad_alloc"):
        faulty.run_kernel(*inputs(HUNGRY))


def test_a_kill_from_outside_is_not_blamed_on_the_kernels_pointers(faulty):
    with pytest.raises(twin.KernelError, match=r"killed \(SIGKILL\).*out-of-memory killer") as e:
        faulty.run_kernel(*inputs(KILLED))
    assert "Look for" not in str(e.value)


def test_a_worker_that_cannot_start_says_why(monkeypatch):
    isolation._stop_worker()
    monkeypatch.setattr(isolation, "START", "import mishgrad_nowhere  # {parent}")
    try:
        with pytest.raises(twin.KernelError, match=r"(?s)exited with status 1.*It wrote:.*nowhere"):
            isolation.call(int, "7")
    finally:
        isolation._stop_worker()


INTERRUPTED = """
import sys
from pathlib import Path
import numpy as np
from mishgrad.kernel import isolation, twin
from mishgrad.kernel.scratch import ScratchKernel
copy = ScratchKernel(Path(sys.argv[1]))
x = np.linspace(-20, 20, {spin}).astype(np.float32)
copy.run_kernel(np.ones(5, np.float32), np.ones(5, np.float32))  # built, and the worker up
worker = isolation._worker.process.pid
print("worker", worker, flush=True)
try:
    copy.run_kernel(np.ones_like(x), x, watchdog=twin.Watchdog(stall=1e9))  # only Interrupt
except KeyboardInterrupt:
    print("interrupted", flush=True)
    stopped = not Path(f"/proc/{{worker}}").exists()
    small = np.linspace(-3, 3, 100, dtype=np.float32)
    same = np.array_equal(copy.run_kernel(small, small).out, twin.run_kernel(small, small).out)
    print("worker stopped", stopped, "next run", same, flush=True)
"""


def test_an_interrupt_stops_a_running_kernel_and_the_process_carries_on(faulty):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-c", INTERRUPTED.format(spin=SPIN), str(faulty.path)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) as child:
        assert child.stdout is not None
        worker = int(child.stdout.readline().split()[1])
        wait_until_spinning(worker)  # the kernel is running
        child.send_signal(signal.SIGINT)  # what JupyterLab's Interrupt does
        assert child.stdout.readline().strip() == "interrupted"
        rest = child.stdout.read()
        assert child.wait(timeout=600) == 0
    assert rest.startswith("worker stopped True next run True"), rest


@pytest.fixture
def created(monkeypatch) -> list[str]:
    """The names of the shared-memory blocks this process creates during the test.

    Listing /dev/shm before and after would also see other pytest workers' blocks.
    """
    names: list[str] = []

    def recording(*arguments, **keywords) -> SharedMemory:
        block = SharedMemory(*arguments, **keywords)
        names.append(block.name)
        return block

    monkeypatch.setattr(shared_tensors, "SharedMemory", recording)
    return names


def still_there(names: list[str]) -> list[str]:
    return [name for name in names if Path("/dev/shm", name).exists()]


def test_worker_blocks_are_unlinked(faulty, created):
    faulty.run_kernel(*inputs(3000))
    with pytest.raises(twin.KernelError):
        faulty.run_kernel(*inputs(NULL))
    assert len(created) >= 6  # grad, x, tanhx and out for each launch, and the progress boards
    assert still_there(created) == []
    assert isolation.STEP <= 0.1  # the interrupt latency the module promises


def test_call_runs_a_function_in_the_worker_and_raises_what_it_raises():
    assert isolation.call(os.getpid) != os.getpid()
    with pytest.raises(ValueError, match="invalid literal"):
        isolation.call(int, "not a number")


def test_a_call_past_its_limit_is_stopped_and_the_next_one_works():
    with pytest.raises(twin.KernelError, match=r"no result after 1 s"):
        isolation.call(time.sleep, 5, watchdog=twin.Watchdog(limit=1))  # 5 s on any machine
    assert isolation.call(int, "7") == 7


SLOW_MODULE = f"""import time
time.sleep({LOAD_SECONDS})


def answer():
    return 42
"""


def test_a_calls_clock_starts_once_its_module_is_imported(tmp_path, monkeypatch):
    (tmp_path / "slow_to_import.py").write_text(SLOW_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
    )
    isolation._stop_worker()  # the next worker finds the module
    try:
        from slow_to_import import answer

        assert isolation.call(answer, watchdog=twin.Watchdog(limit=2)) == 42
    finally:
        isolation._stop_worker()


NOTEBOOK = """
import sys, threading, time
from mishgrad.kernel import isolation
threading.Thread(target=isolation.call, args=(time.sleep, 600), daemon=True).start()
while isolation._worker is None:
    time.sleep(0.05)
time.sleep(1)  # the worker is asleep in its call now
print(isolation._worker.process.pid, flush=True)
time.sleep(600)
"""


def _gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie no parent reaped counts as ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def test_a_busy_worker_dies_with_the_notebook_killed_by_sigkill():
    notebook = subprocess.Popen([sys.executable, "-c", NOTEBOOK], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(notebook.stdout.readline())
        assert not _gone(worker)
    finally:
        notebook.kill()  # SIGKILL: no atexit, no cleanup in the notebook's process
        notebook.wait()
    deadline = time.monotonic() + 60  # a hang guard: the worker checks every 0.5 s
    while not _gone(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _gone(worker), f"worker {worker} outlived the notebook that started it"


def test_shared_memory_too_small_is_refused_up_front_not_a_sigbus(created):
    """The block is reserved before anything is written: a full /dev/shm raises, naming the fix."""
    shm = os.statvfs("/dev/shm")
    more_than_free = shm.f_bavail * shm.f_frsize + 2**30  # sparse until written
    with pytest.raises(
        shared_tensors.SharedMemoryError, match=r"/dev/shm has .*\(isolated=False\)"
    ):
        with ExitStack() as stack:
            shared_tensors._block(more_than_free, stack)
    assert len(created) == 1 and still_there(created) == []  # nothing left behind
