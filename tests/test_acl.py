"""The aclnn two-phase call through the Python binding, on the twin: the documented contract."""

from __future__ import annotations

import ctypes
import re

import error_checks
import numpy as np
import pytest

from mishgrad import aclnn
from mishgrad.aclnn import backends, provenance
from mishgrad.aclnn import session as session_module
from mishgrad.kernel import source, twin
from mishgrad.math import numerics, oracle
from mishgrad.math.dtypes import DTYPES, TABLE


@pytest.fixture
def session():
    """A session on the backend $MISHGRAD_BACKEND selects (the twin here, CANN on an NPU host)."""
    with aclnn.Session() as s:
        yield s


@pytest.fixture
def twin_session():
    """The twin only: device memory rules and messages that CANN words differently."""
    with aclnn.Session("twin") as s:
        yield s


def says(session, message, text):
    """The twin's messages are ours to test; CANN's are its own."""
    return session.lib.name != "twin" or text in message


def call(session, grad, x, out):
    """Phase 1 with the status returned, and the library's message."""
    phase1 = aclnn.get_workspace_size(session, grad, x, out, check=False)
    return phase1, session.lib.aclGetRecentErrMsg().decode()


def assert_close(got, expected):
    """As close as the targets promise (one tolerance for the twin and the NPU)."""
    assert np.all(error_checks.operator_close(got, expected)), (got, expected)


def floats(*shape, dtype=np.float32):
    return np.linspace(-6, 6, int(np.prod(shape))).reshape(shape).astype(dtype)


def test_the_ops_nn_example_matches_the_oracle(session):
    grad = np.arange(8, dtype=np.float32).reshape(4, 2)
    x = np.array([1, 1, 1, 2, 2, 2, 3, 3], dtype=np.float32).reshape(4, 2)
    out = aclnn.mish_backward(grad, x, session=session)
    assert_close(out, oracle.mish_backward_oracle(grad, x))


@pytest.mark.parametrize(
    ("which", "expected"),
    [
        ("grad", "gradOutput is a null pointer"),
        ("x", "self is a null pointer"),
        ("out", "gradInput is a null pointer"),
    ],
)
def test_null_tensors_are_161001(session, which, expected):
    tensors = {name: session.tensor(floats(3)) for name in ("grad", "x", "out")}
    tensors[which] = None
    phase1, message = call(session, tensors["grad"], tensors["x"], tensors["out"])
    assert phase1.status == 161001 and phase1.name == "ACLNN_ERR_PARAM_NULLPTR"
    assert says(session, message, expected)


@pytest.mark.parametrize(
    ("grad_dtype", "x_dtype", "out_dtype", "expected"),
    [
        (np.float64, np.float32, np.float32, "gradOutput has dtype DOUBLE"),
        (np.float32, np.int32, np.float32, "self has dtype INT32"),
        (np.float32, np.float32, np.int32, "cannot be cast to gradInput's dtype INT32"),
        (np.float32, np.float32, np.float64, "gradInput has dtype DOUBLE"),
        (np.float32, np.float32, np.bool_, "cannot be cast to gradInput's dtype BOOL"),
    ],
)
def test_unsupported_dtypes_are_161002(session, grad_dtype, x_dtype, out_dtype, expected):
    tensors = [session.tensor(np.zeros(4, dtype=d)) for d in (grad_dtype, x_dtype, out_dtype)]
    phase1, message = call(session, *tensors)
    assert phase1.status == 161002 and says(session, message, expected)


def test_more_than_8_dims_is_161002(session):
    nine = np.zeros((1,) * 9, np.float32)
    phase1, message = call(
        session, session.tensor(nine), session.tensor(nine), session.tensor(nine)
    )
    assert phase1.status == 161002 and says(session, message, "has 9 dimensions; at most 8")
    eight = np.zeros((1,) * 8, np.float32)
    assert call(session, *(session.tensor(eight) for _ in range(3)))[0].status == 0


