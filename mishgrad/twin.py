"""Build, load and run the CPU twin: the real kernel sources compiled with g++.

The twin library is ``kernel/twin`` (our host implementation of the AscendC API subset)
plus ``kernel/op_kernel/mish_grad.cpp`` compiled once per dtype, linked into one shared
library. It is built on demand into a cache directory whose name is a hash of every
source, header, flag and the compiler's version, so editing a kernel file and re-running
a cell rebuilds it, and an unchanged tree reuses the build. Concurrent builders serialize
on a lock file and publish with an atomic rename, so no process ever loads a half-written
library.

Environment variables: ``CXX`` (compiler, default ``g++``), ``MISHGRAD_CACHE`` (cache
root, default ``~/.cache/mishgrad``), ``MISHGRAD_TWIN_FLAVOUR`` (``release`` or ``asan``;
the asan flavour adds AddressSanitizer and UndefinedBehaviorSanitizer and must run in a
process started with the sanitizer runtime preloaded; see ``tests/test_sanitizers.py``),
``MISHGRAD_TWIN_NUMERICS`` (how the kernel's ``Exp`` and ``Div`` round, one of
:data:`NUMERICS_MODELS`, default ``ieee``; read by :func:`run_kernel` and by the twin's
``aclnnMishBackward`` at each launch; see ``kernel/twin/include/twin/numerics.h``).
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from . import opsnn, tiling
from .dtypes import as_dtype, dtype_name
from .platforms import DEFAULT_PLATFORM, Platform, platform

#: The repository's kernel/ folder (the package is installed editable from the repository).
KERNEL_DIR: Final = Path(__file__).resolve().parent.parent / "kernel"

#: aclDataType values of the supported dtypes (CANN runtime, ``acl/acl_base.h``).
ACL_DTYPES: Final = {"float32": 0, "float16": 1, "bfloat16": 27}

#: The numerics models of the twin's Exp and Div, in ``MishGradTwinNumerics`` order: ``ieee``
#: (C library expf, IEEE division), ``hardware`` (faithful, either float32 neighbour of the
#: exact value, subnormal results flushed to zero), ``adversarial`` (faithful, always the
#: farther neighbour, flushed likewise). :mod:`mishgrad.vector_math` is their NumPy twin.
NUMERICS_MODELS: Final = ("ieee", "hardware", "adversarial")

#: The environment variable that chooses the numerics model when a launch does not.
NUMERICS_VARIABLE: Final = "MISHGRAD_TWIN_NUMERICS"

_FLAVOURS: Final = {
    "release": ["-O2"],
    "asan": ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined"],
}
_COMMON_FLAGS: Final = ["-std=c++17", "-fPIC", "-pthread", "-Wall", "-Wextra", "-Werror"]
# Every float operation rounded on its own, as the vector unit does: no fused multiply-add.
_FP_FLAGS: Final = ["-ffp-contract=off", "-fno-fast-math"]
#: The twin sources any kernel needs besides its own: virtual cores, and how Exp and Div round.
RUNTIME_SOURCES: Final = ("core.cpp", "numerics.cpp")
_KERNEL_TYPES: Final = {"float": "float", "half": "half", "bfloat16": "bfloat16_t"}


class TwinBuildError(RuntimeError):
    """The twin could not be built (no compiler, or the sources do not compile)."""


class KernelError(RuntimeError):
    """The kernel broke a rule of the hardware on the twin; the message names the call.

    ``log`` holds what the kernel's ``printf`` and ``DumpTensor`` wrote before it stopped.
    """

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log


def _sources_root(root: Path) -> Path:
    if not (root / "twin").is_dir():
        raise TwinBuildError(
            f"kernel sources not found at {root}: install mishgrad from a clone of the "
            "repository (`make lab` does this)"
        )
    return root


def _compiler() -> str:
    compiler = os.environ.get("CXX", "g++")
    if shutil.which(compiler) is None:
        raise TwinBuildError(
            f"no C++ compiler '{compiler}' on PATH: install g++ (Debian/Ubuntu: "
            "`apt install g++`; Fedora: `dnf install gcc-c++`; macOS: `xcode-select --install`) "
            "or set CXX to your compiler"
        )
    return compiler


@dataclass(frozen=True)
class BuildSpec:
    """What to compile into one library: sources (each with its extra flags) and includes.

    ``include_dirs`` are on every unit's path; a unit's own ``-I`` flags only on its own.
    ``libraries`` are system libraries to link (``("quadmath",)`` adds ``-lquadmath``).
    """

    name: str
    units: tuple[tuple[Path, tuple[str, ...]], ...]
    include_dirs: tuple[Path, ...]
    flavour: str
    libraries: tuple[str, ...] = ()

    def flags(self) -> list[str]:
        """Compiler flags shared by every translation unit."""
        includes = [f"-I{path}" for path in self.include_dirs]
        return [*_COMMON_FLAGS, *_FP_FLAGS, *_FLAVOURS[self.flavour], *includes]

    def files(self) -> list[Path]:
        """Every file that can affect the build: the sources and all headers they may include."""
        files = {path for path, _ in self.units}
        unit_dirs = {Path(f[2:]) for _, extra in self.units for f in extra if f.startswith("-I")}
        for folder in {*self.include_dirs, *unit_dirs, *(path.parent for path, _ in self.units)}:
            files.update(p for p in folder.rglob("*") if p.suffix in {".h", ".hpp", ".cpp"})
        return sorted(files)

    def digest(self, compiler: str) -> str:
        """Hash of compiler version, flags and the content of every file of :meth:`files`."""
        stats = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in self.files())
        units = [(str(p), f) for p, f in self.units]
        return _digest(compiler, repr((self.flags(), units, self.libraries)), stats)


@cache
def _compiler_version(compiler: str) -> str:
    return subprocess.run(
        [compiler, "--version"], capture_output=True, text=True, check=False
    ).stdout


@cache
def _digest(compiler: str, recipe: str, stats: tuple[tuple[str, int, int], ...]) -> str:
    # Cached on the files' (path, mtime, size): an edit changes the key, and the contents are
    # read again; an unchanged tree costs one stat per file.
    hasher = hashlib.sha256(_compiler_version(compiler).encode())
    hasher.update(recipe.encode())
    for path, _, _ in stats:
        hasher.update(path.encode())
        hasher.update(Path(path).read_bytes())
    return hasher.hexdigest()[:20]


def kernel_spec(flavour: str | None = None, root: Path = KERNEL_DIR) -> BuildSpec:
    """The twin library: the AscendC twin, the launcher, and the kernel once per dtype.

    ``root`` is the ``kernel/`` folder to build from (a copy, in tests).
    """
    flavour = flavour or os.environ.get("MISHGRAD_TWIN_FLAVOUR", "release")
    if flavour not in _FLAVOURS:
        raise ValueError(f"MISHGRAD_TWIN_FLAVOUR must be one of {sorted(_FLAVOURS)}")
    root = _sources_root(Path(root))
    # The twin's own sources also see the operator's headers; the kernel, an Ascend-side
    # source, sees exactly what ops-nn gives it, so an include that ops-nn cannot resolve
    # fails here too.
    twin_private = tuple(
        f"-I{root / folder}" for folder in ("op_kernel", "common", "op_host/op_api")
    )
    units = [(path, twin_private) for path in sorted((root / "twin" / "src").glob("*.cpp"))]
    kernel_includes = tuple(opsnn.include_flags("kernel", root))
    units += [
        (
            root / "op_kernel" / "mish_grad.cpp",
            (*kernel_includes, f"-DDTYPE_X={ctype}", f"-Dmish_grad=mish_grad_{suffix}"),
        )
        for suffix, ctype in _KERNEL_TYPES.items()
    ]
    # twin/include stands in for CANN's headers (kernel_operator.h, acl/, aclnn/)
    return BuildSpec("mishgrad_twin", tuple(units), (root / "twin" / "include",), flavour)


def cache_root() -> Path:
    """Where built libraries are kept (``$MISHGRAD_CACHE`` or ``~/.cache/mishgrad``)."""
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mishgrad"
    return Path(os.environ.get("MISHGRAD_CACHE", default))


def _compile(compiler: str, spec: BuildSpec, workdir: Path) -> list[Path]:
    def one(index_unit: tuple[int, tuple[Path, tuple[str, ...]]]) -> Path:
        index, (source, extra) = index_unit
        target = workdir / f"{index:02d}_{source.stem}.o"
        command = [compiler, *spec.flags(), *extra, "-c", str(source), "-o", str(target)]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise TwinBuildError(f"compiling {source.name} failed:\n{result.stderr.strip()}")
        return target

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return list(pool.map(one, enumerate(spec.units)))


def build(spec: BuildSpec | None = None) -> Path:
    """Build ``spec`` (default: the kernel twin) unless its cached library exists; return its path.

    Raises
    ------
    TwinBuildError
        If no compiler is found or the sources do not compile (with the compiler's message).

    """
    spec = spec or kernel_spec()
    compiler = _compiler()
    folder = cache_root() / f"{spec.name}-{spec.flavour}-{spec.digest(compiler)}"
    library = folder / f"lib{spec.name}.so"
    if library.exists():
        return library
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder at a time; the others wait, then reuse
        if library.exists():
            return library
        with tempfile.TemporaryDirectory(dir=folder) as workdir:
            objects = _compile(compiler, spec, Path(workdir))
            partial = Path(workdir) / library.name
            libraries = [f"-l{name}" for name in spec.libraries]
            link = [compiler, *spec.flags(), "-shared", *map(str, objects), *libraries]
            link += ["-o", str(partial)]
            result = subprocess.run(link, capture_output=True, text=True, check=False)
            if result.returncode != 0:
                raise TwinBuildError(f"linking {library.name} failed:\n{result.stderr.strip()}")
            os.replace(partial, library)  # atomic: readers see no library or a whole one
    return library


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
        """The same values as the Python model's :class:`~mishgrad.tiling.TilingPlan`."""
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
    learner's scratch copy (:mod:`mishgrad.scratch`), so an exercise never edits ``kernel/``.
    """
    return _load(build(kernel_spec(root=kernel_dir or KERNEL_DIR)))


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

    The arguments are :func:`mishgrad.tiling.plan`'s (``select_scratch``: whether the
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

    ``numerics`` is resolved as in :func:`run_kernel`; :func:`mishgrad.vector_math.exp` is the
    NumPy equivalent.
    """
    return _native_math("exp", [x], numerics)


def native_div(a: npt.ArrayLike, b: npt.ArrayLike, numerics: str | None = None) -> np.ndarray:
    """The twin's C++ ``Div`` (what ``AscendC::Div`` computes) on float32 ``a / b``.

    ``numerics`` is resolved as in :func:`run_kernel`; :func:`mishgrad.vector_math.div` is the
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
        scratch copy from :mod:`mishgrad.scratch` in exercises that edit the kernel).

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


def build_extra(name: str, sources: Sequence[Path], flavour: str | None = None) -> ctypes.CDLL:
    """Build and load another library against the twin headers (used by the misuse tests)."""
    base = kernel_spec(flavour)
    runtime = tuple(unit for unit in base.units if unit[0].name in RUNTIME_SOURCES)
    spec = BuildSpec(
        name, runtime + tuple((Path(s), ()) for s in sources), base.include_dirs, base.flavour
    )
    return ctypes.CDLL(str(build(spec)))
