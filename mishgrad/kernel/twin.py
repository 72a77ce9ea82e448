"""Loading and running the CPU twin: the kernel's launches, its tiling and its arithmetic.

:func:`run_kernel` launches the kernel on the twin library that :mod:`mishgrad.kernel.twin_build`
built, through the launcher any operator's kernel runs on (:mod:`mishgrad.kernel.launcher`), and
returns the output, the tiling plan, the trace of every AscendC call (:mod:`mishgrad.kernel.trace`)
and what the kernel printed; a broken hardware rule comes back as :class:`KernelError`.
:func:`native_tiling` runs the C++ ``ComputeTiling``, :func:`native_exp` and :func:`native_div`
the twin's ``Exp`` and ``Div``. ``MISHGRAD_TWIN_NUMERICS`` chooses how those round, one of
:data:`NUMERICS_MODELS` (default ``ieee``), at each launch of the kernel or ``aclnnMishBackward``
(``kernel/twin/include/twin/numerics.h``).
"""

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from mishgrad.math.dtypes import as_dtype, as_input, dtype_name
from mishgrad.math.vector_math import NUMERICS_MODELS

from . import isolation, tiling
from .isolation import KernelError, Watchdog
from .launcher import launch, numerics_model, twin_config
from .operators import MISH_GRAD
from .plan_check import check_plan
from .platforms import DEFAULT_PLATFORM, Platform, platform
from .source import OPERATOR_DIR
from .twin_abi import Launch, TilingData, run_tiling
from .twin_abi import load as _load
from .twin_build import build, kernel_spec


def runs_isolated(
    kernel_dir: Path | None, isolated: bool | None = None, *, plan_supplied: bool = False
) -> bool:
    """Whether a launch runs in a worker process (:mod:`mishgrad.kernel.isolation`).

    ``isolated`` decides when given. By default a learner's copy (a ``kernel_dir`` other than
    ``kernel/mish_grad``) runs isolated, so that an endless loop or a crash in an edit cannot take
    the notebook down, and so does a plan the caller supplied (notebooks break plans on purpose).
    The project's own kernel and plan, tested under AddressSanitizer, run in this process, where
    a trace costs nothing extra.
    """
    if isolated is not None:
        return isolated
    learners = kernel_dir is not None and Path(kernel_dir).resolve() != OPERATOR_DIR.resolve()
    return learners or plan_supplied


def library(kernel_dir: Path | None = None, dtype: str = "float32") -> ctypes.CDLL:
    """The twin library with the ``dtype`` kernel, built if needed from ``kernel_dir``, loaded.

    ``kernel_dir``: default the repository's operator folder, or a learner's scratch copy
    (:mod:`mishgrad.kernel.scratch`), so an exercise never edits ``kernel/``.
    """
    return _load(build(kernel_spec(root=kernel_dir, dtype=dtype)))


def native_tiling(
    total_length: int,
    dtype_size: int,
    has_tanhx: bool,
    ub_reported: int,
    core_count: int,
    select_scratch: bool = True,
    *,
    kernel_dir: Path | None = None,
    isolated: bool | None = None,
    dtype: str = "float32",
) -> tiling.TilingPlan:
    """The C++ ``ComputeTiling`` through the twin library (built from ``kernel_dir``).

    The arguments are :func:`mishgrad.kernel.tiling.plan`'s; ``isolated`` as in :func:`run_kernel`;
    ``dtype`` picks the library (:func:`library`) a launch will use.

    Raises
    ------
    tiling.TilingError
        With the status the C++ function returned.
    KernelError
        If an isolated tiling crashed or did not return.
    """
    values = (total_length, dtype_size, has_tanhx, ub_reported, core_count, select_scratch)
    path = build(kernel_spec(root=kernel_dir, dtype=dtype))
    return _tiling(path, runs_isolated(kernel_dir, isolated), *values)


def _tiling(path: Path, isolate: bool, *values: int) -> tiling.TilingPlan:
    """MishGrad's tiling (``mishgrad_tiling(*values)``) of the library at ``path``."""
    function, arguments = MISH_GRAD.tiling_function, tuple(int(value) for value in values)
    if isolate:
        status, raw = isolation.tiling(path, function, arguments)
    else:
        status, raw = run_tiling(_load(path), function, arguments)
    if status != 0:
        raise tiling.TilingError(f"ComputeTiling returned status {status}")
    return TilingData.from_buffer_copy(raw).as_plan()


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
    """The twin's ``AscendC::Exp`` of float32 ``x`` (:func:`mishgrad.math.vector_math.exp`)."""
    return _native_math("exp", [x], numerics)


def native_div(a: npt.ArrayLike, b: npt.ArrayLike, numerics: str | None = None) -> np.ndarray:
    """The twin's ``AscendC::Div`` of float32 ``a / b`` (:func:`mishgrad.math.vector_math.div`)."""
    return _native_math("div", [a, b], numerics)