def test_shapes_that_do_not_broadcast_are_161002(session):
    phase1, message = call(
        session, session.tensor(floats(3)), session.tensor(floats(4)), session.tensor(floats(4))
    )
    assert phase1.status == 161002 and says(
        session, message, "gradOutput [3] and self [4] do not broadcast"
    )


def test_output_shape_must_be_the_broadcast_shape(session):
    phase1, message = call(
        session, session.tensor(floats(2, 1)), session.tensor(floats(3)), session.tensor(floats(3))
    )
    assert phase1.status == 161002 and says(
        session, message, "gradInput has shape [3] but the broadcast shape is [2, 3]"
    )


def test_broadcasting_and_promotion(session):
    grad = floats(2, 1, 3, dtype=np.float16)
    x = floats(4, 1, dtype=ml_bf16())
    out = aclnn.mish_backward(grad, x, session=session)
    assert out.shape == (2, 4, 3) and out.dtype == np.float32  # float16 with bfloat16 -> float32
    expected = oracle.mish_backward_oracle(grad.astype(np.float32), x.astype(np.float32))
    assert_close(out, expected)


def ml_bf16():
    from mishgrad.math.dtypes import bfloat16

    return bfloat16


@pytest.mark.parametrize("dtype", [np.float32, np.float16, "bfloat16"])
def test_non_contiguous_inputs_and_output(session, dtype):
    dtype = ml_bf16() if dtype == "bfloat16" else np.dtype(dtype)
    x = floats(6, 8, dtype=dtype)[::2, 1::3]  # a strided view, (3, 3)
    grad = floats(8, 6, dtype=dtype).T[1:4, ::3]  # transposed, at an offset, (3, 3)
    tensors = [session.tensor(grad), session.tensor(x)]
    # The output: every other element of rows of 6 in a larger device buffer, from element 1.
    out_device = session.tensor(np.zeros(36, dtype=dtype))
    out_view = aclnn.DeviceTensor.describe(
        session, out_device.address, (3, 3), (6, 2), 1, 36, dtype
    )
    aclnn.run(session, aclnn.get_workspace_size(session, *tensors, out_view))
    whole = out_device.to_numpy()
    positions = 1 + np.add.outer(6 * np.arange(3), 2 * np.arange(3))
    expected = oracle.mish_backward_oracle(grad, x)
    assert_close(whole[positions], expected)
    untouched = np.ones(36, bool)
    untouched[positions.ravel()] = False
    assert np.all(whole[untouched] == 0)  # nothing outside the view was written
    out_view.release()


def test_output_with_overlapping_elements_is_161002(twin_session):
    session = twin_session
    storage = session.tensor(np.zeros(4, np.float32))
    expanded = aclnn.DeviceTensor.describe(
        session, storage.address, (3, 4), (0, 1), 0, 4, np.float32
    )
    phase1, message = call(
        session, session.tensor(floats(3, 4)), session.tensor(floats(3, 4)), expanded
    )
    assert phase1.status == 161002 and says(
        session, message, "several elements to one memory location"
    )
    expanded.release()


def test_in_place_output_over_an_input(session):
    x = floats(1000)
    x_device = session.tensor(x)
    aclnn.run(
        session,
        aclnn.get_workspace_size(session, session.tensor(np.ones_like(x)), x_device, x_device),
    )
    assert_close(x_device.to_numpy(), oracle.mish_backward_oracle(np.ones_like(x), x))


def test_empty_tensors_succeed_with_no_workspace(session):
    empty = [session.tensor(np.zeros((0, 3), np.float32)) for _ in range(3)]
    phase1 = aclnn.get_workspace_size(session, *empty)
    assert phase1.status == 0 and phase1.workspace_size == 0
    assert aclnn.run(session, phase1) == 0
    empty = np.zeros((2, 0), np.float32)
    assert aclnn.mish_backward(empty, empty, session=session).shape == (2, 0)


