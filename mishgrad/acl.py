"""The aclnn two-phase call from Python: a ctypes binding of CANN's C ABI and a thin layer on top.

One code path for both backends. The binding declares each C function once, with CANN's
signature; :func:`load_backend` decides only *which libraries* provide them:

``twin``
    The CPU twin library (``kernel/twin``), which exports the same symbols with the same
    signatures; device memory is host memory.
``ascend``
    CANN's ``libascendcl.so`` (runtime) and ``libnnopbase.so`` (tensors), and for
    ``aclnnMishBackward`` this repository's operator: the custom package's
    ``libcust_opapi.so`` (``opp/vendors/mishgrad_nn``). Without the package it stops with an
    error that says how to build and install it; it never falls back to CANN's operator.
``ascend-builtin``
    The same runtime, with CANN's built-in ``aclnnMishBackward`` (``libopapi_nn.so``; older
    CANN: ``libopapi.so``): an explicit choice, to compare with.
``auto`` (default)
    ``ascend`` when CANN is installed, else ``twin``.

Choose with ``MISHGRAD_BACKEND=auto|twin|ascend|ascend-builtin``. :attr:`Backend.libraries`
says what was loaded, :attr:`Backend.served_by` which file's ``aclnnMishBackward`` is bound.
Status codes become :class:`AclError` (code, name and the library's message); every
call is also available raw, returning its status, through :attr:`Session.lib`.
"""

from __future__ import annotations

import atexit
import ctypes
import operator
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from . import opsnn, twin
from .dtypes import DTYPES
from .platforms import Platform, platform

#: Status codes (CANN's acl_base_rt.h and error_codes/rt_error_codes.h; the aclnn return codes page,
#: https://www.hiascend.com/document/detail/en/canncommercial/850/API/aolapi/atlasascendc_api_07_1205.html).
STATUS_NAMES: Final[dict[int, str]] = {
    0: "SUCCESS",
    100000: "ACL_ERROR_INVALID_PARAM",
    100001: "ACL_ERROR_UNINITIALIZE",
    100002: "ACL_ERROR_REPEAT_INITIALIZE",
    100003: "ACL_ERROR_INVALID_FILE",
    100037: "ACL_ERROR_REPEAT_FINALIZE",
    107000: "ACL_ERROR_RT_PARAM_INVALID",
    107001: "ACL_ERROR_RT_INVALID_DEVICEID",
    107002: "ACL_ERROR_RT_CONTEXT_NULL",
    161001: "ACLNN_ERR_PARAM_NULLPTR",
    161002: "ACLNN_ERR_PARAM_INVALID",
    207001: "ACL_ERROR_RT_MEMORY_ALLOCATION",
    361001: "ACLNN_ERR_RUNTIME_ERROR",
    507015: "ACL_ERROR_RT_AICORE_EXCEPTION",
    561000: "ACLNN_ERR_INNER",
    561001: "ACLNN_ERR_INNER_INFERSHAPE_ERROR",
    561002: "ACLNN_ERR_INNER_TILING_ERROR",
    561101: "ACLNN_ERR_INNER_CREATE_EXECUTOR",
    561103: "ACLNN_ERR_INNER_NULLPTR",
}

#: aclDataType values (CANN's acl_base.h), by NumPy dtype name.
ACL_DTYPE: Final[dict[str, int]] = {
    "float32": 0,
    "float16": 1,
    "int8": 2,
    "int32": 3,
    "uint8": 4,
    "int16": 6,
    "uint16": 7,
    "uint32": 8,
    "int64": 9,
    "uint64": 10,
    "float64": 11,
    "bool": 12,
    "bfloat16": 27,
}
ACL_FORMAT_ND: Final = 2
MEMCPY_HOST_TO_DEVICE: Final = 1
MEMCPY_DEVICE_TO_HOST: Final = 2
MALLOC_HUGE_FIRST: Final = 0


class AclError(RuntimeError):
    """A status other than success from an ACL or aclnn call.

    Attributes
    ----------
    code
        The status code.
    name
        Its name (``ACLNN_ERR_PARAM_INVALID``, ...).
    api
        The function that returned it.
    message
        The library's explanation: what ``aclGetRecentErrMsg`` returned, the calling thread's
        messages since it last read them, the latest first (reading clears them).

    """

    def __init__(self, code: int, api: str, message: str) -> None:
        self.code, self.api, self.message = code, api, message
        self.name = STATUS_NAMES.get(code, "UNKNOWN")
        super().__init__(f"{api} returned {code} ({self.name}): {message}")