@dataclass(frozen=True)
class KernelRun:
    """One launch on the twin: the output, the plan, the trace, and the debug log."""

    out: np.ndarray
    plan: tiling.TilingPlan
    trace: np.ndarray  # TRACE_DTYPE records; empty unless trace=True
    #: What the kernel's ``AscendC::printf`` and ``DumpTensor`` wrote, in the NPU's format, core 0
    #: first (each core's lines in program order, whatever the host threads did).
    log: str = ""


def _contiguous(name: str, array: npt.ArrayLike, dtype: np.dtype, size: int) -> np.ndarray:
    array = as_input(array)
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
    isolated: bool | None = None,
    watchdog: Watchdog | None = None,
) -> KernelRun:
    """Run the MishGrad kernel on the CPU twin.

    Parameters
    ----------
    grad, x, tanhx
        Arrays of one dtype (float32, float16 or bfloat16) and one size (no broadcasting
        here: that is the aclnn layer's job). ``tanhx`` selects the kernel's tanhx branch.
        Any byte order; lists become float32 (:func:`mishgrad.math.dtypes.as_input`).
    on, cores
        The platform whose UB size and core count the tiling plans for, and at most how many of
        its vector cores to use (default: all).
    host_threads
        Host threads that run the virtual cores (default: the machine's CPU count).
    trace
        Record every AscendC call (returned in :attr:`KernelRun.trace`).
    plan
        A tiling plan to use instead of the C++ tiling's (for experiments in notebooks):
        checked first (:func:`~mishgrad.kernel.plan_check.check_plan`), and run isolated unless
        ``isolated`` is False.
    out
        A C-contiguous array of x's dtype and size to write into (default: a new one).
    numerics
        How ``Exp`` and ``Div`` round, one of :data:`NUMERICS_MODELS` (default:
        ``$MISHGRAD_TWIN_NUMERICS``, else ``ieee``); see :func:`numerics_model`.
    kernel_dir
        The operator's folder to build the twin from (:func:`library`).
    isolated, watchdog
        Run in a worker process (:mod:`mishgrad.kernel.isolation`), stopped by ``watchdog``
        (default: :class:`Watchdog`) if it does not finish; by default for a copy of ``kernel/``
        or with a ``plan``, not for the repository's own (:func:`runs_isolated`).

    Raises
    ------
    KernelError
        If the kernel breaks a hardware rule (the message names the AscendC call), or, run
        isolated, crashes, stalls, runs out of time or writes outside ``out`` through a raw
        pointer (the message says which).
    ValueError
        For mismatched dtypes or sizes, unsupported dtypes, an empty input, an unknown
        numerics model or a plan that does not describe the arrays (see ``plan``).
    TypeError
        If ``plan`` is not a :class:`~mishgrad.kernel.tiling.TilingPlan`.
    """
    chip = platform(on)
    config = twin_config(chip, host_threads, trace, numerics)
    x = as_input(x)
    dtype = as_dtype(x.dtype)
    if x.size == 0:
        raise ValueError("x is empty: the kernel is never launched for empty tensors")
    x_flat = _contiguous("x", x, dtype, x.size)
    grad_flat = _contiguous("grad", grad, dtype, x.size)
    tanhx_flat = None if tanhx is None else _contiguous("tanhx", tanhx, dtype, x.size)
    core_count = chip.vector_cores if cores is None else cores
    if plan is not None:
        check_plan(plan, x, tanhx is not None, chip)
    isolate = runs_isolated(kernel_dir, isolated, plan_supplied=plan is not None)
    path = build(kernel_spec(root=kernel_dir, dtype=dtype_name(dtype)))  # for tiling and launch
    if plan is None:
        has_tanhx, scratch = tanhx is not None, chip.select_uses_scratch
        plan = _tiling(
            path, isolate, x.size, dtype.itemsize, has_tanhx, chip.ub_reported, core_count, scratch
        )
    if out is None:
        out = np.empty_like(x_flat)
    elif out.dtype != dtype or out.size != x.size or not out.flags.c_contiguous:
        raise ValueError("out must be a C-contiguous array of x's dtype and size")
    tensors = {"grad": grad_flat, "x": x_flat, "x_grad": out.reshape(-1)}
    if tanhx_flat is not None:
        tensors["tanhx"] = tanhx_flat
    tiles = int(max(plan.bigTileNum, plan.smallTileNum, plan.lastTileNum))
    entry, data = MISH_GRAD.entry(dtype_name(dtype)), bytes(TilingData.from_plan(plan))
    one = Launch(entry, MISH_GRAD.arguments, tensors, MISH_GRAD.outputs, data, plan.blockDim, tiles)
    log, events = launch(path, one, config, isolated=isolate, watchdog=watchdog)
    return KernelRun(out.reshape(x.shape), plan, events, log)