def test_workspace_is_exactly_what_the_plan_needs(twin_session):
    session = twin_session
    n = 1000
    stamp = provenance.STAMP_WORDS * 4  # the kernel's own workspace, for its stamp
    contiguous = [session.tensor(floats(n)) for _ in range(3)]
    assert aclnn.get_workspace_size(session, *contiguous).workspace_size == stamp
    half_grad = [
        session.tensor(floats(n, dtype=np.float16)),
        session.tensor(floats(n)),
        session.tensor(floats(n)),
    ]
    assert (
        aclnn.get_workspace_size(session, *half_grad).workspace_size == 4000 + stamp
    )  # grad widened to float32
    everything = [session.tensor(floats(n, dtype=np.float16)), session.tensor(floats(1)),
                  session.tensor(floats(n, dtype=np.float16))]  # fmt: skip
    assert aclnn.get_workspace_size(session, *everything).workspace_size == 3 * 4000 + stamp


def test_a_smaller_or_missing_workspace_is_refused(twin_session):
    session = twin_session
    tensors = [
        session.tensor(floats(100, dtype=np.float16)),
        session.tensor(floats(100)),
        session.tensor(floats(100)),
    ]
    phase1 = aclnn.get_workspace_size(session, *tensors)
    status = session.lib.aclnnMishBackward(
        None, phase1.workspace_size - 1, phase1.executor, session.stream
    )
    assert (
        status == 161002
        and f"smaller than the {phase1.workspace_size} bytes"
        in session.lib.aclGetRecentErrMsg().decode()
    )
    status = session.lib.aclnnMishBackward(
        None, phase1.workspace_size, phase1.executor, session.stream
    )
    assert status == 161001
    host_memory = ctypes.create_string_buffer(phase1.workspace_size)
    status = session.lib.aclnnMishBackward(
        ctypes.addressof(host_memory), phase1.workspace_size, phase1.executor, session.stream
    )
    assert (
        status == 161002
        and f"not {phase1.workspace_size} bytes of device memory"
        in session.lib.aclGetRecentErrMsg().decode()
    )
    assert aclnn.run(session, phase1) == 0  # the executor is still usable after refusals


def test_an_executor_runs_once(session):
    phase1 = aclnn.get_workspace_size(session, *(session.tensor(floats(10)) for _ in range(3)))
    assert aclnn.run(session, phase1) == 0
    again = aclnn.get_workspace_size(session, *(session.tensor(floats(10)) for _ in range(3)))
    assert again.executor != phase1.executor  # a new executor never reuses a spent one's handle
    with pytest.raises(aclnn.AclError, match="already run") as caught:
        aclnn.run(session, phase1)
    assert caught.value.code == 161002 and caught.value.name == "ACLNN_ERR_PARAM_INVALID"


def test_freeing_an_input_early_surfaces_at_synchronize(twin_session):
    session = twin_session
    tensors = [session.tensor(floats(10)) for _ in range(3)]
    phase1 = aclnn.get_workspace_size(session, *tensors)
    session.free(tensors[0].address)
    tensors[0].address = None
    workspace = session.malloc(phase1.workspace_size)
    status = session.lib.aclnnMishBackward(
        workspace, phase1.workspace_size, phase1.executor, session.stream
    )
    assert status == 0  # the task is accepted ...
    with pytest.raises(aclnn.AclError, match="freed before aclnnMishBackward ran") as caught:
        session.synchronize()  # ... and fails where the hardware reports it
    assert caught.value.code == 507015