c = ctypes
_P = c.c_void_p
#: Every function of the ABI: (library role, result type, argument types), with CANN's signatures.
SIGNATURES: Final[dict[str, tuple[str, type | None, list[type]]]] = {
    "aclInit": ("runtime", c.c_int, [c.c_char_p]),
    "aclFinalize": ("runtime", c.c_int, []),
    "aclrtSetDevice": ("runtime", c.c_int, [c.c_int32]),
    "aclrtResetDevice": ("runtime", c.c_int, [c.c_int32]),
    "aclrtCreateStream": ("runtime", c.c_int, [c.POINTER(_P)]),
    "aclrtDestroyStream": ("runtime", c.c_int, [_P]),
    "aclrtSynchronizeStream": ("runtime", c.c_int, [_P]),
    "aclrtMalloc": ("runtime", c.c_int, [c.POINTER(_P), c.c_size_t, c.c_int]),
    "aclrtFree": ("runtime", c.c_int, [_P]),
    "aclrtMemcpy": ("runtime", c.c_int, [_P, c.c_size_t, _P, c.c_size_t, c.c_int]),
    "aclGetRecentErrMsg": ("runtime", c.c_char_p, []),
    "aclCreateTensor": (
        "tensors",
        _P,
        [
            c.POINTER(c.c_int64),
            c.c_uint64,
            c.c_int,
            c.POINTER(c.c_int64),
            c.c_int64,
            c.c_int,
            c.POINTER(c.c_int64),
            c.c_uint64,
            _P,
        ],
    ),
    "aclDestroyTensor": ("tensors", c.c_int32, [_P]),
    "aclDestroyAclOpExecutor": ("tensors", c.c_int32, [_P]),
    "aclnnMishBackwardGetWorkspaceSize": (
        "op",
        c.c_int32,
        [_P, _P, _P, c.POINTER(c.c_uint64), c.POINTER(_P)],
    ),
    "aclnnMishBackward": ("op", c.c_int32, [_P, c.c_uint64, _P, _P]),
}


