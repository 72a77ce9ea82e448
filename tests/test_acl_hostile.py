"""Hostile input: the twin's C ABI and the Python layer survive any arguments.

Random cases come from tests/hostile.py, each run in a forked child (a crash fails the case);
bench/fuzz_aclnn.py runs many more, and tests/test_sanitizers.py a share under ASan and UBSan.
"""

from __future__ import annotations

import ctypes
from collections import Counter
from pathlib import Path

import hostile
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from mishgrad import aclnn
from mishgrad.kernel import twin_build

CONTRACT_PROBE = Path(__file__).parent / "twin" / "contract_probe.cpp"


def fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


VIEW_OUTCOMES: Counter[str] = Counter()


@pytest.mark.slow
@fuzz(150)
@given(view=hostile.raw_views())
def test_views_near_the_limits_of_int64_are_refused_or_computed_exactly(view):
    VIEW_OUTCOMES[hostile.run_view_case(view, seed=sum(VIEW_OUTCOMES.values()))] += 1


@pytest.mark.slow
def test_the_view_fuzz_reaches_every_outcome():
    if not VIEW_OUTCOMES:  # run on its own
        test_views_near_the_limits_of_int64_are_refused_or_computed_exactly()
    assert set(VIEW_OUTCOMES) == {"create refused", "phase 1 refused", "computed"}, VIEW_OUTCOMES


@pytest.mark.slow
@fuzz(120)
@given(calls=hostile.lifecycle_calls())
def test_random_lifecycles_follow_the_documented_state_model(calls):
    hostile.run_lifecycle(calls)


def test_error_messages_belong_to_the_calling_thread_and_are_cleared_on_read():
    assert hostile.run_threads(threads=4, rounds=50) == 200


@pytest.fixture
def twin_session():
    with aclnn.Session("twin") as s:
        yield s


def raw_tensor(lib, shape, strides, offset, storage, dtype, fmt, address):
    def int64s(values):
        return (ctypes.c_int64 * max(len(values), 1))(*values)

    return lib.aclCreateTensor(
        int64s(shape), len(shape), dtype, int64s(strides), offset, fmt, int64s(storage),
        len(storage), address,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("shape", "strides", "offset", "storage", "expected"),
    [
        ((2**32, 2**32), (1, 1), 0, (64,), "element count (or byte count) does not fit int64"),
        ((2**62, 4, 0), (0, 0, 0), 0, (64,), None),  # empty: accepted, whatever the other dims
        ((3,), (2**62,), 0, (64,), "last element lies beyond int64"),
        ((1,), (1,), 2**63 - 1, (64,), "reaches element 9223372036854775807"),
        ((3, 2), (2**62, 2**62), 0, (64,), "last element lies beyond int64"),
        ((2,), (1,), 0, (2**62,), "element count (or byte count) does not fit int64"),
    ],
)
def test_overflowing_view_arithmetic_is_refused_never_wrapped(
    twin_session, shape, strides, offset, storage, expected
):
    lib = twin_session.lib
    address = twin_session.malloc(256)
    handle = raw_tensor(lib, shape, strides, offset, storage, 0, 2, address)
    text = hostile.message(lib)
    if expected is None:
        assert handle and lib.aclDestroyTensor(handle) == 0
    else:
        assert not handle and expected in text


@pytest.mark.parametrize(("dtype", "fmt"), [(100, 2), (-1, 2), (2**31 - 1, 2), (-(2**31), 2),
                                            (0, -1), (0, 99), (0, -(2**31))])  # fmt: skip
def test_unknown_enum_values_are_refused(twin_session, dtype, fmt):
    lib = twin_session.lib
    address = twin_session.malloc(64)
    assert not raw_tensor(lib, (4,), (1,), 0, (4,), dtype, fmt, address)
    assert f"{'dataType' if dtype not in hostile.SIZES else 'format'} " in hostile.message(lib)
    out = ctypes.c_void_p()
    assert lib.aclrtMalloc(ctypes.byref(out), 64, -(2**31)) == 100000
    assert lib.aclrtMemcpy(address, 64, address, 64, 2**31 - 1) == 100000
    assert "unknown kind 2147483647" in hostile.message(lib)


def test_misaligned_tensor_data_and_workspace_are_refused(twin_session):
    session = twin_session
    lib = session.lib
    address = session.malloc(256)
    assert not raw_tensor(lib, (4,), (1,), 0, (4,), 0, 2, address + 2)
    assert "not aligned to its dtype's 4-byte elements" in hostile.message(lib)
    grad = session.tensor(np.zeros(8, np.float16))  # float16 with float32: gathered, workspace used
    phase1 = aclnn.get_workspace_size(
        session,
        grad,
        session.tensor(np.zeros(8, np.float32)),
        session.tensor(np.zeros(8, np.float32)),
    )
    workspace = session.malloc(phase1.workspace_size + 32)
    status = lib.aclnnMishBackward(
        workspace + 2, phase1.workspace_size, phase1.executor, session.stream
    )
    assert status == 161002
    assert "not aligned to the 4-byte elements" in hostile.message(lib)
    assert (
        lib.aclnnMishBackward(workspace, phase1.workspace_size, phase1.executor, session.stream)
        == 0
    )
    session.synchronize()


def test_reset_device_minus_one_is_an_invalid_device(twin_session):
    lib = twin_session.lib
    assert lib.aclrtResetDevice(-1) == 107001
    assert "device -1 does not exist" in hostile.message(lib)