def test_runtime_rules(twin_session):
    session = twin_session
    lib = session.lib
    assert lib.aclInit(None) == 100002
    assert lib.aclrtSetDevice(1) == 107001
    address = ctypes.c_void_p()
    assert lib.aclrtMalloc(ctypes.byref(address), 0, 0) == 100000
    assert lib.aclrtMalloc(ctypes.byref(address), 100, 7) == 100000
    assert lib.aclrtMalloc(ctypes.byref(address), 100, 0) == 0
    host = np.zeros(40, np.uint8)
    # aclrtMalloc pads 100 bytes to 128 + 32: the copy may use all 160, not one more.
    assert lib.aclrtMemcpy(address, 160, host.ctypes.data, 40, 1) == 0
    assert lib.aclrtMemcpy(address.value + 120, 40, host.ctypes.data, 40, 1) == 0
    assert lib.aclrtMemcpy(address.value + 121, 40, host.ctypes.data, 40, 1) == 100000
    assert lib.aclrtMemcpy(address, 10, host.ctypes.data, 40, 1) == 100000  # count > destMax
    assert lib.aclrtMemcpy(host.ctypes.data, 40, address, 40, 1) == 100000  # kind says H2D
    assert lib.aclrtMemcpy(address, 40, host.ctypes.data, 40, 9) == 100000
    assert lib.aclrtFree(address) == 0
    assert lib.aclrtFree(address) == 107000  # double free
    assert lib.aclrtSynchronizeStream(ctypes.c_void_p(12345)) == 107000


def test_tensor_views_must_fit_their_storage(twin_session):
    session = twin_session
    storage = session.tensor(np.zeros(8, np.float32))
    ok = aclnn.DeviceTensor.describe(session, storage.address, (2, 4), (4, 1), 0, 8, np.float32)
    ok.release()
    with pytest.raises(aclnn.AclError, match="reaches element 8 but the storage holds 8 elements"):
        aclnn.DeviceTensor.describe(session, storage.address, (2, 4), (4, 1), 1, 8, np.float32)
    with pytest.raises(aclnn.AclError, match="not inside one device allocation"):
        aclnn.DeviceTensor.describe(session, storage.address, (2,), (1,), 0, 64, np.float32)
    with pytest.raises(aclnn.AclError, match="must not be negative"):
        aclnn.DeviceTensor.describe(session, storage.address, (2,), (-1,), 1, 8, np.float32)
    assert session.lib.aclDestroyTensor(None) == 161001
    assert session.lib.aclDestroyTensor(12345) == 161002


def test_backend_selection(monkeypatch):
    assert aclnn.load_backend("twin").name == "twin"
    assert set(aclnn.load_backend("twin").libraries) == {"runtime", "tensors", "op"}
    with pytest.raises(ValueError, match="auto, twin, ascend, ascend-builtin"):
        aclnn.load_backend("gpu")
    monkeypatch.setenv("ASCEND_HOME_PATH", "/nonexistent")
    if not backends._loaded_kind and not any(  # a CANN this process loaded stays loaded
        p.exists()
        for p in map(
            __import__("pathlib").Path,
            ["/usr/local/Ascend/cann", "/usr/local/Ascend/ascend-toolkit/latest"],
        )
    ):
        with pytest.raises(OSError, match="CANN not found"):
            aclnn.load_backend("ascend")
        assert aclnn.load_backend("auto").name == "twin"


def test_the_twin_backend_is_built_from_a_kernel_folder():
    # kernel/ by default; the same sources give the same library, bound once.
    assert aclnn.twin_backend() is aclnn.load_backend("twin")
    assert aclnn.twin_backend(source.OPERATOR_DIR) is aclnn.twin_backend()


def test_an_earlier_aclinit_leaves_no_message_behind():
    # Someone else initialized ACL first (as notebook 08's raw calls do): the session accepts
    # the repeat, and its message must not end up in the next error report.
    backend = aclnn.load_backend("twin")
    backend.aclInit(None)
    session_module._INITIALIZED.discard(backend.libraries["runtime"])
    with aclnn.Session(backend) as session:
        assert not session.lib.aclGetRecentErrMsg()


