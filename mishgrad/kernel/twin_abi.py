"""The twin library's C ABI as ctypes sees it: its structs and its functions' signatures.

``kernel/twin/include/twin/capi.h`` declares what the twin library exports; this module
mirrors it for :mod:`mishgrad.kernel.twin` (which runs the kernel in this process) and
:mod:`mishgrad.kernel.isolation` (which runs it in a worker process).
"""

from __future__ import annotations

import ctypes
from functools import cache
from pathlib import Path
from typing import Final

import numpy as np

from . import tiling


class TilingData(ctypes.Structure):
    """``MishGradTilingData`` (``op_kernel/mish_grad_tiling_data.h``), field for field."""

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


#: NumPy view of the twin's progress board (``twin::ProgressSlot``, one per core).
PROGRESS_DTYPE: Final = np.dtype([("calls", np.uint64), ("op", "S24")])

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
def load(path: Path) -> ctypes.CDLL:
    """The library at ``path``, loaded once, with every exported function's signature."""
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
    library.mishgrad_twin_set_progress.argtypes = [c.c_void_p, c.c_uint32]
    library.mishgrad_twin_set_progress.restype = None
    library.mishgrad_twin_last_error.restype = c.c_char_p
    library.mishgrad_twin_log.restype = c.c_char_p
    library.mishgrad_twin_trace_size.restype = c.c_uint64
    library.mishgrad_twin_trace_copy.argtypes = [c.POINTER(TraceEvent), c.c_uint64]
    library.mishgrad_twin_trace_copy.restype = c.c_uint64
    return library
