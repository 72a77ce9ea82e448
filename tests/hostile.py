"""Hostile calls of the twin's C ABI, and what each must return.

What a careless or malicious program may pass: shapes whose element count overflows int64,
strides and offsets near INT64_MAX, enum values outside the defined sets, misaligned pointers,
stale handles, any order of lifecycle calls, several threads at once. The expected outcomes are
small models written from CANN's documentation and the twin's stated rules, independently of
the C++ that implements them.

Each case runs in a forked child of a process whose own copy of the twin library was never
initialized (:func:`fresh_library`), so every case starts from a fresh runtime, and a crash
fails the case instead of killing the caller. Shared by tests/test_acl_hostile.py,
tests/twin/sanitized_run.py (under ASan and UBSan) and bench/fuzz_aclnn.py.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import shutil
import tempfile
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from math import prod
from pathlib import Path
from typing import Any

import error_checks
import numpy as np
from aclnn_cases import TensorCase
from hypothesis import strategies as st

from mishgrad import aclnn
from mishgrad.aclnn import backends, binding
from mishgrad.aclnn.binding import INT64_RANGE
from mishgrad.kernel import twin_build
from mishgrad.math import dtypes, oracle

INT64_MAX = 2**63 - 1
#: aclDataType values the twin defines, and their element sizes.
SIZES = {0: 4, 1: 2, 2: 1, 3: 4, 4: 1, 6: 2, 7: 2, 8: 4, 9: 8, 10: 8, 11: 8, 12: 1, 27: 2}
FORMATS = {0, 1, 2, 3, 4, 29}
SUPPORTED = {0: np.dtype(np.float32), 1: np.dtype(np.float16), 27: dtypes.bfloat16}
#: The exact-check limit of the twin's stated overlap rule (kExactOverlapLimit in twin/views.h;
#: the model states it independently, so a change to the rule must change both).
EXACT_LIMIT = 1 << 16
BUFFER_BYTES = 1024  # each case's device buffer; aclrtMalloc pads it to 1056
PADDED_BYTES = BUFFER_BYTES + 32
DEVICE_MEMORY = 8 << 30  # the twin's device memory


# ---------------------------------------------------------------------------------------------
# Isolation: a library copy that this process never initializes, and one fork per case.


@cache
def fresh_library() -> aclnn.Backend:
    """The twin library, copied so that its runtime state is this module's own and untouched."""
    folder = Path(tempfile.mkdtemp(prefix="mishgrad-hostile-"))
    copy = folder / "libmishgrad_twin_hostile.so"
    shutil.copy(twin_build.build(), copy)
    backend = backends._twin_backend_at(str(copy))
    shutil.rmtree(folder)  # loaded: the mapping outlives the file
    return backend


def in_child(work: Callable[[], Any]) -> Any:
    """``work()`` in a forked child; its result, or AssertionError if it raised or crashed."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        try:
            outcome = ("ok", work())
        except BaseException:
            outcome = ("raised", traceback.format_exc())
        with os.fdopen(write, "wb") as pipe:
            pickle.dump(outcome, pipe)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0 or not data:
        raise AssertionError(f"the case crashed the process (wait status {status})")
    kind, value = pickle.loads(data)
    if kind == "raised":
        raise AssertionError(value)
    return value


def message(lib: aclnn.Backend) -> str:
    """The calling thread's messages (and clears them)."""
    return (lib.aclGetRecentErrMsg() or b"").decode()


def ready(lib: aclnn.Backend) -> ctypes.c_void_p:
    """aclInit, device 0 and a stream, in a fresh child."""
    stream = ctypes.c_void_p()
    for status in (
        lib.aclInit(None),
        lib.aclrtSetDevice(0),
        lib.aclrtCreateStream(ctypes.byref(stream)),
    ):
        assert status == 0, message(lib)
    return stream


# ---------------------------------------------------------------------------------------------
# Views with numbers near the limits of int64, created raw through aclCreateTensor.