def test_sessions_share_acl_and_the_device():
    with aclnn.Session("twin") as first:
        kept = first.tensor(floats(10))
        with aclnn.Session("twin") as second:
            assert aclnn.mish_backward(floats(4), floats(4), session=second).shape == (4,)
        # Closing the second session released its hold on the device, not the first's memory.
        np.testing.assert_array_equal(kept.to_numpy(), floats(10))


def test_a_view_over_another_tensor_does_not_free_its_memory(twin_session):
    session = twin_session
    owner = session.tensor(floats(8))
    view = aclnn.DeviceTensor.describe(session, owner.address, (4,), (2,), 0, 8, np.float32)
    view.release()
    np.testing.assert_array_equal(owner.to_numpy(), floats(8))


# ---------------------------------------------------------------------------------------
# Inputs every entry point treats alike, and a long-lived session that does not grow
# ---------------------------------------------------------------------------------------

ORDERS = [("<", "<"), (">", ">"), (">", "<"), ("<", ">")]


@pytest.mark.parametrize(("grad_order", "x_order"), ORDERS)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_any_byte_order_gives_the_same_values_everywhere(session, grad_order, x_order, dtype):
    x = np.linspace(-4, 4, 33).astype(dtype)
    grad = np.full_like(x, 0.75)
    swapped = (
        grad.astype(grad.dtype.newbyteorder(grad_order)),
        x.astype(x.dtype.newbyteorder(x_order)),
    )
    expected = aclnn.mish_backward(grad, x, session=session)
    assert np.array_equal(aclnn.mish_backward(*swapped, session=session), expected)
    assert np.array_equal(twin.run_kernel(*swapped).out, twin.run_kernel(grad, x).out)
    assert np.array_equal(numerics.mish_backward(*swapped), numerics.mish_backward(grad, x))


def test_python_lists_and_numbers_are_float32(session):
    out = aclnn.mish_backward([1.0, 2.0, 0.5], [-1.0, 0.0, 3.0], session=session)
    expected = aclnn.mish_backward(
        np.array([1.0, 2.0, 0.5], np.float32), np.array([-1.0, 0.0, 3.0], np.float32)
    )
    assert out.dtype == np.float32 and np.array_equal(out, expected)
    assert aclnn.mish_backward(1.0, [0.0, 1.0], session=session).dtype == np.float32


def test_a_long_lived_session_releases_each_calls_tensors(session):
    x = np.linspace(-3, 3, 100, dtype=np.float32)
    kept = session.tensor(x)  # the user's own tensor stays until close
    for _ in range(20):
        aclnn.mish_backward(np.ones_like(x), x, session=session)
    assert len(session._tensors) == 1 and np.array_equal(kept.to_numpy(), x)


def test_notebook_00s_launch_and_stamp_agree_with_its_aclnn_call(twin_session):
    """The direct launch notebook 00 traces is the aclnn call, and the stamp holds its plan."""
    x = np.linspace(-8, 8, 2**16 + 1, dtype=np.float32)
    grad = np.ones_like(x)
    out = aclnn.mish_backward(grad, x, session=twin_session)
    run = twin.run_kernel(grad, x, trace=True)
    assert np.array_equal(run.out.view(np.uint32), out.view(np.uint32))  # bit for bit
    report = aclnn.which_kernel(twin_session, x.size)
    assert report.ours
    stamp = report.stamp
    written = (stamp.block_dim, stamp.tile_length, stamp.length_low32, stamp.element_bytes)
    assert written == (run.plan.blockDim, run.plan.tileLength, x.size, x.itemsize)


# Notebook 09 shows the shapes, dtypes and addresses of its calls; their accuracy is held here.


def test_notebook_09s_broadcast_call_matches_the_oracle(session):
    grad = np.linspace(-3, 3, 6).reshape(2, 1, 3).astype(np.float32)
    x = np.linspace(-6, 6, 4).reshape(4, 1).astype(np.float32)
    out = aclnn.mish_backward(grad, x, session=session)
    assert out.shape == (2, 4, 3) and out.dtype == np.float32
    assert_close(out, oracle.mish_backward_oracle(grad, x))