def test_stale_handles_are_refused_not_confused(twin_session):
    session = twin_session
    lib = session.lib

    def plan():
        return aclnn.get_workspace_size(
            session, *(session.tensor(np.ones(4, np.float32)) for _ in range(3))
        )

    old = plan()
    aclnn.run(session, old)
    for _ in range(50):  # later executors: none may take the old handle's place
        aclnn.run(session, plan())
    assert lib.aclnnMishBackward(None, 0, old.executor, session.stream) == 161002
    assert "already run" in hostile.message(lib)
    tensor = session.tensor(np.ones(4, np.float32))
    handle = tensor.handle
    tensor.release()
    assert lib.aclDestroyTensor(handle) == 161002
    never_run = plan()
    assert lib.aclDestroyAclOpExecutor(never_run.executor) == 0
    assert lib.aclDestroyAclOpExecutor(never_run.executor) == 161002
    assert lib.aclDestroyAclOpExecutor(None) == 561103
    hostile.message(lib)


def test_storage_freed_and_allocated_again_is_caught():
    lib = hostile.fresh_library()

    def work():
        stream = hostile.ready(lib)
        storage = ctypes.c_void_p()
        assert lib.aclrtMalloc(ctypes.byref(storage), 4096, 0) == 0
        tensor = raw_tensor(lib, (1024,), (1,), 0, (1024,), 0, 2, storage)
        size, executor = ctypes.c_uint64(), ctypes.c_void_p()
        args = (tensor, tensor, tensor, ctypes.byref(size), ctypes.byref(executor))
        assert lib.aclnnMishBackwardGetWorkspaceSize(*args) == 0
        workspace = ctypes.c_void_p()
        assert lib.aclrtMalloc(ctypes.byref(workspace), size.value, 0) == 0
        assert lib.aclrtFree(storage) == 0
        # In a quiet heap glibc soon hands a freed 4 KB block out again: the tensor now
        # points into a new allocation, which only the allocation's generation tells apart.
        again = []
        for _ in range(32):
            block = ctypes.c_void_p()
            assert lib.aclrtMalloc(ctypes.byref(block), 4096, 0) == 0
            again.append(block.value)
        queued = lib.aclnnMishBackward(workspace, size.value, executor, stream)
        return (
            storage.value in again,
            queued,
            lib.aclrtSynchronizeStream(stream),
            hostile.message(lib),
        )

    reused, queued, status, text = hostile.in_child(work)
    assert reused and queued == 0 and status == 507015, (reused, queued, status)
    assert "freed before aclnnMishBackward ran" in text


def test_the_overlap_check_is_bounded_and_names_its_rule(twin_session):
    # 2**40 elements: a check that visited each one would not end (pytest's timeout is the
    # hang guard); the twin compares elements one by one only up to 65,536 of them.
    session = twin_session
    n = 2**20
    storage = session.malloc(5 * n * 4)
    out = aclnn.DeviceTensor.describe(session, storage, (n, n), (3, 2), 0, 5 * n, np.float32)
    x = aclnn.DeviceTensor.describe(session, storage, (n, n), (0, 0), 0, 1, np.float32)
    phase1 = aclnn.get_workspace_size(session, x, x, out, check=False)
    assert phase1.status == 161002
    text = hostile.message(session.lib)
    assert "rule 2: sorted by stride, dimension 0's stride 3 does not exceed 2097150" in text, text
    assert f"with {n * n} elements (more than 65536) the view is not compared one by one" in text
    assert "twin-only" in text
    small = aclnn.DeviceTensor.describe(session, storage, (4, 3), (2, 3), 0, 16, np.float32)
    x_small = aclnn.DeviceTensor.describe(session, storage, (4, 3), (0, 0), 0, 1, np.float32)
    assert aclnn.get_workspace_size(session, x_small, x_small, small, check=False).status == 161002
    assert "rule 3: compared one by one" in hostile.message(session.lib)
    broadcast = aclnn.DeviceTensor.describe(session, storage, (4, 3), (0, 1), 0, 16, np.float32)
    assert (
        aclnn.get_workspace_size(session, x_small, x_small, broadcast, check=False).status == 161002
    )
    assert "rule 1: dimension 0 has 4 elements and stride 0" in hostile.message(session.lib)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (((2,), (1, 1), 0, 8), "strides has 2 entries but shape has 1"),
        (((2**63,), (1,), 0, 8), "shape: 9223372036854775808 does not fit"),
        (((2,), (1,), -(2**63) - 1, 8), "offset: "),
        (((2,), (1,), 0, 2**64), "storage_size: "),
    ],
)
def test_the_python_layer_refuses_numbers_ctypes_would_wrap(twin_session, arguments, expected):
    address = twin_session.malloc(64)
    with pytest.raises(ValueError, match=expected):
        aclnn.DeviceTensor.describe(twin_session, address, *arguments, np.float32)
    with pytest.raises(ValueError, match="nbytes: -1"):
        twin_session.malloc(-1)
    with pytest.raises(ValueError, match="device: 4294967296"):
        aclnn.Session("twin", device=2**32)


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ((2**32, 2**32), "has shape [4294967296, 4294967296]: a negative dimension, or more"),
        ((3, -1), "has shape [3, -1]: a negative dimension"),
        ((0, 2**62, 2**62), ""),  # empty: nothing to count
        ((2**31, 2**31), ""),  # 2^62 elements: counted exactly
    ],
)
def test_the_shared_contract_counts_elements_without_wrapping(shape, expected):
    probe = twin_build.build_extra("mishgrad_contract_probe", [CONTRACT_PROBE])
    probe.contract_status.argtypes = [
        ctypes.POINTER(ctypes.c_int64), ctypes.c_uint64, ctypes.c_char_p, ctypes.c_uint64
    ]  # fmt: skip
    text = ctypes.create_string_buffer(256)
    status = probe.contract_status((ctypes.c_int64 * len(shape))(*shape), len(shape), text, 256)
    assert status == (161002 if expected else 0)
    assert expected in text.value.decode()
