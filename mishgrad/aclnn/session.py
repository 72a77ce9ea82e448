"""A session (ACL initialized, a device set, a stream) and the device tensors it owns."""

import atexit
import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from mishgrad.kernel.platforms import Platform, platform
from mishgrad.math.dtypes import as_input, native_dtype

from .backends import load_backend
from .binding import (
    ACL_DTYPE,
    ACL_FORMAT_ND,
    INT32_RANGE,
    INT64_RANGE,
    MALLOC_HUGE_FIRST,
    MEMCPY_DEVICE_TO_HOST,
    MEMCPY_HOST_TO_DEVICE,
    SIZE_RANGE,
    Backend,
    checked_ints,
    int64_array,
)
from .status import AclError

_INITIALIZED: set[str] = set()


def _initialize(session: "Session") -> None:
    """``aclInit`` once per process and runtime library, ``aclFinalize`` at exit.

    ACL is initialized once per process (a second ``aclInit`` is an error, and CANN does
    not promise that a finalized process can initialize again), so sessions share it. The
    key is the runtime library's path, not the backend's name: after a kernel edit the twin
    is rebuilt to a new path, and that library has runtime state of its own to initialize.
    A library in a worker process is initialized by every session (the worker may be a fresh
    one) and never finalized: it ends with the worker.
    """
    lib = session.lib
    runtime = lib.libraries["runtime"]
    if runtime in _INITIALIZED and not lib.in_worker:
        return
    status = lib.aclInit(None)
    if status == 100002:  # something else in this process initialized ACL already: fine
        lib.aclGetRecentErrMsg()  # read its message, so no later error report carries it
    else:
        session.check(status, "aclInit")
        if not lib.in_worker:
            atexit.register(lib.aclFinalize)
    if not lib.in_worker:
        _INITIALIZED.add(runtime)