def test_result_dtype_keeps_equal_dtypes_and_promotes_any_other_pair_to_float32():
    from mishgrad.math.dtypes import DTYPES

    names = ["float32", "float16", "bfloat16"]
    promoted = {(a, b): aclnn.result_dtype(DTYPES[a], DTYPES[b]).name for a in names for b in names}
    assert promoted == {(a, b): a if a == b else "float32" for a in names for b in names}


@pytest.mark.parametrize(
    ("grad_dtype", "x_dtype", "out_dtype"),
    [("float16", "bfloat16", "float32"), ("float32", "float16", "float32"),
     ("float16", "bfloat16", "float16")],
)  # fmt: skip
def test_notebook_09s_mixed_dtype_calls_match_the_oracle(session, grad_dtype, x_dtype, out_dtype):
    from mishgrad.math.dtypes import DTYPES

    grad = np.linspace(-2, 2, 64).astype(DTYPES[grad_dtype])
    x = np.linspace(-8, 8, 64).astype(DTYPES[x_dtype])
    out_dtype = DTYPES[out_dtype]
    tensors = [session.tensor(grad), session.tensor(x), session.tensor(np.zeros(64, out_dtype))]
    aclnn.run(session, aclnn.get_workspace_size(session, *tensors))
    out = tensors[2].to_numpy()
    assert out.dtype == out_dtype
    expected = oracle.mish_backward_oracle(
        grad.astype(np.float32), x.astype(np.float32), dtype=out_dtype
    )
    assert_close(out, expected)


def test_notebook_09s_strided_gradinput_writes_its_view_and_nothing_else(session):
    x = np.linspace(-7, 5, 24).reshape(4, 6).astype(np.float32).T  # transposed
    grad = np.linspace(-2, 3, 48).reshape(6, 8).astype(np.float32)[:, ::2]  # every other column
    sentinel = 1234.5
    buffer = session.tensor(np.full(48, sentinel, np.float32))
    out = aclnn.DeviceTensor.describe(session, buffer.address, (6, 4), (8, 2), 1, 48, np.float32)
    aclnn.run(
        session, aclnn.get_workspace_size(session, session.tensor(grad), session.tensor(x), out)
    )
    out.release()
    whole = buffer.to_numpy()
    at = 1 + np.add.outer(8 * np.arange(6), 2 * np.arange(4))
    assert_close(whole[at], oracle.mish_backward_oracle(grad, x))
    outside = np.ones(48, bool)
    outside[at.ravel()] = False
    assert np.all(whole[outside] == sentinel)


def test_notebook_09s_in_place_call_changes_every_element_to_the_gradient(session):
    grad = np.linspace(-1, 1, 1000).astype(np.float32)
    x = np.linspace(-10, 10, 1000).astype(np.float32)
    x_device = session.tensor(x)
    aclnn.run(session, aclnn.get_workspace_size(session, session.tensor(grad), x_device, x_device))
    result = x_device.to_numpy()
    assert np.all(result != x)
    assert_close(result, oracle.mish_backward_oracle(grad, x))


def test_notebook_08s_step_6_is_the_float64_formula_within_the_float32_target(session):
    """Notebook 08, step 6: ops-nn's example against notebook 01's formula in float64."""
    grad = np.arange(8, dtype=np.float32).reshape(4, 2)
    x = np.array([1, 1, 1, 2, 2, 2, 3, 3], dtype=np.float32).reshape(4, 2)
    out = aclnn.mish_backward(grad, x, session=session)
    x64, g64 = x.astype(np.float64), grad.astype(np.float64)
    s = np.log1p(np.exp(x64))  # softplus
    by_hand = g64 * (np.tanh(s) + x64 / np.cosh(s) ** 2 / (1 + np.exp(-x64)))
    relative = np.abs(out - by_hand) / np.maximum(np.abs(by_hand), np.finfo(np.float32).tiny)
    assert relative.max() <= TABLE["float32"].max_rel_error


