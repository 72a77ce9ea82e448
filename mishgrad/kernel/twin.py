"""Loading and running the CPU twin: the kernel's launches, its tiling and its arithmetic.

:func:`run_kernel` launches the kernel on the twin library that :mod:`mishgrad.kernel.twin_build`
built, over virtual cores, and returns the output, the tiling plan, the trace of every AscendC
call (:mod:`mishgrad.kernel.trace`) and what the kernel printed; a broken hardware rule comes
back as :class:`KernelError`. :func:`native_tiling` runs the C++ ``ComputeTiling``, and
:func:`native_exp` and :func:`native_div` the twin's ``Exp`` and ``Div``.

The environment variable ``MISHGRAD_TWIN_NUMERICS`` chooses how the kernel's ``Exp`` and
``Div`` round, one of :data:`NUMERICS_MODELS` (default ``ieee``); it is read by
:func:`run_kernel` and by the twin's ``aclnnMishBackward`` at each launch (see
``kernel/twin/include/twin/numerics.h``).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from mishgrad.math.dtypes import as_dtype, dtype_name
from mishgrad.math.vector_math import NUMERICS_MODELS

from . import tiling
from .platforms import DEFAULT_PLATFORM, Platform, platform
from .twin_build import build, kernel_spec

#: aclDataType values of the supported dtypes (CANN runtime, ``acl/acl_base.h``).
ACL_DTYPES: Final = {"float32": 0, "float16": 1, "bfloat16": 27}

#: The environment variable that chooses the numerics model when a launch does not.
NUMERICS_VARIABLE: Final = "MISHGRAD_TWIN_NUMERICS"


class KernelError(RuntimeError):
    """The kernel broke a rule of the hardware on the twin; the message names the call.

    ``log`` holds what the kernel's ``printf`` and ``DumpTensor`` wrote before it stopped.
    """

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log


class TilingData(ctypes.Structure):
    """``MishGradTilingData`` (kernel/op_kernel/mish_grad_tiling_data.h), field for field."""

    _fields_ = [
        ("totalLength", ctypes.c_uint64),
        ("blockDim", ctypes.c_uint32),
        ("bigCoreNum", ctypes.c_uint32),
        ("bigCoreLength", ctypes.c_uint64),
        ("smallCoreLength", ctypes.c_uint64),
        ("lastCoreLength", ctypes.c_uint64),
        ("tileLength", ctypes.c_uint32),
        ("hasTanhx", ctypes.c_uint32),
        ("bigTileNum", ctypes.c_uint64),
        ("bigTailLength", ctypes.c_uint64),
        ("smallTileNum", ctypes.c_uint64),
        ("smallTailLength", ctypes.c_uint64),
        ("lastTileNum", ctypes.c_uint64),
        ("lastTailLength", ctypes.c_uint64),
    ]

    def as_plan(self) -> tiling.TilingPlan:
        """The same values as the Python model's :class:`~mishgrad.kernel.tiling.TilingPlan`."""
        return tiling.TilingPlan(*(getattr(self, name) for name, _ in self._fields_))

    @classmethod
    def from_plan(cls, plan: tiling.TilingPlan) -> TilingData:
        """The struct for a plan (e.g. one a notebook modified on purpose)."""
        return cls(*(getattr(plan, name) for name, _ in cls._fields_))


class TwinConfig(ctypes.Structure):
    """``MishGradTwinConfig`` (kernel/twin/include/twin/capi.h)."""

    _fields_ = [
        ("ubBytes", ctypes.c_uint64),
        ("selectScratchBegin", ctypes.c_uint64),
        ("hostThreads", ctypes.c_uint32),
        ("trace", ctypes.c_uint32),
        ("numerics", ctypes.c_uint32),
    ]


class TraceEvent(ctypes.Structure):
    """``twin::TraceEvent`` (kernel/twin/include/twin/core.h)."""

    _fields_ = [
        ("core", ctypes.c_uint32),
        ("sequence", ctypes.c_uint32),
        ("op", ctypes.c_char * 24),
        ("count", ctypes.c_uint64),
        ("bytes", ctypes.c_uint64),
        ("dst", ctypes.c_int64),
        ("src0", ctypes.c_int64),
        ("src1", ctypes.c_int64),
        ("gmOffset", ctypes.c_int64),
    ]


#: NumPy view of a TraceEvent array, for tables.
TRACE_DTYPE: Final = np.dtype(
    [
        ("core", np.uint32),
        ("sequence", np.uint32),
        ("op", "S24"),
        ("count", np.uint64),
        ("bytes", np.uint64),
        ("dst", np.int64),
        ("src0", np.int64),
        ("src1", np.int64),
        ("gm_offset", np.int64),
    ]
)