@dataclass
class Backend:
    """The loaded libraries and the bound functions."""

    name: str
    libraries: dict[str, str]  # role -> path
    functions: dict[str, ctypes._CFuncPtr] = field(repr=False)

    def __getattr__(self, name: str) -> ctypes._CFuncPtr:
        try:
            return self.functions[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def op_library(self) -> str:
        """The library that provides ``aclnnMishBackward``."""
        return self.libraries["op"]

    @property
    def served_by(self) -> str:
        """The file whose ``aclnnMishBackward`` the binding calls, as the dynamic linker says."""
        return library_of(self.functions["aclnnMishBackward"])


class _DlInfo(ctypes.Structure):
    _fields_ = [
        ("dli_fname", ctypes.c_char_p),
        ("dli_fbase", ctypes.c_void_p),
        ("dli_sname", ctypes.c_char_p),
        ("dli_saddr", ctypes.c_void_p),
    ]


def library_of(function: ctypes._CFuncPtr) -> str:
    """The shared library that holds ``function``'s code (``dladdr``)."""
    dladdr = ctypes.CDLL(None).dladdr
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    info = _DlInfo()
    if not dladdr(ctypes.cast(function, ctypes.c_void_p), ctypes.byref(info)):
        raise OSError("dladdr found no library for the function")
    return os.path.realpath(info.dli_fname.decode())


def _bind(name: str, libraries: dict[str, ctypes.CDLL], paths: dict[str, str]) -> Backend:
    functions = {}
    for symbol, (role, restype, argtypes) in SIGNATURES.items():
        function = getattr(libraries[role], symbol)
        function.restype, function.argtypes = restype, argtypes
        functions[symbol] = function
    return Backend(name, paths, functions)


def twin_backend(kernel_dir: Path | None = None) -> Backend:
    """The twin built from ``kernel_dir`` (default ``kernel/``; a learner's scratch copy).

    The library is rebuilt, at a new path, whenever a source changed, so an edit to the
    contract or the kernel is picked up by the next session.
    """
    spec = twin.kernel_spec() if kernel_dir is None else twin.kernel_spec(root=kernel_dir)
    return _twin_backend_at(str(twin.build(spec)))


@cache
def _twin_backend_at(path: str) -> Backend:
    library = ctypes.CDLL(path)
    roles = list(dict.fromkeys(role for role, _, _ in SIGNATURES.values()))  # in ABI order
    backend = _bind("twin", dict.fromkeys(roles, library), dict.fromkeys(roles, path))
    # Not part of CANN: the platform the twin's kernel launches plan for.
    set_platform = library.mishgrad_twin_set_platform
    set_platform.restype = None
    set_platform.argtypes = [c.c_uint64, c.c_uint64, c.c_uint64, c.c_uint32, c.c_uint32]
    backend.functions["mishgrad_twin_set_platform"] = set_platform
    return backend


def _cann_root() -> Path:
    for candidate in (
        os.environ.get("ASCEND_HOME_PATH"),
        "/usr/local/Ascend/cann",
        "/usr/local/Ascend/ascend-toolkit/latest",
    ):
        if candidate and (Path(candidate) / "lib64" / "libascendcl.so").exists():
            return Path(candidate)
    raise OSError(
        "CANN not found: source its set_env.sh (sets ASCEND_HOME_PATH) or install the toolkit"
    )


def custom_opapi(root: Path) -> Path:
    """The installed aclnn library of this repository's operator under CANN at ``root``.

    The package's installer puts it into ``$ASCEND_OPP_PATH/vendors/mishgrad_nn`` (CANN's
    ``opp``), or, with ``--install-path``, into a directory its ``set_env.bash`` adds to
    ``$ASCEND_CUSTOM_OPP_PATH``; the first that holds the library wins.

    Raises
    ------
    OSError
        Naming where the library was looked for and how to build and install it.

    """
    vendor_dirs = [Path(p) for p in os.environ.get("ASCEND_CUSTOM_OPP_PATH", "").split(":") if p]
    vendor_dirs = [p for p in vendor_dirs if p.name == opsnn.VENDOR_DIR]
    opp = Path(os.environ.get("ASCEND_OPP_PATH", root / "opp"))
    vendor_dirs.append(opp / "vendors" / opsnn.VENDOR_DIR)
    candidates = [p / "op_api" / "lib" / "libcust_opapi.so" for p in vendor_dirs]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    raise OSError(
        f"MISHGRAD_BACKEND=ascend runs this repository's operator, but its package is not "
        f"installed: no {' or '.join(map(str, candidates))}. Build and install it from an "
        f"ops-nn checkout (kernel/README.md): copy kernel/ to {opsnn.OPS_NN_OP_DIR}, then "
        f"`{opsnn.BUILD_COMMAND} && {opsnn.INSTALL_COMMAND}`. To run CANN's built-in "
        "operator instead, choose it explicitly: MISHGRAD_BACKEND=ascend-builtin"
    )


def builtin_opapi(root: Path) -> Path:
    """CANN's built-in aclnn library (``libopapi_nn.so``; older CANN: ``libopapi.so``).

    Raises
    ------
    OSError
        Naming where it was looked for.

    """
    candidates = [
        root / folder / name
        for name in ("libopapi_nn.so", "libopapi.so")
        for folder in ("lib64", "opp/lib64")
    ]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    raise OSError(
        f"MISHGRAD_BACKEND=ascend-builtin: CANN's operator library is not installed: no "
        f"{' or '.join(map(str, candidates))} (install CANN's ops package)"
    )


@cache
def _ascend_backend(builtin: bool) -> Backend:
    root = _cann_root()
    op_path = builtin_opapi(root) if builtin else custom_opapi(root)
    mode = ctypes.RTLD_GLOBAL  # the op libraries resolve runtime symbols from these
    paths = {
        "runtime": str(root / "lib64" / "libascendcl.so"),
        "tensors": str(root / "lib64" / "libnnopbase.so"),
        "op": str(op_path),
    }
    libraries = {role: ctypes.CDLL(path, mode=mode) for role, path in paths.items()}
    return _bind("ascend-builtin" if builtin else "ascend", libraries, paths)


#: Backend names for MISHGRAD_BACKEND.
BACKENDS: Final = ("auto", "twin", "ascend", "ascend-builtin")


def load_backend(kind: str | None = None) -> Backend:
    """Load the backend named by ``kind`` or ``$MISHGRAD_BACKEND`` (see the module docstring).

    Raises
    ------
    ValueError
        For an unknown backend name.
    OSError
        If ``ascend`` or ``ascend-builtin`` is asked for (or ``auto`` finds CANN) and CANN's
        libraries or the operator's library cannot be found.

    """
    kind = kind or os.environ.get("MISHGRAD_BACKEND", "auto")
    if kind not in BACKENDS:
        raise ValueError(f"MISHGRAD_BACKEND must be one of {', '.join(BACKENDS)}, not {kind!r}")
    if kind == "auto":
        try:
            _cann_root()
        except OSError:
            return twin_backend()
        kind = "ascend"
    if kind == "twin":
        return twin_backend()
    return _ascend_backend(kind == "ascend-builtin")


_INITIALIZED: set[str] = set()


def _initialize(session: Session) -> None:
    """``aclInit`` once per process and runtime library, ``aclFinalize`` at exit.

    ACL is initialized once per process (a second ``aclInit`` is an error, and CANN does
    not promise that a finalized process can initialize again), so sessions share it. The
    key is the runtime library's path, not the backend's name: after a kernel edit the twin
    is rebuilt to a new path, and that library has runtime state of its own to initialize.
    """
    lib = session.lib
    runtime = lib.libraries["runtime"]
    if runtime in _INITIALIZED:
        return
    status = lib.aclInit(None)
    if status == 100002:  # something else in this process initialized ACL already: fine
        lib.aclGetRecentErrMsg()  # read its message, so no later error report carries it
    else:
        session.check(status, "aclInit")
        atexit.register(lib.aclFinalize)
    _INITIALIZED.add(runtime)


class Session:
    """ACL initialized, a device set and a stream created; released on :meth:`close`.

    Use as a context manager. Device tensors created through the session are freed with it.

    Parameters
    ----------
    backend
        A :class:`Backend`, or a name for :func:`load_backend` (default: ``$MISHGRAD_BACKEND``).
    device
        The device id.
    on
        On the twin: the platform whose UB and cores the kernel launches plan for.

    """

    def __init__(
        self, backend: Backend | str | None = None, device: int = 0, on: str | Platform = "910B2"
    ) -> None:
        (self.device,) = checked_ints("device", [device], INT32_RANGE)
        self.lib = backend if isinstance(backend, Backend) else load_backend(backend)
        self._tensors: list[DeviceTensor] = []
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

    def check(self, status: int, api: str) -> None:
        """Raise :class:`AclError` for a failed status."""
        if status != 0:
            message = (self.lib.aclGetRecentErrMsg() or b"").decode(errors="replace")
            raise AclError(status, api, message)

    def malloc(self, nbytes: int) -> int:
        """Device memory of ``nbytes`` (``aclrtMalloc``, huge pages first); returns the address."""
        address = ctypes.c_void_p()
        (nbytes,) = checked_ints("nbytes", [nbytes], SIZE_RANGE)
        self.check(
            self.lib.aclrtMalloc(ctypes.byref(address), nbytes, MALLOC_HUGE_FIRST), "aclrtMalloc"
        )
        return address.value

    def free(self, address: int) -> None:
        """Free device memory from :meth:`malloc`."""
        self.check(self.lib.aclrtFree(address), "aclrtFree")

    def synchronize(self) -> None:
        """Wait for the stream; errors of the work it ran surface here."""
        self.check(self.lib.aclrtSynchronizeStream(self.stream), "aclrtSynchronizeStream")

    def tensor(self, array: npt.ArrayLike) -> DeviceTensor:
        """A device copy of ``array`` that keeps its view: shape, strides and offset."""
        tensor = DeviceTensor.from_numpy(self, np.asarray(array))
        self._tensors.append(tensor)
        return tensor

    def empty(self, shape: Sequence[int], dtype: npt.DTypeLike) -> DeviceTensor:
        """An uninitialized contiguous device tensor."""
        return self.tensor(np.zeros(shape, dtype=dtype))

    def close(self) -> None:
        """Free the session's tensors, destroy its stream, release its hold on the device.

        ACL itself stays initialized until the process exits (see :func:`_initialize`).
        """
        for tensor in self._tensors:
            tensor.release()
        self._tensors.clear()
        if self.stream is not None:
            self.lib.aclrtDestroyStream(self.stream)
            self.stream = None
            self.lib.aclrtResetDevice(self.device)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


INT64_RANGE: Final = (-(2**63), 2**63 - 1)
INT32_RANGE: Final = (-(2**31), 2**31 - 1)
SIZE_RANGE: Final = (0, 2**64 - 1)


def checked_ints(name: str, values: Sequence[int], bounds: tuple[int, int]) -> list[int]:
    """``values`` as Python ints, each within ``bounds`` (inclusive).

    ctypes converts an int that does not fit the C type by silently wrapping it, so every number
    the binding passes to C goes through here first.

    Raises
    ------
    ValueError
        Naming ``name``, for a value out of bounds.
    TypeError
        For a value that is not an integer.

    """
    checked = [operator.index(value) for value in values]
    low, high = bounds
    for value in checked:
        if not low <= value <= high:
            raise ValueError(f"{name}: {value} does not fit the C type (range [{low}, {high}])")
    return checked


def _int64_array(name: str, values: Sequence[int]) -> ctypes.Array:
    checked = checked_ints(name, values, INT64_RANGE)
    return (ctypes.c_int64 * max(len(checked), 1))(*checked)


@dataclass
class DeviceTensor:
    """An ``aclTensor`` over device memory holding a copy of a NumPy array's storage.

    Attributes
    ----------
    handle
        The ``aclTensor*``.
    address
        The device storage (``aclrtMalloc``).
    shape, strides, offset
        The view, in elements.
    storage_size
        Elements of the storage.
    dtype
        The NumPy dtype.

    """

    session: Session
    handle: int
    address: int | None
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    storage_size: int
    dtype: np.dtype
    owns_memory: bool = False

    @classmethod
    def from_numpy(cls, session: Session, array: np.ndarray) -> DeviceTensor:
        """Copy the memory a view spans to the device and describe the view with aclCreateTensor.

        Negative strides are not part of the aclnn tensor model; such arrays are copied first.
        """
        if any(s < 0 for s in array.strides) or any(s % array.itemsize for s in array.strides):
            array = np.ascontiguousarray(array)
        itemsize = array.itemsize
        strides = tuple(s // itemsize for s in array.strides)
        span = (
            1 + sum((n - 1) * s for n, s in zip(array.shape, strides, strict=True))
            if array.size
            else 0
        )
        storage = (
            np.lib.stride_tricks.as_strided(array, (span,), (itemsize,))
            if span
            else array.ravel()[:0]
        )
        storage = np.ascontiguousarray(storage)
        address = session.malloc(max(storage.nbytes, 1))
        if storage.nbytes:
            session.check(
                session.lib.aclrtMemcpy(
                    address,
                    storage.nbytes,
                    storage.ctypes.data,
                    storage.nbytes,
                    MEMCPY_HOST_TO_DEVICE,
                ),
                "aclrtMemcpy",
            )
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
    ) -> DeviceTensor:
        """``aclCreateTensor`` over existing device memory (any view: shape, strides, offset).

        The tensor does not own that memory: :meth:`release` frees only the ``aclTensor``.
        Numbers are passed as they are, so the library checks them (negative ones included);
        ones that do not fit ``int64_t`` are refused here, as ctypes would wrap them.

        Raises
        ------
        ValueError
            For strides of another length than shape, a number that does not fit ``int64_t``
            or a dtype that has no ``aclDataType``.
        AclError
            If the library refuses the view (status ``ACLNN_ERR_PARAM_INVALID``).

        """
        dtype = np.dtype(dtype)
        if len(strides) != len(shape):
            raise ValueError(f"strides has {len(strides)} entries but shape has {len(shape)}")
        if dtype.name not in ACL_DTYPE:
            raise ValueError(f"dtype {dtype.name} has no aclDataType")
        handle = session.lib.aclCreateTensor(
            _int64_array("shape", shape),
            len(shape),
            ACL_DTYPE[dtype.name],
            _int64_array("strides", strides),
            checked_ints("offset", [offset], INT64_RANGE)[0],
            ACL_FORMAT_ND,
            _int64_array("storage_size", [storage_size]),
            1,
            address,
        )
        if not handle:
            raise AclError(
                161002, "aclCreateTensor", (session.lib.aclGetRecentErrMsg() or b"").decode()
            )
        return cls(
            session, handle, address, tuple(shape), tuple(strides), offset, storage_size, dtype
        )

    def to_numpy(self) -> np.ndarray:
        """Copy the storage back and return the view as a new array."""
        storage = np.empty(self.storage_size, dtype=self.dtype)
        if storage.nbytes:
            self.session.check(
                self.session.lib.aclrtMemcpy(
                    storage.ctypes.data,
                    storage.nbytes,
                    self.address,
                    storage.nbytes,
                    MEMCPY_DEVICE_TO_HOST,
                ),
                "aclrtMemcpy",
            )
        item = self.dtype.itemsize
        view = np.lib.stride_tricks.as_strided(
            storage[self.offset :], self.shape, tuple(s * item for s in self.strides)
        )
        return view.copy()

    def release(self) -> None:
        """``aclDestroyTensor``, and free the storage if the tensor owns it (idempotent)."""
        if self.handle:
            self.session.lib.aclDestroyTensor(self.handle)
            self.handle = 0
        if self.address and self.owns_memory:
            self.session.lib.aclrtFree(self.address)
        self.address = None


@dataclass
class Phase1:
    """What ``aclnnMishBackwardGetWorkspaceSize`` returned."""

    status: int
    workspace_size: int
    executor: int | None

    @property
    def name(self) -> str:
        """The status code's name."""
        return STATUS_NAMES.get(self.status, "UNKNOWN")


def _handle(tensor: DeviceTensor | None) -> int | None:
    return None if tensor is None else tensor.handle


def get_workspace_size(
    session: Session,
    grad: DeviceTensor | None,
    x: DeviceTensor | None,
    out: DeviceTensor | None,
    *,
    check: bool = True,
) -> Phase1:
    """Phase 1: ``aclnnMishBackwardGetWorkspaceSize(grad, x, out, &size, &executor)``.

    With ``check=False`` the status is returned instead of raised (to show the raw codes).
    """
    size, executor = ctypes.c_uint64(), ctypes.c_void_p()
    status = session.lib.aclnnMishBackwardGetWorkspaceSize(
        _handle(grad), _handle(x), _handle(out), ctypes.byref(size), ctypes.byref(executor)
    )
    if check:
        session.check(status, "aclnnMishBackwardGetWorkspaceSize")
    return Phase1(status, size.value, executor.value)


def run(session: Session, phase1: Phase1, *, check: bool = True) -> int:
    """Phase 2: allocate the workspace, ``aclnnMishBackward`` on the session's stream, synchronize.

    Returns the first failing status (0 on success); raises it unless ``check=False``.
    """
    workspace = session.malloc(phase1.workspace_size) if phase1.workspace_size else None
    try:
        status = session.lib.aclnnMishBackward(
            workspace, phase1.workspace_size, phase1.executor, session.stream
        )
        if status == 0:
            status = session.lib.aclrtSynchronizeStream(session.stream)
            api = "aclrtSynchronizeStream"
        else:
            api = "aclnnMishBackward"
        if check:
            session.check(status, api)
        return status
    finally:
        if workspace is not None:
            session.free(workspace)


def result_dtype(grad: np.dtype, x: np.dtype) -> np.dtype:
    """The promoted dtype of the result: equal dtypes stay, any other pair is float32."""
    return grad if grad == x else DTYPES["float32"]


def mish_backward(
    grad: npt.ArrayLike,
    x: npt.ArrayLike,
    *,
    session: Session | None = None,
    backend: str | None = None,
) -> np.ndarray:
    """``grad * dmish/dx(x)`` through the seven steps of the aclnn call, in one function.

    Broadcasts ``grad`` and ``x``, promotes their dtypes, and returns a new array.
    """
    grad, x = np.asarray(grad), np.asarray(x)
    own = session is None
    session = session or Session(backend)
    try:
        out_shape = np.broadcast_shapes(grad.shape, x.shape)
        tensors = [
            session.tensor(grad),
            session.tensor(x),
            session.empty(out_shape, result_dtype(grad.dtype, x.dtype)),
        ]
        run(session, get_workspace_size(session, *tensors))
        return tensors[2].to_numpy()
    finally:
        if own:
            session.close()