def test_notebook_08s_workspace_predictions_are_the_twins_phase_1(twin_session):
    """Notebook 08, section 3: the stamp plus one aligned buffer per gathered input or result."""
    session = twin_session
    twin_aclnn = (source.TWIN_DIR / "src" / "aclnn.cpp").read_text()
    align = int(re.search(r"kWorkspaceAlign = (\d+)", twin_aclnn).group(1))
    stamp = provenance.STAMP_WORDS * 4
    f32, f16, bf16 = (DTYPES[name] for name in ("float32", "float16", "bfloat16"))
    grad, x = np.zeros((4, 2), f32), np.zeros((4, 2), f32)
    cases = [  # gradOutput, self, gradInput's dtype, gradInput strided, buffers
        (grad, x, f32, False, 0),
        (np.zeros((4, 2), f16), x, f32, False, 1),
        (np.zeros((4, 2), f16), np.zeros((4, 2), bf16), f32, False, 2),
        (np.zeros((2, 1, 3), f32), np.zeros((4, 1), f32), f32, False, 2),
        (grad, np.zeros((2, 4), f32).T, f32, False, 1),
        (grad, x, f16, False, 1),
        (grad, x, f32, True, 1),
        (np.zeros((2, 1, 3), f16), np.zeros((4, 1), bf16), f16, True, 3),
    ]
    for g, a, out_dtype, strided, buffers in cases:
        shape = np.broadcast_shapes(g.shape, a.shape)
        compute = g.dtype if g.dtype == a.dtype else f32
        each = -(-int(np.prod(shape)) * compute.itemsize // align) * align
        wide = np.zeros((*shape[:-1], 2 * shape[-1]), out_dtype)
        out = wide[..., ::2] if strided else np.zeros(shape, out_dtype)
        tensors = [session.tensor(t) for t in (g, a, out)]
        phase1 = aclnn.get_workspace_size(session, *tensors)
        assert phase1.workspace_size == stamp + buffers * each, (g.shape, a.shape, out_dtype)


def test_notebook_08s_twin_only_misuses_get_the_statuses_the_twin_chose(twin_session):
    """Notebook 08, section 4: a short, shifted, reused or input-freed phase 2, on the twin."""
    session, lib = twin_session, twin_session.lib

    def planned(free_input=False):
        tensors = [session.tensor(np.zeros(8, d)) for d in (np.float16, np.float32, np.float32)]
        phase1 = aclnn.get_workspace_size(session, *tensors)
        if free_input:
            session.free(tensors[0].address)
            tensors[0].address = None
        return phase1, session.malloc(phase1.workspace_size + 1)

    phase1, workspace = planned()
    size, executor = phase1.workspace_size, phase1.executor
    assert lib.aclnnMishBackward(workspace, size - 1, executor, session.stream) == 161002
    assert lib.aclnnMishBackward(workspace + 1, size, executor, session.stream) == 161002
    assert lib.aclnnMishBackward(workspace, size, executor, session.stream) == 0
    assert lib.aclrtSynchronizeStream(session.stream) == 0
    assert lib.aclnnMishBackward(workspace, size, executor, session.stream) == 161002
    phase1, workspace = planned(free_input=True)
    queued = lib.aclnnMishBackward(
        workspace, phase1.workspace_size, phase1.executor, session.stream
    )
    assert queued == 0 and lib.aclrtSynchronizeStream(session.stream) == 507015
    assert aclnn.STATUS_NAMES[507015] == "ACL_ERROR_RT_AICORE_EXCEPTION"


def test_every_declared_function_is_bound():
    """Notebook 08's Reference: each function of the ABI is bound on the selected backend."""
    lib = aclnn.load_backend()
    assert all(name in lib.functions for name in aclnn.SIGNATURES)
