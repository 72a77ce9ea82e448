"""Shared fixtures: exhaustive 16-bit inputs and the float32 sample, each computed once."""

from __future__ import annotations

import numpy as np
import pytest

from mishgrad.math import dtypes, oracle, samples


@pytest.fixture(scope="session", params=["float16", "bfloat16"])
def exhaustive(request: pytest.FixtureRequest) -> tuple[np.ndarray, np.ndarray]:
    """Every finite value of a 16-bit dtype and its correctly rounded dmish/dx."""
    x = dtypes.all_values(request.param)
    return x, oracle.dmish_oracle(x)


@pytest.fixture(scope="session")
def float32_sample() -> dict[str, np.ndarray]:
    """The documented float32 sample (smaller than the benchmark's, same construction)."""
    return samples.float32_sample(grid_count=1 << 18, uniform_count=1 << 18, root_stride=64)