@dataclass(frozen=True)
class RawView:
    """aclCreateTensor's arguments, as integers (dtype and format included)."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    storage: tuple[int, ...]
    dtype: int
    format: int
    misalign: int  # bytes from the allocation's start to tensorData


_HUGE_DIMS = [2**31, 2**32 + 1, 2**62, INT64_MAX]
_HUGE_STRIDES = [2**31, 2**62, INT64_MAX - 1, INT64_MAX]


@st.composite
def raw_views(draw: st.DrawFn) -> RawView:
    """Mostly small views, with huge dims, strides, offsets and storages and bad enums mixed in."""
    small = st.integers(0, 5)
    shape = tuple(draw(st.lists(st.one_of(small, small, st.sampled_from(_HUGE_DIMS)), max_size=4)))
    contiguous = [min(prod(shape[d + 1 :]), INT64_MAX) for d in range(len(shape))]
    strides = tuple(
        c
        if draw(st.booleans())
        else draw(st.one_of(st.integers(0, 9), st.sampled_from(_HUGE_STRIDES)))
        for c in contiguous
    )
    offset = draw(st.one_of(st.integers(0, 4), st.sampled_from([2**62, INT64_MAX])))
    span = max(view_last(shape, strides, offset) + 1, 0)
    storage = draw(
        st.one_of(
            st.just((span + draw(st.integers(-1, 2)),)),
            st.sampled_from([(0,), (64,), (2**61,), (INT64_MAX,), (2**32, 2**32), (3, INT64_MAX)]),
        )
    )
    rarely = draw(st.integers(0, 7)) == 0  # one case in eight passes a bad enum value
    dtype = draw(
        st.sampled_from([100, -1, 5, 26, 2**31 - 1, -(2**31)])
        if rarely
        else st.sampled_from([*SUPPORTED, *SUPPORTED, *sorted(SIZES)])
    )
    format_ = draw(
        st.sampled_from([-1, 99, 2**31 - 1, -(2**31)])
        if rarely and draw(st.booleans())
        else st.sampled_from(sorted(FORMATS))
    )
    misalign = draw(st.sampled_from([0, 0, 0, 1, 2, 4]))
    return RawView(
        shape,
        strides,
        offset,
        tuple(min(max(n, 0), INT64_MAX) for n in storage),
        dtype,
        format_,
        misalign,
    )


def view_last(shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> int:
    """The element offset of a non-empty view's last element."""
    return offset + sum(s * (n - 1) for n, s in zip(shape, strides, strict=True) if n > 0)


def create_accepted(view: RawView) -> bool:
    """Does aclCreateTensor accept the view over a fresh buffer (the documented storage rule)?"""
    size = SIZES.get(view.dtype)
    if size is None or view.format not in FORMATS:
        return False
    if min((*view.shape, *view.strides, *view.storage, view.offset), default=0) < 0:
        return False
    count, storage = prod(view.shape), prod(view.storage)
    if count > INT64_MAX or storage > INT64_MAX or storage * size > INT64_MAX:
        return False
    if count > 0:
        steps = [s * (n - 1) for n, s in zip(view.shape, view.strides, strict=True)]
        last = view_last(view.shape, view.strides, view.offset)
        if max(steps, default=0) > INT64_MAX or last > INT64_MAX or last >= storage:
            return False
    nbytes = storage * size
    return nbytes == 0 or (view.misalign % size == 0 and view.misalign + nbytes <= PADDED_BYTES)


