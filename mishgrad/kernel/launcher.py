"""Any operator's kernel on the twin's launcher: one launch, in this process or isolated.

:func:`launch` runs one :class:`~mishgrad.kernel.twin_abi.Launch` (an entry, its arguments,
its tensors, its tiling bytes) on a twin library, in this process or in the worker process
(:mod:`mishgrad.kernel.isolation`), and returns the kernel's log and trace.
:func:`mishgrad.kernel.twin.run_kernel` is MishGrad's own, with its tiling, on top of
:func:`launch`; ``tests/operator_runs.py`` runs any other operator given by its
:class:`~mishgrad.kernel.operators.OperatorSpec` the same way.

The environment variable ``MISHGRAD_TWIN_NUMERICS`` chooses how the kernels' ``Exp`` and
``Div`` round (:func:`numerics_model`).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Final

import numpy as np

from mishgrad.math.vector_math import NUMERICS_MODELS

from . import isolation
from .isolation import KernelError, Watchdog
from .platforms import Platform
from .twin_abi import TRACE_DTYPE, Launch, TwinConfig, load, results, run_entry

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
