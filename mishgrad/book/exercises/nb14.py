"""Notebook 14: SiluGrad, written by the learner into a copy of its skeleton.

The learner's kernel is their scratch copy of ``kernel/silu_grad`` (:data:`SILU_GRAD`'s
folder), run isolated on the twin (:func:`run`) for every finite float16 and bfloat16 value
and for a float32 sample (:func:`judged_inputs`), with grads that are powers of two, against
the correctly rounded oracle. The inputs and their truths are computed once per process.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Final

import numpy as np

from mishgrad.kernel.launcher import OperatorRun, run_operator
from mishgrad.kernel.operators import SILU_GRAD, SILU_GRAD_REGIONS
from mishgrad.kernel.scratch import ScratchKernel
from mishgrad.math import dtypes
from mishgrad.math.oracle import silu_backward_oracle

#: The file the learner writes Compute in; elements per full tile; cores of every launch.
KERNEL_FILE: Final = "op_kernel/silu_grad.h"
TILE_LENGTH: Final = 2048
CORES: Final = 7
#: The zero of d, x0 = -1 - W(1/e); the window around it and d's subnormal edge.
ZERO: Final = -1.2784645427610738
REGIONS: Final = SILU_GRAD_REGIONS
WINDOW: Final = REGIONS.window
_F32 = dtypes.TABLE["float32"]
#: The dtypes in the order they are judged, and what the count answer must be.
DTYPES: Final = ("float16", "bfloat16", "float32")
COUNT_USAGE: Final = "answer with a whole number: your kernel's vector instructions per element"
#: The float32 sample starts with this many uniform[-20, 20] inputs.
UNIFORM: Final = 20_000


def tiling(n: int, cores: int = CORES) -> tuple[bytes, int, int]:
    """SiluGradTilingData for ``n`` elements, the cores it starts, and the most tiles of one."""
    core = _ceil(_ceil(n, cores), 64) * 64  # a share of n, rounded up to 64 elements
    fields = [(n, core, TILE_LENGTH, 0)]
    return np.array(fields, "<u8,<u8,<u4,<u4").tobytes(), _ceil(n, core), _ceil(core, TILE_LENGTH)


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def run(
    kernel_dir: Path | ScratchKernel,
    grad: np.ndarray,
    x: np.ndarray,
    *,
    numerics: str | None = None,
    trace: bool = False,
) -> OperatorRun:
    """SiluGrad's kernel built from ``kernel_dir`` (a copy of its folder), isolated, on 7 cores."""
    folder = kernel_dir.path if isinstance(kernel_dir, ScratchKernel) else kernel_dir
    data, cores, tiles = tiling(x.size)
    inputs = {"grad": grad, "x": x}
    return run_operator(
        SILU_GRAD, inputs, data, cores, tiles, trace=trace, numerics=numerics, kernel_dir=folder
    )


def _float32_sample(rng: np.random.Generator) -> np.ndarray:
    below, above = (np.float32(ZERO + side).view(np.uint32) for side in (3e-4, -3e-4))
    parts = [
        rng.uniform(-20, 20, UNIFORM),  # the within-1-ULP share is taken on these
        rng.uniform(0, 40, 8_000),
        np.arange(below, above, dtype=np.uint32).view(np.float32),  # every float near x0
        rng.uniform(*WINDOW, 4_000),
        rng.uniform(-100, -80, 4_000),  # the overflow band of e^-x, and d's subnormal edge
        rng.uniform(-200, -100, 500),
        _quiet(rng.integers(0, 2**32, 5_000, dtype=np.uint64).astype(np.uint32).view(np.float32)),
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4e38, -3.4e38],
    ]
    x = np.concatenate([np.asarray(part, np.float32) for part in parts])
    return x if x.size % 2 else x[:-1]  # an odd length: a tail in the last core's last tile


def _quiet(x: np.ndarray) -> np.ndarray:
    """``x`` with every NaN the quiet one (a signalling NaN warns as NumPy widens it)."""
    return np.where(np.isnan(x), np.float32(np.nan), x)


@functools.cache
def judged_inputs(dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The checker's (grad, x, truth) for ``dtype``: grads ±1, 2, 1/2, -1/4 scale d exactly."""
    kind = dtypes.as_dtype(dtype)
    rng = np.random.default_rng(1414)
    if dtype == "float32":
        x = _float32_sample(rng)
    else:
        specials = np.array([np.inf, -np.inf, np.nan], kind)
        x = np.concatenate([dtypes.all_values(kind), specials])
    grad = rng.choice(np.array([1.0, -1.0, 2.0, 0.5, -0.25], kind), x.size)
    with np.errstate(invalid="ignore"):  # ml_dtypes warns as it widens a bfloat16 NaN
        return grad, x, silu_backward_oracle(grad, x)
