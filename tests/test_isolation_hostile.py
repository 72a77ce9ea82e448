"""Hostile uses of the worker: several threads at once, and raw-pointer writes outside the output.

One scratch copy carries the planted faults, chosen by the input's length (as in
tests/test_isolation.py): through ``GetPhyAddr()``, the GlobalTensor's raw address, its kernel
writes a few elements past the end of the output, before its start, into ``x``, or past the
end of ``x``. Writes through the AscendC API are bounds-checked by the twin; these are not, so
the guard bytes around each tensor and the check of the inputs must catch them.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from mishgrad.kernel import twin
from mishgrad.kernel.scratch import ScratchKernel, scratch_kernel

pytestmark = pytest.mark.slow  # builds a scratch copy with planted faults

PAST_OUT, BEFORE_OUT, INTO_X, PAST_X = 3001, 3002, 3003, 3004
FAULTS = f"""
        const bool lastCore = core + 1 == tiling.blockDim;
        const uint64_t n = tiling.totalLength;
        if (n == {PAST_OUT} && lastCore) {{ xGradGm_.GetPhyAddr()[length + 2] = 1; }}
        if (n == {BEFORE_OUT} && core == 0) {{ *(xGradGm_.GetPhyAddr() - 3) = 1; }}
        if (n == {INTO_X} && core == 0) {{ xGm_.GetPhyAddr()[5] = 7; }}
        if (n == {PAST_X} && lastCore) {{ xGm_.GetPhyAddr()[length] = 7; }}
"""
ANCHOR = "        xGradGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(xGrad) + start, length);\n"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> ScratchKernel:
    copy = scratch_kernel("hostile", root=tmp_path_factory.mktemp("scratch"))
    copy.replace("op_kernel/mish_grad.h", ANCHOR, ANCHOR + FAULTS)
    return copy


def inputs(n: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(-20, 20, n, dtype=np.float32)
    return np.full_like(x, 0.5), x


@pytest.mark.parametrize(
    ("length", "pattern"),
    [
        (PAST_OUT, r"wrote past the end of x_grad: 12 bytes after its last element"),
        (BEFORE_OUT, r"wrote before the start of x_grad: 12 bytes before its first element"),
        (INTO_X, r"wrote into the input x: 4 bytes of it changed"),
        (PAST_X, r"wrote past the end of x: 4 bytes after its last element"),
    ],
)
def test_a_raw_write_outside_the_output_is_caught(hostile, length, pattern):
    grad, x = inputs(length)
    kept = x.copy()
    with pytest.raises(twin.KernelError, match=pattern + r".*GetPhyAddr"):
        hostile.run_kernel(grad, x)
    assert np.array_equal(x, kept)  # the caller's array was never the kernel's to touch
    grad, x = inputs(777)
    assert hostile.run_kernel(grad, x).out.tobytes() == twin.run_kernel(grad, x).out.tobytes()


@pytest.mark.parametrize("threads", [2, 6])
def test_threads_share_the_worker_one_request_at_a_time(hostile, threads):
    lengths = [1000 + 37 * i for i in range(3 * threads)]
    here = {n: twin.run_kernel(*inputs(n)).out.tobytes() for n in lengths}  # in this process

    def there(n: int) -> bytes:
        return hostile.run_kernel(*inputs(n)).out.tobytes()

    with ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(there, lengths, timeout=1200))  # a hang guard only
    assert results == [here[n] for n in lengths]  # bit for bit, and no false crash


def test_a_fault_in_one_thread_is_reported_to_that_thread_alone(hostile):
    lengths = [PAST_OUT, 1500, 1501, PAST_OUT, 1502, 1503]
    here = {n: twin.run_kernel(*inputs(n)).out.tobytes() for n in lengths if n != PAST_OUT}

    def there(n: int) -> str | bytes:
        try:
            return hostile.run_kernel(*inputs(n)).out.tobytes()
        except twin.KernelError as error:
            return str(error)

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(there, lengths, timeout=1200))  # a hang guard only
    for n, result in zip(lengths, results, strict=True):
        if n == PAST_OUT:
            assert isinstance(result, str) and "past the end of x_grad" in result
        else:
            assert result == here[n]
