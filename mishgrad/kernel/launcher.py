"""Any operator's kernel on the twin's launcher: one launch, in this process or isolated.

:func:`launch` runs one :class:`~mishgrad.kernel.twin_abi.Launch` (an entry, its arguments,
its tensors, its tiling bytes) on a twin library, in this process or in the worker process
(:mod:`mishgrad.kernel.isolation`), and returns the kernel's log and trace.
:func:`run_operator` is the same for an operator given by its
:class:`~mishgrad.kernel.operators.OperatorSpec` and its inputs: it builds the operator's twin
library for the inputs' dtype, models the platform, and returns the outputs.
:func:`mishgrad.kernel.twin.run_kernel` is MishGrad's own, with its tiling, on top of
:func:`launch`.

The environment variable ``MISHGRAD_TWIN_NUMERICS`` chooses how the kernels' ``Exp`` and
``Div`` round (:func:`numerics_model`).
"""

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from mishgrad.math.dtypes import as_dtype, as_input, dtype_name
from mishgrad.math.vector_math import NUMERICS_MODELS, check_model

from . import isolation
from .isolation import KernelError, Watchdog
from .operators import OperatorSpec
from .platforms import DEFAULT_PLATFORM, Platform, platform
from .twin_abi import TRACE_DTYPE, Launch, TwinConfig, load, results, run_entry
from .twin_build import build, kernel_spec

#: The environment variable that chooses the numerics model when a launch does not.
NUMERICS_VARIABLE: Final = "MISHGRAD_TWIN_NUMERICS"

_in_process = threading.Lock()  # one in-process launch at a time, with what it left behind


def numerics_model(numerics: str | None = None) -> str:
    """The numerics model a launch uses: ``numerics``, else ``$MISHGRAD_TWIN_NUMERICS``, else ieee.

    Raises
    ------
    ValueError
        If ``numerics`` or the environment variable (when it decides) names no model of
        :data:`NUMERICS_MODELS`; an empty variable counts as unset.
    """
    source = NUMERICS_VARIABLE if numerics is None else "numerics"
    if numerics is None:
        numerics = os.environ.get(NUMERICS_VARIABLE) or "ieee"
    check_model(numerics, source)
    return numerics


def twin_config(
    chip: Platform, host_threads: int | None, trace: bool, numerics: str | None
) -> TwinConfig:
    """How the twin models ``chip`` and runs a launch (``numerics`` as :func:`numerics_model`)."""
    model = NUMERICS_MODELS.index(numerics_model(numerics))
    threads = host_threads or os.cpu_count() or 1
    return TwinConfig(chip.ub_bytes, chip.select_scratch_begin, threads, int(trace), model)


def launch(
    path: Path,
    one: Launch,
    config: TwinConfig,
    *,
    isolated: bool = True,
    watchdog: Watchdog | None = None,
) -> tuple[str, np.ndarray]:
    """Run one launch of any operator's kernel entry (``one``) on the twin library at ``path``.

    The outputs are written into ``one.tensors``; ``config`` says how the twin models the
    platform (its ``trace`` records every AscendC call). ``isolated`` runs it in the worker
    process (:mod:`mishgrad.kernel.isolation`), with ``watchdog``. Returns the kernel's log and
    its trace (:data:`~mishgrad.kernel.twin_abi.TRACE_DTYPE` records; empty without a trace).

    Raises
    ------
    KernelError
        If the kernel breaks a hardware rule, or, isolated, crashes, stalls or writes outside
        its outputs; also for a library without ``one.entry`` (built for another dtype).
    """
    if isolated:
        status, error, log, raw = isolation.launch(path, one, config, watchdog or Watchdog())
    else:
        lib = load(path)
        regions = {name: (array.ctypes.data, array.nbytes) for name, array in one.tensors.items()}
        with _in_process:  # the twin keeps the last launch's error, log and trace: read our own
            status = run_entry(lib, one, regions, config)
            error, log, raw = results(lib, bool(config.trace))
    if status != 0:
        raise KernelError(error, log)
    return log, np.frombuffer(raw, dtype=TRACE_DTYPE).copy()


@dataclass(frozen=True)
class OperatorRun:
    """One launch of an operator: its outputs by name, the trace and the debug log."""

    outputs: Mapping[str, np.ndarray]
    trace: np.ndarray  # TRACE_DTYPE records; empty unless trace=True
    log: str = ""


def _flat_inputs(spec: OperatorSpec, inputs: Mapping[str, npt.ArrayLike]) -> dict[str, np.ndarray]:
    """The inputs as flat C-contiguous arrays of one dtype and size, or a ValueError why not."""
    missing = set(spec.inputs) - set(spec.optional) - set(inputs)
    unknown = set(inputs) - set(spec.inputs)
    if missing or unknown:
        raise ValueError(
            f"{spec.name} takes inputs {', '.join(spec.inputs)}: missing {sorted(missing)}, "
            f"unknown {sorted(unknown)}"
        )
    arrays = {name: as_input(value) for name, value in inputs.items()}
    first = arrays[next(name for name in spec.inputs if name in arrays)]
    for name, array in arrays.items():
        if array.dtype != first.dtype or array.size != first.size:
            raise ValueError(
                f"{spec.name}'s inputs must share one dtype and size: {name} is {array.dtype} "
                f"of {array.size}, not {first.dtype} of {first.size}"
            )
    if first.size == 0:
        raise ValueError(f"{spec.name}'s inputs are empty: a kernel is never launched for them")
    return {name: np.ascontiguousarray(array).ravel() for name, array in arrays.items()}


def run_operator(
    spec: OperatorSpec,
    inputs: Mapping[str, npt.ArrayLike],
    tiling: bytes,
    block_dim: int,
    tiles: int,
    *,
    on: str | Platform = DEFAULT_PLATFORM,
    trace: bool = False,
    numerics: str | None = None,
    kernel_dir: Path | None = None,
    isolated: bool = True,
) -> OperatorRun:
    """Run ``spec``'s kernel on the twin for ``inputs`` (by name), elementwise.

    Parameters
    ----------
    spec
        The operator; its twin library is built for the inputs' dtype (from ``kernel_dir``,
        default its folder).
    inputs
        Arrays of one dtype and one size by input name; an optional input may be left out.
    tiling, block_dim, tiles
        The tiling data's bytes as the entry reads them, the cores to run and the most tiles
        one core walks (the worker's budget of AscendC calls).
    on, trace, numerics, kernel_dir
        As for :func:`mishgrad.kernel.twin.run_kernel` (``kernel_dir``: a copy of the
        operator's folder to build from).
    isolated
        Run in the worker process (default: a new operator's kernel may crash or hang).

    Raises
    ------
    ValueError
        For missing or unknown inputs, inputs of different dtypes or sizes, empty inputs, a
        dtype the operator does not support, or an unknown numerics model.
    KernelError
        As for :func:`launch`.
    """
    flat = _flat_inputs(spec, inputs)
    like = next(iter(flat.values()))
    dtype = dtype_name(as_dtype(like.dtype))
    config = twin_config(platform(on), None, trace, numerics)
    outputs = {name: np.empty_like(like) for name in spec.outputs}
    tensors = {**flat, **outputs}
    entry = spec.entry(dtype)  # refuses an unsupported dtype before anything is built
    one = Launch(entry, spec.arguments, tensors, spec.outputs, tiling, block_dim, tiles)
    path = build(kernel_spec(root=kernel_dir, dtype=dtype, operator=spec))
    log, events = launch(path, one, config, isolated=isolated)
    return OperatorRun(outputs, events, log)