class Session:
    """ACL initialized, a device set and a stream created; released on :meth:`close`.

    Use as a context manager. Device tensors created through the session are freed with it.
    After :meth:`close` every call through the session, its tensors and its phase-1 results
    raises (:meth:`require_open`); closing and releasing again do nothing.

    Parameters
    ----------
    backend
        A :class:`Backend`, or a name for :func:`load_backend` (default: ``$MISHGRAD_BACKEND``).
        A worker's (a learner's copy) is bound afresh to the worker that runs now.
    on
        On the twin: the platform whose UB and cores the kernel launches plan for.
    """

    def __init__(
        self, backend: Backend | str | None = None, device: int = 0, on: str | Platform = "910B2"
    ) -> None:
        (self.device,) = checked_ints("device", [device], INT32_RANGE)
        self.lib = (
            backend if isinstance(backend, Backend) else load_backend(backend)
        ).for_session()
        self._tensors: list[DeviceTensor] = []
        #: The executors of phase 1 that never ran (:class:`~mishgrad.aclnn.call.Phase1`).
        self.pending: set[Any] = set()
        _initialize(self)
        self.check(self.lib.aclrtSetDevice(device), "aclrtSetDevice")
        stream = ctypes.c_void_p()
        self.check(self.lib.aclrtCreateStream(ctypes.byref(stream)), "aclrtCreateStream")
        self.stream = stream
        if self.lib.name == "twin":
            chip = platform(on)
            self.lib.mishgrad_twin_set_platform(
                chip.ub_bytes, chip.ub_reported, chip.select_scratch_begin, chip.vector_cores, 0
            )

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` ran: the stream, the tensors and the device are released."""
        return self.stream is None

    def require_open(self, owned: str | None = None) -> None:
        """Raise if the session is closed; ``owned`` names a tensor or result of it being used.

        ACL keeps the device set while any session holds it, so the library would serve a
        closed session's calls as long as another one is open: the check has to be here.

        Raises
        ------
        RuntimeError
            Saying what is closed and what to do.
        """
        if self.closed:
            subject = f"{owned} belongs to a closed Session" if owned else "this Session is closed"
            raise RuntimeError(
                f"{subject} (close() ran, or its with block ended) and its device memory is "
                "freed: open a new aclnn.Session and create the tensors and phase-1 results "
                "again through it"
            )

    def check(self, status: int, api: str) -> None:
        """Raise :class:`AclError` for a failed status."""
        if status != 0:
            message = (self.lib.aclGetRecentErrMsg() or b"").decode(errors="replace")
            raise AclError(status, api, message)

    def malloc(self, nbytes: int) -> int:
        """Device memory of ``nbytes`` (``aclrtMalloc``, huge pages first); returns the address."""
        self.require_open()
        address = ctypes.c_void_p()
        (nbytes,) = checked_ints("nbytes", [nbytes], SIZE_RANGE)
        self.check(
            self.lib.aclrtMalloc(ctypes.byref(address), nbytes, MALLOC_HUGE_FIRST), "aclrtMalloc"
        )
        return address.value

    def free(self, address: int) -> None:
        """Free device memory from :meth:`malloc`."""
        self.require_open()
        self.check(self.lib.aclrtFree(address), "aclrtFree")

    def upload(self, address: int, data: npt.ArrayLike) -> None:
        """Copy ``data``'s values to device memory at ``address``, in the machine's byte order.

        ``data`` goes through :func:`mishgrad.math.dtypes.as_input` (any byte order; lists
        become float32) and is made contiguous, so the device receives its values.
        """
        self.require_open()
        data = np.ascontiguousarray(as_input(data))
        self._copy(address, data.ctypes.data, data.nbytes, MEMCPY_HOST_TO_DEVICE)

    def download(self, address: int, out: np.ndarray) -> None:
        """Fill ``out`` from device memory at ``address``, which holds values in native order.

        An ``out`` of another byte order or layout is filled through a native contiguous copy
        (:func:`mishgrad.math.dtypes.as_input`), so it receives the values, not the bytes.
        """
        self.require_open()
        native = np.ascontiguousarray(as_input(out))  # ``out`` itself if native and contiguous
        self._copy(native.ctypes.data, address, native.nbytes, MEMCPY_DEVICE_TO_HOST)
        if native is not out:
            out[...] = native

    def _copy(self, dst: int, src: int, nbytes: int, kind: int) -> None:
        if nbytes:
            self.check(self.lib.aclrtMemcpy(dst, nbytes, src, nbytes, kind), "aclrtMemcpy")

    def synchronize(self) -> None:
        """Wait for the stream; errors of the work it ran surface here."""
        self.require_open()
        self.check(self.lib.aclrtSynchronizeStream(self.stream), "aclrtSynchronizeStream")

    def tensor(self, array: npt.ArrayLike) -> "DeviceTensor":
        """A device copy of ``array``, its view kept (:meth:`DeviceTensor.from_numpy`)."""
        tensor = DeviceTensor.from_numpy(self, array)
        self._tensors.append(tensor)
        return tensor

    def release(self, *tensors: "DeviceTensor") -> None:
        """Free ``tensors`` now rather than at :meth:`close` (a long-lived session's calls).

        Releasing is idempotent, so it does nothing after :meth:`close`, which released them.
        """
        for tensor in tensors:
            tensor.release()
        released = {id(tensor) for tensor in tensors}
        self._tensors = [t for t in self._tensors if id(t) not in released]

    def empty(self, shape: Sequence[int], dtype: npt.DTypeLike) -> "DeviceTensor":
        """An uninitialized contiguous device tensor."""
        return self.tensor(np.zeros(shape, dtype=dtype))

    def close(self) -> None:
        """Free its unrun executors and its tensors, destroy its stream, release the device.

        ACL itself stays initialized until the process exits (see :func:`_initialize`).
        """
        for phase1 in list(self.pending):  # the session ends whatever the library answers
            phase1.close(check=False)
        if self.stream is not None and self.lib.ended is None:  # tasks end before their memory
            self.lib.aclrtSynchronizeStream(self.stream)
        for tensor in self._tensors:
            tensor.release()
        self._tensors.clear()
        if self.stream is not None:
            self.lib.aclrtDestroyStream(self.stream)
            self.stream = None
            self.lib.aclrtResetDevice(self.device)
        if self.lib.ended is None:  # what the cleanup was refused is not the next call's error
            self.lib.aclGetRecentErrMsg()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@dataclass
class DeviceTensor:
    """An ``aclTensor`` over device memory holding a copy of a NumPy array's storage."""

    session: Session
    handle: int  # the aclTensor*
    address: int | None  # the device storage (aclrtMalloc)
    shape: tuple[int, ...]  # the view: shape, strides and offset, in elements
    strides: tuple[int, ...]
    offset: int
    storage_size: int  # in elements
    dtype: np.dtype
    owns_memory: bool = False

    @classmethod
    def from_numpy(cls, session: Session, array: npt.ArrayLike) -> "DeviceTensor":
        """Copy the memory a view spans to the device and describe the view with aclCreateTensor.

        ``array`` goes through :func:`mishgrad.math.dtypes.as_input` (any byte order; lists
        become float32). Negative strides are not part of the aclnn tensor model; such arrays
        are copied first.
        """
        array = as_input(array)
        if any(s < 0 for s in array.strides) or any(s % array.itemsize for s in array.strides):
            array = array.copy()  # fresh strides: ascontiguousarray keeps a size-1 axis's
        itemsize = array.itemsize
        strides = tuple(s // itemsize for s in array.strides)
        reach = sum((n - 1) * s for n, s in zip(array.shape, strides, strict=True))
        span = 1 + reach if array.size else 0
        storage = np.ascontiguousarray(np.lib.stride_tricks.as_strided(array, (span,), (itemsize,)))
        address = session.malloc(max(storage.nbytes, 1))
        session.upload(address, storage)
        tensor = cls.describe(session, address, array.shape, strides, 0, span, array.dtype)
        tensor.owns_memory = True
        return tensor

    @classmethod
    def describe(
        cls,
        session: Session,
        address: int | None,
        shape: Sequence[int],
        strides: Sequence[int],
        offset: int,
        storage_size: int,
        dtype: npt.DTypeLike,
    ) -> "DeviceTensor":
        """``aclCreateTensor`` over existing device memory (any view: shape, strides, offset).

        The tensor does not own that memory: :meth:`release` frees only the ``aclTensor``.
        Device memory holds values in the machine's byte order, so ``dtype`` is taken in it
        (``'>f4'`` is float32: :func:`mishgrad.math.dtypes.native_dtype`).
        Numbers are passed as they are, so the library checks them (negative ones included);
        ones that do not fit ``int64_t`` are refused here, as ctypes would wrap them.

        Raises
        ------
        ValueError
            For strides of another length than shape, a number that does not fit ``int64_t``
            or a dtype that has no ``aclDataType``.
        AclError
            If the library refuses the view (status ``ACLNN_ERR_PARAM_INVALID``).
        RuntimeError
            If ``session`` is closed.
        """
        session.require_open()
        dtype = native_dtype(dtype)
        if len(strides) != len(shape):
            raise ValueError(f"strides has {len(strides)} entries but shape has {len(shape)}")
        if dtype.name not in ACL_DTYPE:
            raise ValueError(f"dtype {dtype.name} has no aclDataType")
        handle = session.lib.aclCreateTensor(
            int64_array("shape", shape),
            len(shape),
            ACL_DTYPE[dtype.name],
            int64_array("strides", strides),
            checked_ints("offset", [offset], INT64_RANGE)[0],
            ACL_FORMAT_ND,
            int64_array("storage_size", [storage_size]),
            1,
            address,
        )
        if not handle:
            session.check(161002, "aclCreateTensor")  # ACLNN_ERR_PARAM_INVALID
        return cls(
            session, handle, address, tuple(shape), tuple(strides), offset, storage_size, dtype
        )

    def to_numpy(self) -> np.ndarray:
        """Copy the storage back and return the view as a new array."""
        self.session.require_open("this tensor")
        storage = np.empty(self.storage_size, dtype=self.dtype)
        self.session.download(self.address, storage)
        item = self.dtype.itemsize
        view = np.lib.stride_tricks.as_strided(
            storage[self.offset :], self.shape, tuple(s * item for s in self.strides)
        )
        return view.copy()

    def release(self) -> None:
        """``aclDestroyTensor``, and free the storage if the tensor owns it (idempotent).

        Raises
        ------
        AclError
            If ``aclrtFree`` refuses the storage, e.g. while a launch not yet synchronized
            uses it (the tensor keeps it then: release it again after synchronizing).
        """
        if self.handle:
            self.session.lib.aclDestroyTensor(self.handle)
            self.handle = 0
        if self.address and self.owns_memory:
            self.session.check(self.session.lib.aclrtFree(self.address), "aclrtFree")
        self.address = None
