"""The documented float32 sample on which float32 accuracy is measured.

float32 has 2**32 values, too many to enumerate in a notebook, so accuracy is measured
on a fixed, reproducible sample made of three parts:

``grid``
    Points equally spaced in the *ordered-integer* space of float32 between -120 and
    120 (see :func:`mishgrad.math.dtypes.ordered`): every binade from the subnormals up to
    64 gets the same number of points, so tiny, moderate and large |x| are all covered.
``uniform``
    Draws from uniform[-20, 20] with a fixed seed: the distribution the share of
    results within 1 ULP is reported for.
``root``
    Every ``root_stride``-th float32 in the root window [-1.25, -1.15], where d crosses
    zero and absolute error is what counts.
"""

from typing import Final

import numpy as np

from .dtypes import float32, from_ordered, ordered
from .errors import ROOT_WINDOW

#: Seed of the uniform part; fixed so every figure in the notebooks is reproducible.
SEED: Final = 20251223


def float32_grid(lo: float, hi: float, count: int) -> np.ndarray:
    """``count`` float32 values equally spaced in ordered-integer space over [lo, hi]."""
    ends = ordered(np.array([lo, hi], dtype=float32))
    keys = np.unique(np.linspace(ends[0], ends[1], count).round().astype(np.int64))
    return from_ordered(keys, float32)


def float32_every(lo: float, hi: float, stride: int = 1) -> np.ndarray:
    """Every ``stride``-th float32 in [lo, hi]."""
    ends = ordered(np.array([lo, hi], dtype=float32))
    return from_ordered(np.arange(ends[0], ends[1] + 1, stride), float32)


def float32_uniform(count: int, lo: float = -20.0, hi: float = 20.0) -> np.ndarray:
    """``count`` seeded draws from uniform[lo, hi], rounded to float32."""
    return np.random.default_rng(SEED).uniform(lo, hi, count).astype(float32)


def float32_sample(
    grid_count: int = 1 << 20, uniform_count: int = 1 << 20, root_stride: int = 8
) -> dict[str, np.ndarray]:
    """The documented float32 sample, as its three named parts (see the module doc)."""
    return {
        "grid": float32_grid(-120.0, 120.0, grid_count),
        "uniform": float32_uniform(uniform_count),
        "root": float32_every(*ROOT_WINDOW, root_stride),
    }
