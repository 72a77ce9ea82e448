"""Measuring throughput: elements per second, the median of several timed runs.

Used by ``bench/kernel.py`` and notebook 12. Timings depend on the machine and its load;
notebooks print them only in cells that nbval ignores.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from mishgrad.math import oracle


def inputs(n: int, dtype: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seeded ``grad`` (normal), ``x`` (uniform on [-20, 20]) and the correctly rounded tanhx."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-20, 20, n).astype(dtype)
    return rng.normal(size=n).astype(dtype), x, oracle.tanh_softplus_oracle(x)


def median_rate(function: Callable[..., object], arguments: tuple, runs: int = 7) -> float:
    """Elements per second of ``function(*arguments)``: the median of ``runs``, after a warm-up.

    The element count is the size of ``arguments[1]`` (``x``).
    """
    function(*arguments)  # warm up (and build the twin)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function(*arguments)
        times.append(time.perf_counter() - start)
    return arguments[1].size / statistics.median(times)