@cache
def _load(path: Path) -> ctypes.CDLL:
    library = ctypes.CDLL(str(path))
    c = ctypes
    library.mishgrad_tiling.argtypes = [
        c.c_uint64,
        c.c_uint32,
        c.c_int32,
        c.c_uint64,
        c.c_uint32,
        c.c_int32,
        c.POINTER(TilingData),
    ]
    library.mishgrad_tiling.restype = c.c_int32
    library.mishgrad_twin_launch.argtypes = [
        c.c_int32,
        c.c_void_p,
        c.c_void_p,
        c.c_void_p,
        c.c_void_p,
        c.POINTER(TilingData),
        c.POINTER(TwinConfig),
    ]
    library.mishgrad_twin_launch.restype = c.c_int32
    floats = c.POINTER(c.c_float)
    library.mishgrad_twin_exp.argtypes = [floats, floats, c.c_uint64, c.c_uint32]
    library.mishgrad_twin_exp.restype = c.c_int32
    library.mishgrad_twin_div.argtypes = [floats, floats, floats, c.c_uint64, c.c_uint32]
    library.mishgrad_twin_div.restype = c.c_int32
    library.mishgrad_twin_last_error.restype = c.c_char_p
    library.mishgrad_twin_log.restype = c.c_char_p
    library.mishgrad_twin_trace_size.restype = c.c_uint64
    library.mishgrad_twin_trace_copy.argtypes = [c.POINTER(TraceEvent), c.c_uint64]
    library.mishgrad_twin_trace_copy.restype = c.c_uint64
    return library


def library(kernel_dir: Path | None = None) -> ctypes.CDLL:
    """The twin library for the current sources (built if needed, loaded once per build).

    ``kernel_dir`` is the ``kernel/`` folder to build from: default the repository's, or a
    learner's scratch copy (:mod:`mishgrad.kernel.scratch`), so an exercise never edits ``kernel/``.
    """
    return _load(build(kernel_spec(root=kernel_dir)))


def native_tiling(
    total_length: int,
    dtype_size: int,
    has_tanhx: bool,
    ub_reported: int,
    core_count: int,
    select_scratch: bool = True,
    *,
    kernel_dir: Path | None = None,
) -> tiling.TilingPlan:
    """The C++ ``ComputeTiling`` through the twin library (built from ``kernel_dir``).

    The arguments are :func:`mishgrad.kernel.tiling.plan`'s (``select_scratch``: whether the
    platform's Select needs its scratch area, as on Atlas A2).

    Raises
    ------
    tiling.TilingError
        With the status the C++ function returned.

    """
    data = TilingData()
    status = library(kernel_dir).mishgrad_tiling(
        total_length,
        dtype_size,
        int(has_tanhx),
        ub_reported,
        core_count,
        int(select_scratch),
        ctypes.byref(data),
    )
    if status != 0:
        raise tiling.TilingError(f"ComputeTiling returned status {status}")
    return data.as_plan()


def _native_math(name: str, operands: Sequence[npt.ArrayLike], numerics: str | None) -> np.ndarray:
    arrays = [np.ascontiguousarray(operand) for operand in operands]
    if any(array.dtype != np.float32 for array in arrays):
        raise TypeError(f"the operands of {name} must be float32")
    if any(array.shape != arrays[0].shape for array in arrays):
        raise ValueError(f"the operands of {name} must have one shape")
    out = np.empty_like(arrays[0])
    pointer = ctypes.POINTER(ctypes.c_float)
    function = getattr(library(), f"mishgrad_twin_{name}")
    model = NUMERICS_MODELS.index(numerics_model(numerics))
    status = function(*(array.ctypes.data_as(pointer) for array in (*arrays, out)), out.size, model)
    if status != 0:
        raise KernelError(f"mishgrad_twin_{name} returned status {status}")
    return out


def native_exp(x: npt.ArrayLike, numerics: str | None = None) -> np.ndarray:
    """The twin's C++ ``Exp`` (what ``AscendC::Exp`` computes) on float32 ``x``.

    ``numerics`` is resolved as in :func:`run_kernel`; :func:`mishgrad.math.vector_math.exp` is the
    NumPy equivalent.
    """
    return _native_math("exp", [x], numerics)


def native_div(a: npt.ArrayLike, b: npt.ArrayLike, numerics: str | None = None) -> np.ndarray:
    """The twin's C++ ``Div`` (what ``AscendC::Div`` computes) on float32 ``a / b``.

    ``numerics`` is resolved as in :func:`run_kernel`; :func:`mishgrad.math.vector_math.div` is the
    NumPy equivalent.
    """
    return _native_math("div", [a, b], numerics)


@dataclass(frozen=True)
class KernelRun:
    """One launch on the twin: the output, the plan, the trace, and the debug log.

    ``log`` is what the kernel's ``AscendC::printf`` and ``DumpTensor`` wrote, in the NPU's
    format, core 0 first (each core's lines in program order, whatever the host threads did).
    """

    out: np.ndarray
    plan: tiling.TilingPlan
    trace: np.ndarray  # TRACE_DTYPE records; empty unless trace=True
    log: str = ""


def _trace(lib: ctypes.CDLL) -> np.ndarray:
    events = (TraceEvent * lib.mishgrad_twin_trace_size())()
    copied = lib.mishgrad_twin_trace_copy(events, len(events))
    return np.frombuffer(bytes(events), dtype=TRACE_DTYPE, count=copied).copy()


