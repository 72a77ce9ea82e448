"""Random aclnnMishBackward calls for property-based fuzzing, and what each must return.

Shared by tests/test_acl_fuzz.py (a fast subset in `make test`) and bench/fuzz_aclnn.py
(the long run). A case is three tensor descriptions (or None for a null pointer): dtype,
view shape, strides, offset and storage size. :func:`expected_status` predicts the status
from the documented contract, written here independently of the C++ that implements it;
:func:`check_case` runs the case on the twin and checks status, result and untouched memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import error_checks
import numpy as np
from hypothesis import strategies as st

from mishgrad import aclnn
from mishgrad.math import dtypes, oracle

_NUMPY_NAMES = "float32 float16 float64 int8 int32 uint8 int16 uint16 uint32 int64 uint64 bool"
ALL_DTYPES = [np.dtype(name) for name in _NUMPY_NAMES.split()] + [dtypes.bfloat16]
SUPPORTED = {np.dtype(np.float32), np.dtype(np.float16), dtypes.bfloat16}
FLOATING = SUPPORTED | {np.dtype(np.float64)}


@dataclass(frozen=True)
class TensorCase:
    """One tensor: a view (shape, strides, offset in elements) over a storage of some size."""

    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    storage: int

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def fits(self) -> bool:
        """Does the view lie inside its storage (what aclCreateTensor requires)?"""
        if self.size == 0:
            return True
        last = self.offset + sum((n - 1) * s for n, s in zip(self.shape, self.strides, strict=True))
        return last < self.storage

    def overlaps_itself(self) -> bool:
        """Do two view elements share a storage element?"""
        if self.size == 0:
            return False
        positions = self.offset + sum(
            np.arange(n).reshape([-1 if i == d else 1 for i in range(len(self.shape))]) * s
            for d, (n, s) in enumerate(zip(self.shape, self.strides, strict=True))
        )
        positions = np.asarray(positions).ravel()
        return np.unique(positions).size != positions.size


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


@st.composite
def tensor_case(draw: st.DrawFn, shape: tuple[int, ...], dtype: np.dtype) -> TensorCase:
    strides = list(_contiguous_strides(shape))
    style = draw(st.sampled_from(["contiguous", "spaced", "permuted", "zero", "random"]))
    if style == "spaced":
        strides = [s * draw(st.integers(1, 3)) for s in strides]
    elif style == "permuted" and len(shape) > 1:
        order = draw(st.permutations(range(len(shape))))
        strides = list(_contiguous_strides(tuple(shape[i] for i in order)))
        strides = [strides[order.index(i)] for i in range(len(shape))]
    elif style == "zero" and shape:
        strides[draw(st.integers(0, len(shape) - 1))] = 0  # an overlapping (expanded) view
    elif style == "random":
        strides = [draw(st.integers(0, 12)) for _ in shape]
    offset = draw(st.integers(0, 3))
    span = offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if n > 0)
    storage = max(span + draw(st.integers(-2, 3)), 0)  # sometimes too small: out of storage
    return TensorCase(dtype, tuple(shape), tuple(strides), offset, storage)


@st.composite
def cases(draw: st.DrawFn) -> list[TensorCase | None]:
    base = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=9)))

    def related() -> tuple[int, ...]:
        kind = draw(st.sampled_from(["same", "broadcast", "unrelated"]))
        if kind == "same":
            return base
        if kind == "broadcast":
            cut = draw(st.integers(0, len(base)))
            return tuple(1 if draw(st.booleans()) else n for n in base[cut:])
        return tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=10)))

    grad_shape, x_shape = related(), related()
    try:
        out_shape = np.broadcast_shapes(grad_shape, x_shape)
    except ValueError:
        out_shape = base
    if draw(st.integers(0, 9)) == 0:
        out_shape = related()

    def dtype() -> np.dtype:
        return draw(
            st.sampled_from(
                ALL_DTYPES if draw(st.integers(0, 4)) == 0 else sorted(SUPPORTED, key=str)
            )
        )

    tensors = [draw(tensor_case(shape, dtype())) for shape in (grad_shape, x_shape, out_shape)]
    return [None if draw(st.integers(0, 19)) == 0 else t for t in tensors]


def expected_status(tensors: list[TensorCase | None]) -> int:
    """The documented status of phase 1 for tensors that were created."""
    grad, x, out = tensors
    if grad is None or x is None or out is None:
        return 161001
    if grad.dtype not in SUPPORTED or x.dtype not in SUPPORTED:
        return 161002
    if out.dtype not in FLOATING or out.dtype not in SUPPORTED:
        return 161002
    if max(len(t.shape) for t in tensors) > 8:
        return 161002
    try:
        shape = np.broadcast_shapes(grad.shape, x.shape)
    except ValueError:
        return 161002
    if shape != out.shape or out.overlaps_itself():
        return 161002
    return 0


def _host_values(case: TensorCase, storage: np.ndarray) -> np.ndarray:
    view = np.lib.stride_tricks.as_strided(
        storage[case.offset :], case.shape, tuple(s * case.dtype.itemsize for s in case.strides)
    )
    return view.copy()


def _random_storage(rng: np.random.Generator, case: TensorCase) -> np.ndarray:
    values = rng.uniform(-12, 12, case.storage)
    return values.astype(case.dtype) if case.dtype != np.bool_ else values > 0


def check_case(session: aclnn.Session, tensors: list[TensorCase | None], seed: int) -> str:
    """Run one case; return "created-invalid", "status" or "computed" (raises on a mismatch)."""
    rng = np.random.default_rng(seed)
    storages = [None if t is None else _random_storage(rng, t) for t in tensors]
    handles: list[aclnn.DeviceTensor | None] = []
    try:
        for case, storage in zip(tensors, storages, strict=True):
            if case is None:
                handles.append(None)
                continue
            address = session.malloc(max(storage.nbytes, 1))
            if storage.nbytes:
                session.check(
                    session.lib.aclrtMemcpy(
                        address, storage.nbytes, storage.ctypes.data, storage.nbytes, 1
                    ),
                    "aclrtMemcpy",
                )
            try:
                handles.append(
                    aclnn.DeviceTensor.describe(
                        session,
                        address,
                        case.shape,
                        case.strides,
                        case.offset,
                        case.storage,
                        case.dtype,
                    )
                )
            except aclnn.AclError:
                session.free(address)
                assert not case.fits(), f"aclCreateTensor refused a view that fits: {case}"
                return "created-invalid"
            assert case.fits(), f"aclCreateTensor accepted a view outside its storage: {case}"
        phase1 = aclnn.get_workspace_size(session, *handles, check=False)
        expected = expected_status(tensors)
        assert phase1.status == expected, (
            phase1.status,
            expected,
            tensors,
            session.lib.aclGetRecentErrMsg(),
        )
        if expected != 0:
            return "status"
        assert aclnn.run(session, phase1, check=False) == 0, session.lib.aclGetRecentErrMsg()
        _check_result(tensors, storages, handles[2])
        return "computed"
    finally:
        for handle in handles:
            if handle is not None:
                handle.release()


def _check_result(
    tensors: list[TensorCase], storages: list[np.ndarray], out: aclnn.DeviceTensor
) -> None:
    grad_case, x_case, out_case = tensors
    grad = _host_values(grad_case, storages[0])
    x = _host_values(x_case, storages[1])
    compute = aclnn.result_dtype(grad.dtype, x.dtype)
    expected = oracle.mish_backward_oracle(grad.astype(compute), x.astype(compute)).astype(
        out_case.dtype
    )
    after = np.empty(out_case.storage, dtype=out_case.dtype)
    if after.nbytes:
        out.session.check(
            out.session.lib.aclrtMemcpy(
                after.ctypes.data, after.nbytes, out.address, after.nbytes, 2
            ),
            "aclrtMemcpy",
        )
    got = _host_values(out_case, after)
    assert np.all(error_checks.operator_close(got, expected)), (got, expected)
    touched = np.zeros(out_case.storage, bool)
    if out_case.size:
        marks = np.lib.stride_tricks.as_strided(
            touched[out_case.offset :], out_case.shape, tuple(s for s in out_case.strides)
        )
        marks[...] = True
    before = storages[2]
    assert np.array_equal(after[~touched].view(np.uint8), before[~touched].view(np.uint8)), (
        "wrote outside the view"
    )
