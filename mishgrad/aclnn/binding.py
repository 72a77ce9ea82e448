"""The ctypes binding of CANN's C ABI: every function's signature, and the C types' limits.

:data:`SIGNATURES` declares each function once, with CANN's signature and the role of the
library that provides it (``runtime``, ``tensors``, ``op``); :func:`bind` binds them from
whichever libraries a backend loaded (:mod:`mishgrad.aclnn.backends`). Every number passed to
C goes through :func:`checked_ints` first, because ctypes silently wraps one that does not fit.
"""

import ctypes
import operator
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Final

from mishgrad.math.dtypes import TABLE

#: aclDataType values (CANN's acl_base.h), by NumPy dtype name: the operator's dtypes from
#: their records, and the others a hostile caller may pass.
ACL_DTYPE: Final[dict[str, int]] = {
    **{name: record.acl_code for name, record in TABLE.items()},
    "int8": 2, "int32": 3, "uint8": 4, "int16": 6, "uint16": 7, "uint32": 8, "int64": 9,
    "uint64": 10, "float64": 11, "bool": 12,
}  # fmt: skip
ACL_FORMAT_ND: Final = 2
MEMCPY_HOST_TO_DEVICE: Final = 1
MEMCPY_DEVICE_TO_HOST: Final = 2
MALLOC_HUGE_FIRST: Final = 0


c = ctypes
_P, _I64S = c.c_void_p, c.POINTER(c.c_int64)
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
        # shape and its length, dtype, strides, offset, format, storage shape and its length, data
        [_I64S, c.c_uint64, c.c_int, _I64S, c.c_int64, c.c_int, _I64S, c.c_uint64, _P],
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
    functions: dict[str, Callable[..., Any]] = field(repr=False)
    #: None while calls reach the library; a worker's backend sets it to why its worker ended.
    ended: str | None = field(default=None, repr=False)
    #: Whether the library runs in a worker process (:mod:`~mishgrad.aclnn.isolated`).
    in_worker: ClassVar[bool] = False

    def __getattr__(self, name: str) -> Callable[..., Any]:
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

    def for_session(self) -> "Backend":
        """The backend a new :class:`~mishgrad.aclnn.Session` calls: this one."""
        return self


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


def bind(name: str, libraries: dict[str, ctypes.CDLL], paths: dict[str, str]) -> Backend:
    """Bind every function of :data:`SIGNATURES` from the library of its role."""
    functions = {}
    for symbol, (role, restype, argtypes) in SIGNATURES.items():
        function = getattr(libraries[role], symbol)
        function.restype, function.argtypes = restype, argtypes
        functions[symbol] = function
    return Backend(name, paths, functions)


#: Not part of CANN, the twin's own functions a twin backend binds too: the platform its
#: launches plan for, and the progress board a worker's watchdog reads (``twin::ProgressSlot``).
TWIN_EXTRAS: Final = {
    "mishgrad_twin_set_platform": [c.c_uint64] * 3 + [c.c_uint32] * 2,
    "mishgrad_twin_set_progress": [_P, c.c_uint32],
}


@cache
def twin_at(path: str) -> Backend:
    """The twin library at ``path``, loaded in this process once, as a backend."""
    library = ctypes.CDLL(path)
    roles = list(dict.fromkeys(role for role, _, _ in SIGNATURES.values()))  # in ABI order
    backend = bind("twin", dict.fromkeys(roles, library), dict.fromkeys(roles, path))
    for name, argtypes in TWIN_EXTRAS.items():
        function = getattr(library, name)
        function.restype, function.argtypes = None, argtypes
        backend.functions[name] = function
    return backend


INT64_RANGE: Final = (-(2**63), 2**63 - 1)
INT32_RANGE: Final = (-(2**31), 2**31 - 1)
SIZE_RANGE: Final = (0, 2**64 - 1)


def checked_ints(name: str, values: Sequence[int], bounds: tuple[int, int]) -> list[int]:
    """``values`` as Python ints, each within ``bounds`` (inclusive): ctypes would wrap them.

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


def int64_array(name: str, values: Sequence[int]) -> ctypes.Array:
    """``values`` as a C ``int64_t`` array (at least one element), each checked to fit."""
    checked = checked_ints(name, values, INT64_RANGE)
    return (ctypes.c_int64 * max(len(checked), 1))(*checked)