def numerics_model(numerics: str | None = None) -> str:
    """The numerics model a launch uses: ``numerics``, else ``$MISHGRAD_TWIN_NUMERICS``, else ieee.

    Raises
    ------
    ValueError
        If ``numerics`` or the environment variable (when it decides) names no model of
        :data:`NUMERICS_MODELS`; an empty variable counts as unset.

    """
    if numerics is None:
        numerics = os.environ.get(NUMERICS_VARIABLE) or "ieee"
        source = NUMERICS_VARIABLE
    else:
        source = "numerics"
    if numerics not in NUMERICS_MODELS:
        raise ValueError(
            f"{source} is {numerics!r}; it must be one of {', '.join(NUMERICS_MODELS)}"
        )
    return numerics


def _contiguous(name: str, array: npt.ArrayLike, dtype: np.dtype, size: int) -> np.ndarray:
    array = np.asarray(array)
    if array.dtype != dtype:
        raise ValueError(f"{name} has dtype {array.dtype}, x has {dtype}; they must match")
    if array.size != size:
        raise ValueError(f"{name} has {array.size} elements, x has {size}; they must match")
    return np.ascontiguousarray(array).ravel()


def run_kernel(
    grad: npt.ArrayLike,
    x: npt.ArrayLike,
    tanhx: npt.ArrayLike | None = None,
    *,
    on: str | Platform = DEFAULT_PLATFORM,
    cores: int | None = None,
    host_threads: int | None = None,
    trace: bool = False,
    plan: tiling.TilingPlan | None = None,
    out: np.ndarray | None = None,
    numerics: str | None = None,
    kernel_dir: Path | None = None,
) -> KernelRun:
    """Run the MishGrad kernel on the CPU twin.

    Parameters
    ----------
    grad, x, tanhx
        Arrays of one dtype (float32, float16 or bfloat16) and one size (no broadcasting
        here: that is the aclnn layer's job). ``tanhx`` selects the kernel's tanhx branch.
    on
        The platform whose UB size and core count the tiling plans for.
    cores
        Use at most this many vector cores (default: all of the platform's).
    host_threads
        Host threads that run the virtual cores (default: the machine's CPU count).
    trace
        Record every AscendC call (returned in :attr:`KernelRun.trace`).
    plan
        A tiling plan to use instead of the C++ tiling's (for experiments in notebooks).
    out
        A C-contiguous array of x's dtype and size to write into (default: a new one).
    numerics
        How ``Exp`` and ``Div`` round, one of :data:`NUMERICS_MODELS` (default:
        ``$MISHGRAD_TWIN_NUMERICS``, else ``ieee``); see :func:`numerics_model`.
    kernel_dir
        The ``kernel/`` folder to build the twin from (default: the repository's; a
        scratch copy from :mod:`mishgrad.kernel.scratch` in exercises that edit the kernel).

    Raises
    ------
    KernelError
        If the kernel breaks a hardware rule (the message names the AscendC call).
    ValueError
        For mismatched dtypes or sizes, unsupported dtypes, an empty input or an unknown
        numerics model.

    """
    model = NUMERICS_MODELS.index(numerics_model(numerics))
    x = np.asarray(x)
    dtype = as_dtype(x.dtype)
    if x.size == 0:
        raise ValueError("x is empty: the kernel is never launched for empty tensors")
    x_flat = _contiguous("x", x, dtype, x.size)
    grad_flat = _contiguous("grad", grad, dtype, x.size)
    tanhx_flat = None if tanhx is None else _contiguous("tanhx", tanhx, dtype, x.size)
    chip = platform(on)
    core_count = chip.vector_cores if cores is None else cores
    if plan is None:
        plan = native_tiling(
            x.size,
            dtype.itemsize,
            tanhx is not None,
            chip.ub_reported,
            core_count,
            chip.select_uses_scratch,
            kernel_dir=kernel_dir,
        )
    if out is None:
        out = np.empty_like(x_flat)
    elif out.dtype != dtype or out.size != x.size or not out.flags.c_contiguous:
        raise ValueError("out must be a C-contiguous array of x's dtype and size")
    config = TwinConfig(
        chip.ub_bytes,
        chip.select_scratch_begin,
        host_threads or os.cpu_count() or 1,
        int(trace),
        model,
    )
    lib = library(kernel_dir)
    status = lib.mishgrad_twin_launch(
        ACL_DTYPES[dtype_name(dtype)],
        grad_flat.ctypes.data,
        x_flat.ctypes.data,
        None if tanhx_flat is None else tanhx_flat.ctypes.data,
        out.ctypes.data,
        ctypes.byref(TilingData.from_plan(plan)),
        ctypes.byref(config),
    )
    log = lib.mishgrad_twin_log().decode()
    if status != 0:
        raise KernelError(lib.mishgrad_twin_last_error().decode(), log)
    events = _trace(lib) if trace else np.empty(0, TRACE_DTYPE)
    return KernelRun(out.reshape(x.shape), plan, events, log)
