"""The twin library's C ABI as ctypes sees it: its structs and its functions' signatures.

It mirrors ``kernel/twin/include/twin/capi.h`` and MishGrad's ``mishgrad_tiling`` (its twin
glue, ``kernel/mish_grad/twin``) for :mod:`mishgrad.kernel.twin` and the worker process of
:mod:`mishgrad.kernel.isolation`. :class:`Launch` is one launch of any operator's kernel entry,
which :func:`run_entry` runs through the twin's launcher, ``mishgrad_twin_run``.
"""

import ctypes
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

import numpy as np

from . import tiling
from .compile_units import TwinBuildError


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
    def from_plan(cls, plan: tiling.TilingPlan) -> "TilingData":
        """The struct for a plan (e.g. one a notebook modified on purpose)."""
        return cls(*(getattr(plan, name) for name, _ in cls._fields_))


class TwinConfig(ctypes.Structure):
    """``TwinConfig`` (kernel/twin/include/twin/capi.h)."""

    _fields_ = [
        ("ubBytes", ctypes.c_uint64),
        ("selectScratchBegin", ctypes.c_uint64),
        ("hostThreads", ctypes.c_uint32),
        ("trace", ctypes.c_uint32),
        ("numerics", ctypes.c_uint32),
    ]


class TwinRegion(ctypes.Structure):
    """``TwinRegion`` (kernel/twin/include/twin/capi.h): a tensor a launch may touch."""

    _fields_ = [("address", ctypes.c_void_p), ("bytes", ctypes.c_uint64), ("name", ctypes.c_char_p)]


#: NumPy view of the twin's progress board (``twin::ProgressSlot``, one per core).
PROGRESS_DTYPE: Final = np.dtype([("calls", np.uint64), ("op", "S24")])

#: ``twin::TraceEvent`` (kernel/twin/include/twin/core.h), field for field, the records
#: ``mishgrad_twin_trace_copy`` writes: UB byte offsets are -1 where a call has none;
#: ``gm_offset`` (its ``gmOffset``) is a copy's byte offset into the host tensor.
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
def require_sanitizer_runtime(what: str) -> None:
    """Raise unless this process runs AddressSanitizer's runtime, which ``what`` needs.

    An asan build loaded without it ends the process at once (the runtime must come first),
    taking a notebook's kernel with it and raising nothing.
    """
    if not hasattr(ctypes.CDLL(None), "__asan_init"):
        raise TwinBuildError(
            f"{what} is the asan build (MISHGRAD_TWIN_FLAVOUR=asan), which runs only in a "
            "process started with the sanitizer runtime preloaded (LD_PRELOAD=$(g++ "
            "-print-file-name=libasan.so), as tests/test_sanitizers.py does); loading it here "
            "would end this process. Unset MISHGRAD_TWIN_FLAVOUR, or start Python that way"
        )


def load(path: Path) -> ctypes.CDLL:
    """The library at ``path``, loaded once, with every exported function's signature.

    Raises
    ------
    TwinBuildError
        If ``path`` is the asan build and this process was not started for it.
    """
    if "-asan-" in path.parent.name:  # twin_build names a library's folder by its flavour
        require_sanitizer_runtime(str(path))
    library = ctypes.CDLL(str(path))
    c, floats = ctypes, ctypes.POINTER(ctypes.c_float)
    # entry, arguments and their count, cores, regions and their count, config
    regions, config = c.POINTER(TwinRegion), c.POINTER(TwinConfig)
    run = [c.c_void_p, c.POINTER(c.c_void_p), c.c_uint32, c.c_uint32, regions, c.c_uint32, config]
    signatures = {  # name: result type, argument types
        "mishgrad_twin_run": (c.c_int32, run),
        "mishgrad_twin_exp": (c.c_int32, [floats, floats, c.c_uint64, c.c_uint32]),
        "mishgrad_twin_div": (c.c_int32, [floats, floats, floats, c.c_uint64, c.c_uint32]),
        "mishgrad_twin_set_progress": (None, [c.c_void_p, c.c_uint32]),
        "mishgrad_twin_last_error": (c.c_char_p, []),
        "mishgrad_twin_log": (c.c_char_p, []),
        "mishgrad_twin_trace_size": (c.c_uint64, []),
        "mishgrad_twin_trace_copy": (c.c_uint64, [c.c_void_p, c.c_uint64]),
    }
    if hasattr(library, "mishgrad_tiling"):  # MishGrad's glue; another operator's has its own
        # n, element size, has tanhx, UB bytes reported, cores, Select's scratch; the plan
        inputs = [c.c_uint64, c.c_uint32, c.c_int32, c.c_uint64, c.c_uint32, c.c_int32]
        signatures["mishgrad_tiling"] = (c.c_int32, [*inputs, c.POINTER(TilingData)])
    for name, (restype, argtypes) in signatures.items():
        function = getattr(library, name)
        function.restype, function.argtypes = restype, argtypes
    return library


