"""A learner's copy's aclnn backend runs in a worker: its faults end there, its results are exact.

One scratch copy carries the planted faults, chosen by the input's length: an endless loop in
the kernel's Compute, one in the tiling, and a null-pointer write in Init. Another copy is left
as it was made, and through the worker it must answer exactly as the project's twin does in
this process.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from spinning import wait_until_spinning

from mishgrad import aclnn
from mishgrad.kernel import isolation
from mishgrad.kernel.scratch import ScratchKernel, scratch_kernel
from mishgrad.math.dtypes import DTYPES

pytestmark = pytest.mark.slow  # builds two scratch copies

SPIN, TILING_SPIN, NULL = 1001, 1002, 1003
ENDLESS = "{ volatile bool spin = true; while (spin) {} }"
INIT = "        hasTanhx_ = tiling.hasTanhx != 0;\n"
MEMBER = "    bool hasTanhx_ = false;\n"
COMPUTE = "    __aicore__ inline void Compute(uint32_t length)\n    {\n"
TILING = "        return TilingStatus::kEmptyInput;\n    }\n"
#: (file, text, what goes after it): each fault where its length asks for it.
EDITS = [
    (
        "op_kernel/mish_grad.h",
        INIT,
        f"        spin_ = tiling.totalLength == {SPIN};\n"
        f"        if (tiling.totalLength == {NULL}) {{ volatile int* p = nullptr; *p = 1; }}\n",
    ),
    ("op_kernel/mish_grad.h", MEMBER, "    bool spin_ = false;\n"),
    ("op_kernel/mish_grad.h", COMPUTE, f"        if (spin_) {ENDLESS}\n"),
    ("common/mish_grad_tiling.h", TILING, f"    if (totalLength == {TILING_SPIN}) {ENDLESS}\n"),
]


@pytest.fixture(scope="module")
def faulty(tmp_path_factory) -> ScratchKernel:
    copy = scratch_kernel("aclnn-faults", root=tmp_path_factory.mktemp("scratch"))
    for relative, anchor, fault in EDITS:
        copy.replace(relative, anchor, anchor + fault)
    return copy


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> ScratchKernel:
    return scratch_kernel("aclnn-plain", root=tmp_path_factory.mktemp("scratch"))


def inputs(n: int, dtype: str = "float32") -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(-20, 20, n).astype(DTYPES[dtype])
    return np.full_like(x, 0.5), x


def mapped(path: str) -> bool:
    """Whether this process has the library at ``path`` loaded."""
    return path in Path("/proc/self/maps").read_text()


def test_a_copy_is_loaded_only_in_the_worker_and_the_projects_twin_here(faulty, plain):
    backend = aclnn.twin_backend(faulty.path)  # a library of its own: its edits differ
    with aclnn.Session(backend) as session:
        aclnn.mish_backward(*inputs(100), session=session)
        assert session.lib.in_worker and not mapped(backend.op_library)
        assert aclnn.which_kernel(session, sources=faulty.path).ours  # the copy's own build
    assert backend.served_by == os.path.realpath(backend.op_library)
    assert aclnn.twin_backend(plain.path).in_worker
    assert not aclnn.twin_backend().in_worker
    assert not aclnn.twin_backend(plain.path, isolated=False).in_worker


@pytest.mark.parametrize(
    ("grad_shape", "x_shape", "dtype"),
    [
        ((30_011,), (30_011,), "float32"),
        ((30_011,), (30_011,), "float16"),
        ((30_011,), (30_011,), "bfloat16"),
        ((3, 1, 500), (7, 1), "float16"),  # broadcast
    ],
)
def test_an_unmodified_copy_answers_bit_for_bit_as_the_twin_here(plain, grad_shape, x_shape, dtype):
    rng = np.random.default_rng(7)
    grad = rng.uniform(-2, 2, grad_shape).astype(DTYPES[dtype])
    x = rng.uniform(-20, 20, x_shape).astype(DTYPES[dtype])[..., ::-1]  # a view, too
    backend = aclnn.twin_backend(plain.path)
    there = aclnn.mish_backward(grad, x, backend=backend)
    assert backend.in_worker
    here = aclnn.mish_backward(grad, x, backend="twin")
    assert there.dtype == here.dtype and there.shape == here.shape
    assert there.tobytes() == here.tobytes()


def refusals(backend: aclnn.Backend) -> list[tuple[int, str]]:
    """Statuses and messages of refused calls: a bad dtype in phase 1, raw runtime calls."""
    with aclnn.Session(backend) as session:
        lib = session.lib
        lib.aclGetRecentErrMsg()  # this thread's messages from earlier tests are not ours
        found = []
        for dtypes in [("float32", "int32", "float32"), ("float64", "float32", "float32")]:
            tensors = [session.tensor(np.zeros(4, dtype=name)) for name in dtypes]
            try:
                aclnn.get_workspace_size(session, *tensors)
            except aclnn.AclError as error:
                found.append((error.code, error.message))
        address = ctypes.c_void_p()
        host = np.arange(40, dtype=np.uint8)
        statuses = [
            lib.aclrtMalloc(ctypes.byref(address), 0, 0),
            lib.aclrtMalloc(ctypes.byref(address), 100, 0),
            lib.aclrtMemcpy(address, 10, host.ctypes.data, 40, 1),  # count > destMax
            lib.aclrtMemcpy(host.ctypes.data, 40, address, 40, 1),  # the kind says H2D
            lib.aclrtMemcpy(address, 160, host.ctypes.data, 40, 1),
            lib.aclrtMemcpy(host.ctypes.data, 40, address.value + 1, 39, 2),
            lib.aclrtMemcpy(host.ctypes.data, 40, None, 40, 2),
            lib.aclrtFree(address),
            lib.aclrtFree(address),  # twice
        ]
        found += [(status, lib.aclGetRecentErrMsg().decode()) for status in statuses]
        found.append((int(host[0]), host.tobytes().hex()))  # written back from the device
    return found


def test_statuses_and_messages_come_back_as_the_library_gave_them(plain):
    backend = aclnn.twin_backend(plain.path)
    there, here = refusals(backend), refusals(aclnn.load_backend("twin"))
    assert there == here and backend.in_worker
    assert there[0][0] == 161002 and "INT32" in there[0][1]


def test_each_thread_reads_its_own_messages(plain):
    lib = aclnn.twin_backend(plain.path)
    assert lib.aclInit(None) in (0, 100002)
    lib.aclGetRecentErrMsg()
    read: dict[int, list[str]] = {}

    def fail(number: int) -> None:
        device = 1000 + number
        read[number] = [str(lib.aclrtSetDevice(device))]
        time.sleep(0.2)  # the other thread fails meanwhile
        read[number].append(lib.aclGetRecentErrMsg().decode())

    threads = [threading.Thread(target=fail, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert lib.in_worker
    for number in range(2):
        status, text = read[number]
        assert status == "107001" and text == (
            f"aclrtSetDevice: device {1000 + number} does not exist (the twin has device 0)"
        )


def still_works(copy: ScratchKernel) -> bool:
    grad, x = inputs(3000)
    with aclnn.Session(aclnn.twin_backend(copy.path)) as session:
        there = aclnn.mish_backward(grad, x, session=session)
    return there.tobytes() == aclnn.mish_backward(grad, x, backend="twin").tobytes()


def test_an_endless_loop_in_compute_is_stopped_and_the_session_says_to_open_a_new_one(
    faulty, plain
):
    with aclnn.Session(aclnn.twin_backend(faulty.path)) as session:
        grad = session.tensor(inputs(10)[0])
        with pytest.raises(isolation.KernelError, match=r"no AscendC call on any core for 10 s"):
            aclnn.mish_backward(*inputs(SPIN), session=session)
        for stale in (lambda: session.tensor([1.0]), grad.to_numpy, session.synchronize):
            with pytest.raises(RuntimeError, match=r"KernelError stopped it.*new aclnn.Session"):
                stale()
    assert still_works(plain) and still_works(faulty)  # a fresh worker


def test_an_endless_loop_in_the_tiling_is_stopped(faulty):
    backend = aclnn.twin_backend(faulty.path, watchdog=isolation.Watchdog(stall=2))
    with pytest.raises(isolation.KernelError, match=r"for 2 s, before any AscendC call"):
        aclnn.mish_backward(*inputs(TILING_SPIN), backend=backend)
    assert still_works(faulty)


def test_a_null_pointer_is_a_kernel_error_naming_sigsegv(faulty):
    backend = aclnn.twin_backend(faulty.path)
    with pytest.raises(isolation.KernelError, match=r"crashed with SIGSEGV.*notebook is unharmed"):
        aclnn.mish_backward(*inputs(NULL), backend=backend)
    grad, x = inputs(2000)
    with aclnn.Session(backend) as session:  # the same backend: a new session, a fresh worker
        there = aclnn.mish_backward(grad, x, session=session)
    assert there.tobytes() == aclnn.mish_backward(grad, x, backend="twin").tobytes()


def test_a_killed_worker_is_named_at_the_next_call(plain):
    with aclnn.Session(aclnn.twin_backend(plain.path)) as session:
        x = session.tensor(inputs(100)[1])
        assert isolation._worker is not None
        isolation._worker.process.kill()  # from outside, between two calls
        isolation._worker.process.wait()
        with pytest.raises(RuntimeError, match=r"ended \(.*killed.*new aclnn.Session"):
            x.to_numpy()
    assert still_works(plain)


INTERRUPTED = """
import sys
from pathlib import Path
import numpy as np
from mishgrad import aclnn
from mishgrad.kernel import isolation
backend = aclnn.twin_backend(Path(sys.argv[1]), watchdog=isolation.Watchdog(stall=1e9))
x = np.linspace(-20, 20, {spin}).astype(np.float32)
with aclnn.Session(backend) as session:
    print("worker", isolation._worker.process.pid, flush=True)
    try:
        aclnn.mish_backward(np.ones_like(x), x, session=session)  # only Interrupt stops it
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    try:
        session.tensor([1.0])
    except RuntimeError as error:
        print("stale:", error, flush=True)
small = np.linspace(-3, 3, 100, dtype=np.float32)
same = aclnn.mish_backward(small, small, backend=backend) == aclnn.mish_backward(small, small)
print("next session", same.all(), flush=True)
"""


def test_an_interrupt_stops_a_hanging_kernel_at_once(faulty):
    still_works(faulty)  # built
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-c", INTERRUPTED.format(spin=SPIN), str(faulty.path)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) as child:
        assert child.stdout is not None
        worker = int(child.stdout.readline().split()[1])
        wait_until_spinning(worker)  # the kernel is running
        child.send_signal(signal.SIGINT)  # what JupyterLab's Interrupt does
        # Its watchdog never stops a stall (stall=1e9): only the Interrupt can have ended it.
        assert child.stdout.readline().strip() == "interrupted"
        rest = child.stdout.read()
        assert child.wait(timeout=600) == 0
    assert "stale: " in rest and "(Interrupt stopped it)" in rest, rest
    assert rest.endswith("next session True\n"), rest