def overlap_refused(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """The twin's documented self-overlap rule for gradInput (twin/views.h, notebook 09)."""
    if prod(shape) <= 1:
        return False
    dims = sorted((s, n) for n, s in zip(shape, strides, strict=True) if n > 1)
    if any(s == 0 for s, _ in dims):
        return True
    reach = 0
    for stride, size in dims:
        if stride <= reach:
            if prod(shape) > EXACT_LIMIT:
                return True
            return TensorCase(np.dtype(np.float32), shape, strides, 0, 0).overlaps_itself()
        reach += stride * (size - 1)
    return False


def phase1_expected(view: RawView) -> int:
    """Phase 1 with the one view as gradOutput, self and gradInput (in place)."""
    if view.dtype not in SUPPORTED or len(view.shape) > 8:
        return 161002
    return 161002 if overlap_refused(view.shape, view.strides) else 0


def run_view_case(view: RawView, seed: int) -> str:
    """Create the view over a fresh buffer; if accepted, run MishGrad in place on it and check the
    result and that no byte outside the view changed. Returns the outcome's name."""
    lib = fresh_library()

    def work() -> tuple[bool, int | None, bytes, bytes, str]:
        stream = ready(lib)
        base = ctypes.c_void_p()
        assert lib.aclrtMalloc(ctypes.byref(base), BUFFER_BYTES, 0) == 0
        before = _fill(np.random.default_rng(seed), view.dtype)
        assert lib.aclrtMemcpy(base, PADDED_BYTES, before.ctypes.data, PADDED_BYTES, 1) == 0
        handle = _create(lib, view, base.value + view.misalign)
        if not handle:
            return False, None, b"", b"", message(lib)
        size, executor = ctypes.c_uint64(), ctypes.c_void_p()
        status = lib.aclnnMishBackwardGetWorkspaceSize(
            handle, handle, handle, ctypes.byref(size), ctypes.byref(executor)
        )
        text = message(lib)
        if status == 0:
            workspace = ctypes.c_void_p()
            if size.value:
                assert lib.aclrtMalloc(ctypes.byref(workspace), size.value, 0) == 0
            assert lib.aclnnMishBackward(workspace, size, executor, stream) == 0, message(lib)
            assert lib.aclrtSynchronizeStream(stream) == 0, message(lib)
        after = np.empty(PADDED_BYTES, np.uint8)
        assert lib.aclrtMemcpy(after.ctypes.data, PADDED_BYTES, base, PADDED_BYTES, 2) == 0
        assert lib.aclDestroyTensor(handle) == 0
        return True, status, before.tobytes(), after.tobytes(), text

    created, status, before, after, text = in_child(work)
    assert created == create_accepted(view), (view, text)
    if not created:
        assert text.startswith("aclCreateTensor: "), (view, text)
        return "create refused"
    assert status == phase1_expected(view), (view, status, text)
    if status != 0:
        assert text, "a refusal leaves a message"
        return "phase 1 refused"
    _check_in_place(view, np.frombuffer(before, np.uint8), np.frombuffer(after, np.uint8))
    return "computed"


def _fill(rng: np.random.Generator, dtype: int) -> np.ndarray:
    values = rng.uniform(-12, 12, PADDED_BYTES // 2)
    typed = values.astype(SUPPORTED.get(dtype, np.dtype(np.float16)))
    return np.frombuffer(typed.tobytes()[:PADDED_BYTES], np.uint8).copy()


def _create(lib: aclnn.Backend, view: RawView, address: int) -> int | None:
    def int64s(values: tuple[int, ...]) -> ctypes.Array:
        checked = binding.checked_ints("a view's numbers", values, INT64_RANGE)  # never wrapped
        return (ctypes.c_int64 * max(len(checked), 1))(*checked)

    return lib.aclCreateTensor(
        int64s(view.shape), len(view.shape), view.dtype, int64s(view.strides), view.offset,
        view.format, int64s(view.storage), len(view.storage), address,
    )  # fmt: skip


def _check_in_place(view: RawView, before: np.ndarray, after: np.ndarray) -> None:
    dtype = SUPPORTED[view.dtype]
    touched = np.zeros(PADDED_BYTES, bool)
    if prod(view.shape):
        index = _offsets(TensorCase(dtype, view.shape, view.strides, view.offset, 0))
        count = (PADDED_BYTES - view.misalign) // dtype.itemsize
        end = view.misalign + count * dtype.itemsize
        old = before[view.misalign : end].view(dtype)
        new = after[view.misalign : end].view(dtype)
        _assert_close(new[index], oracle.mish_backward_oracle(old[index], old[index]))
        for k in range(dtype.itemsize):
            touched[view.misalign + index * dtype.itemsize + k] = True
    assert np.array_equal(before[~touched], after[~touched]), ("wrote outside the view", view)


def _offsets(case: TensorCase) -> np.ndarray:
    grids = np.meshgrid(*[np.arange(n, dtype=np.int64) for n in case.shape], indexing="ij")
    total = np.full(grids[0].shape if grids else (), case.offset, np.int64)
    for grid, stride in zip(grids, case.strides, strict=True):
        total = total + grid * stride
    return np.asarray(total).ravel()


def _assert_close(got: np.ndarray, truth: np.ndarray) -> None:
    assert np.all(error_checks.operator_close(got, truth)), (got, truth)


# ---------------------------------------------------------------------------------------------
# The lifecycle: random call sequences against a state model of CANN's documentation.

DEVICE_IDS = [0, 0, 0, 1, -1, 2**31 - 1, -(2**31)]


def lifecycle_calls() -> st.SearchStrategy[list[tuple]]:
    """Sequences of runtime and aclnn calls; an index names the k-th handle created so far."""
    index = st.integers(0, 4)
    call = st.one_of(
        st.just(("aclInit",)),
        st.just(("aclFinalize",)),
        st.tuples(st.just("aclrtSetDevice"), st.sampled_from(DEVICE_IDS)),
        st.tuples(st.just("aclrtResetDevice"), st.sampled_from(DEVICE_IDS)),
        st.just(("aclrtCreateStream",)),
        st.tuples(st.just("aclrtDestroyStream"), index),
        st.tuples(st.just("aclrtSynchronizeStream"), st.one_of(st.none(), index)),
        st.tuples(st.just("aclrtMalloc"), st.sampled_from([0, 1, 100, 2**40])),
        st.tuples(st.just("aclrtFree"), index),
        st.tuples(st.just("aclrtMemcpy"), index),
        st.just(("phase1",)),
        st.tuples(st.just("aclnnMishBackward"), index),
        st.tuples(st.just("aclDestroyAclOpExecutor"), index),
    )
    return st.lists(call, max_size=30)


@dataclass
class LifecycleModel:
    """The documented state: where the lifecycle is, device holds, and which handles live.

    Streams and executors are named by the index of their creation (their handles are never
    reused); device memory by its address, as the C API names it: ``addresses`` are those the
    run's aclrtMalloc calls returned, so a freed address that a later aclrtMalloc returned
    again is live again, as it is on any runtime.
    """

    addresses: list[int]
    phase: str = "never"  # never, initialized, finalized
    holds: int = 0

    def __post_init__(self) -> None:
        self.streams: set[int] = set()
        self.buffers: set[int] = set()  # live addresses
        self.executors: set[int] = set()
        self.created = {"stream": 0, "buffer": 0, "executor": 0}

    def _new(self, kind: str, live: set[int]) -> int:
        number = self.created[kind]
        live.add(self.addresses[number] if kind == "buffer" else number)
        self.created[kind] += 1
        return 0

    def _address(self, index: int) -> int:
        return self.addresses[index] if index < self.created["buffer"] else FORGED

    def _release_device(self) -> None:
        self.holds = 0
        self.streams.clear()
        self.buffers.clear()

    def expect(self, call: tuple) -> int:
        name, *args = call
        initialized = self.phase == "initialized"
        if name == "aclInit":
            if self.phase != "never":
                return 100002
            self.phase = "initialized"
            return 0
        if name == "aclFinalize":
            if self.phase == "finalized":
                return 100037
            if not initialized:
                return 100001
            self._release_device()
            self.executors.clear()
            self.phase = "finalized"
            return 0
        if name == "aclDestroyAclOpExecutor":
            return _take(self.executors, args[0], 161002)
        if name in ("phase1", "aclnnMishBackward"):
            if not initialized or self.holds == 0:
                return 361001
            if name == "phase1":
                return self._new("executor", self.executors)
            return _take(self.executors, args[0], 161002)
        if not initialized:
            return 100001
        if name in ("aclrtSetDevice", "aclrtResetDevice"):
            if args[0] != 0:
                return 107001
            if name == "aclrtSetDevice":
                self.holds += 1
                return 0
            if self.holds == 0:
                return 107001
            self.holds -= 1
            if self.holds == 0:
                self._release_device()
            return 0
        if name == "aclrtDestroyStream":
            return _take(self.streams, args[0], 107000)
        if name == "aclrtFree":
            return _take(self.buffers, self._address(args[0]), 107000)
        if self.holds == 0:
            return 107002
        if name == "aclrtCreateStream":
            return self._new("stream", self.streams)
        if name == "aclrtSynchronizeStream":
            return 0 if args[0] is None or args[0] in self.streams else 107000
        if name == "aclrtMalloc":
            if args[0] == 0:
                return 100000
            if args[0] > DEVICE_MEMORY:
                return 207001
            return self._new("buffer", self.buffers)
        return 0 if self._address(args[0]) in self.buffers else 100000  # aclrtMemcpy into buffer k


def _take(live: set[int], index: int, missing: int) -> int:
    if index not in live:
        return missing
    live.discard(index)
    return 0


#: A handle that was never handed out (what an index past the created ones stands for).
FORGED = 0x1230


def _perform(
    lib: aclnn.Backend, calls: list[tuple]
) -> tuple[list[tuple[int, str, str]], list[int]]:
    """Run the calls; per call its status and the two messages read after it, and the addresses
    aclrtMalloc returned."""
    handles: dict[str, list[int]] = {"stream": [], "buffer": [], "executor": []}

    def handle(kind: str, index: int | None) -> int | None:
        if index is None:
            return None
        return handles[kind][index] if index < len(handles[kind]) else FORGED

    empty = _int64s([0])
    host = np.zeros(16, np.uint8)
    results = []
    for name, *args in calls:
        out = ctypes.c_void_p()
        if name == "aclInit":
            status = lib.aclInit(None)
        elif name == "aclFinalize":
            status = lib.aclFinalize()
        elif name in ("aclrtSetDevice", "aclrtResetDevice"):
            status = getattr(lib, name)(args[0])
        elif name == "aclrtCreateStream":
            status = lib.aclrtCreateStream(ctypes.byref(out))
            handles["stream"] += [out.value] if status == 0 else []
        elif name in ("aclrtDestroyStream", "aclrtSynchronizeStream"):
            status = getattr(lib, name)(handle("stream", args[0]))
        elif name == "aclrtMalloc":
            status = lib.aclrtMalloc(ctypes.byref(out), args[0], 0)
            handles["buffer"] += [out.value] if status == 0 else []
        elif name == "aclrtFree":
            status = lib.aclrtFree(handle("buffer", args[0]))
        elif name == "aclrtMemcpy":
            status = lib.aclrtMemcpy(handle("buffer", args[0]), 16, host.ctypes.data, 16, 1)
        elif name == "phase1":
            tensor = lib.aclCreateTensor(empty, 1, 0, _int64s([1]), 0, 2, empty, 1, None)
            size = ctypes.c_uint64()
            status = lib.aclnnMishBackwardGetWorkspaceSize(
                tensor, tensor, tensor, ctypes.byref(size), ctypes.byref(out)
            )
            assert lib.aclDestroyTensor(tensor) == 0
            handles["executor"] += [out.value] if status == 0 else []
        elif name == "aclnnMishBackward":
            status = lib.aclnnMishBackward(None, 0, handle("executor", args[0]), None)
        else:
            status = lib.aclDestroyAclOpExecutor(handle("executor", args[0]))
        results.append((status, message(lib), message(lib)))
    return results, handles["buffer"]


def _int64s(values: list[int]) -> ctypes.Array:
    return (ctypes.c_int64 * len(values))(*values)


def run_lifecycle(calls: list[tuple]) -> None:
    """Run one call sequence in a fresh child and compare every status with the model's."""
    lib = fresh_library()
    observed, addresses = in_child(lambda: _perform(lib, calls))
    model = LifecycleModel(addresses)
    for step, (call, (status, first, second)) in enumerate(zip(calls, observed, strict=True)):
        expected = model.expect(call)
        assert status == expected, (step, call, status, expected, first, calls)
        assert bool(first) == (status != 0), (step, call, "a message exactly when refused", first)
        assert second == "", (step, call, "aclGetRecentErrMsg clears what it returns", second)


# ---------------------------------------------------------------------------------------------
# Error messages under several threads.


def run_threads(threads: int = 4, rounds: int = 50) -> int:
    """Threads each make failing calls that name their own number and read their messages back:
    each must read exactly its own, once. Returns the number of calls checked."""
    lib = fresh_library()

    def work() -> list[str]:
        assert lib.aclInit(None) == 0
        barrier = threading.Barrier(threads)
        problems: list[str] = []

        def one(number: int) -> None:
            barrier.wait()
            for round_ in range(rounds):
                device = 1000 * (number + 1) + round_
                assert lib.aclrtSetDevice(device) == 107001
                text, again = message(lib), message(lib)
                if (
                    text
                    != f"aclrtSetDevice: device {device} does not exist (the twin has device 0)"
                ):
                    problems.append(f"thread {number} read {text!r}")
                if again:
                    problems.append(f"thread {number} read {again!r} after clearing")

        workers = [threading.Thread(target=one, args=(n,)) for n in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        return problems

    problems = in_child(work)
    assert not problems, problems[:5]
    return threads * rounds