@dataclass(frozen=True)
class Launch:
    """One launch of an operator's kernel entry (see :func:`run_entry`)."""

    entry: str  # the entry's symbol in the library, e.g. ``mish_grad_float``
    #: The entry's arguments in order (:attr:`OperatorSpec.arguments
    #: <mishgrad.kernel.operators.OperatorSpec.arguments>`): a tensor's name, ``tiling`` for the
    #: tiling data; anything without a tensor (the workspace, an absent input) is null.
    arguments: tuple[str, ...]
    #: The C-contiguous arrays by name, inputs and outputs: the regions the kernel may touch
    #: (empty in the request a worker gets: the tensors are in shared memory).
    tensors: Mapping[str, np.ndarray]
    outputs: tuple[str, ...]  # the tensors the kernel writes (the others must come back unchanged)
    tiling: bytes  # the tiling data's bytes, as the entry reads them
    block_dim: int  # virtual cores to run
    tiles: int  # the most tiles one core walks (an isolated launch's budget of AscendC calls)


def run_entry(
    library: ctypes.CDLL, launch: Launch, regions: Mapping[str, tuple[int, int]], config: TwinConfig
) -> int:
    """Run ``launch`` with its tensors at ``regions`` (name: address and bytes); the status.

    A library built without the entry (another dtype's) passes a null entry, which the twin
    refuses with a message saying so (``mishgrad_twin_last_error``).
    """
    tiling = ctypes.create_string_buffer(launch.tiling, max(len(launch.tiling), 1))
    pointers = {name: address for name, (address, _) in regions.items()}
    pointers["tiling"] = ctypes.addressof(tiling)
    arguments = (ctypes.c_void_p * len(launch.arguments))(
        *(pointers.get(name) for name in launch.arguments)
    )
    names = {name: name.encode() for name in regions}  # alive until the call returns
    table = (TwinRegion * len(regions))(
        *(TwinRegion(address, size, names[name]) for name, (address, size) in regions.items())
    )
    entry = (
        ctypes.cast(getattr(library, launch.entry), ctypes.c_void_p)
        if hasattr(library, launch.entry)  # ctypes raises for a missing (weak, null) symbol
        else None
    )
    return library.mishgrad_twin_run(
        entry, arguments, len(arguments), launch.block_dim, table, len(table), ctypes.byref(config)
    )


def results(library: ctypes.CDLL, trace: bool) -> tuple[str, str, bytes]:
    """What the library's last launch left: its error, its log and (``trace``) its trace's bytes."""
    raw = b""
    if trace:
        events = np.empty(library.mishgrad_twin_trace_size(), TRACE_DTYPE)
        raw = events[: library.mishgrad_twin_trace_copy(events.ctypes.data, len(events))].tobytes()
    return library.mishgrad_twin_last_error().decode(), library.mishgrad_twin_log().decode(), raw


def run_tiling(
    library: ctypes.CDLL, function: str, arguments: tuple[int, ...]
) -> tuple[int, bytes]:
    """``function(*arguments)``, an operator's tiling: its status and the tiling data's bytes."""
    data = TilingData()
    status = getattr(library, function)(*arguments, ctypes.byref(data))
    return status, bytes(data)
