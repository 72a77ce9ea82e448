"""Any operator's kernel on the twin, given by its spec and its inputs (the second operator).

:func:`run_operator` builds the operator's twin library for the inputs' dtype, models the
platform and runs one :class:`~mishgrad.kernel.twin_abi.Launch` through
:func:`mishgrad.kernel.launcher.launch`, as :func:`mishgrad.kernel.twin.run_kernel` does for
MishGrad.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from mishgrad.kernel.isolation import Watchdog
from mishgrad.kernel.launcher import launch, twin_config
from mishgrad.kernel.operators import OperatorSpec
from mishgrad.kernel.platforms import DEFAULT_PLATFORM, Platform, platform
from mishgrad.kernel.twin_abi import Launch
from mishgrad.kernel.twin_build import build, kernel_spec
from mishgrad.math.dtypes import as_dtype, as_input, dtype_name


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
    host_threads: int | None = None,
    trace: bool = False,
    numerics: str | None = None,
    kernel_dir: Path | None = None,
    isolated: bool = True,
    watchdog: Watchdog | None = None,
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
    on, host_threads, trace, numerics, kernel_dir, watchdog
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
        As for :func:`mishgrad.kernel.launcher.launch`.

    """
    flat = _flat_inputs(spec, inputs)
    like = next(iter(flat.values()))
    dtype = dtype_name(as_dtype(like.dtype))
    config = twin_config(platform(on), host_threads, trace, numerics)
    outputs = {name: np.empty_like(like) for name in spec.outputs}
    tensors = {**flat, **outputs}
    entry = spec.entry(dtype)  # refuses an unsupported dtype before anything is built
    one = Launch(entry, spec.arguments, tensors, spec.outputs, tiling, block_dim, tiles)
    path = build(kernel_spec(root=kernel_dir, dtype=dtype, operator=spec))
    log, events = launch(path, one, config, isolated=isolated, watchdog=watchdog)
    return OperatorRun(outputs, events, log)
