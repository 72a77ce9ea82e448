"""SiluGrad, the capstone's operator: its oracle, its regions, its tiling and its skeleton.

The oracle is held to 60-digit mpmath of sigma (1 + x (1 - sigma)) directly (not the form it
evaluates), and to the exact ties of d(0) = 1/2; the regions to the zero x0 = -1 - W(1/e); the
tiling to covering every element once; the skeleton, whose Compute is empty, to building for
every dtype and failing clearly, isolated, where CopyOut finds no tile.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from mishgrad.book.exercises import nb14
from mishgrad.kernel.isolation import KernelError
from mishgrad.kernel.operators import SILU_GRAD, SILU_GRAD_REGIONS
from mishgrad.math import dtypes, errors
from mishgrad.math.oracle import dsilu_oracle, silu_backward_oracle


def _silu_mp(x: float) -> mpmath.mpf:
    with mpmath.workdps(80):
        return mpmath.diff(lambda t: t / (1 + mpmath.exp(-t)), mpmath.mpf(float(x)))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_the_oracle_rounds_mpmaths_derivative_correctly(dtype: str) -> None:
    rng = np.random.default_rng(34)
    x = np.concatenate([rng.uniform(-95, 40, 300), nb14.ZERO + rng.uniform(-1e-3, 1e-3, 100)])
    x = x.astype(dtypes.as_dtype(dtype))
    keys = dtypes.ordered(dsilu_oracle(x))
    for value, key in zip(x, keys, strict=True):
        exact = _silu_mp(float(value))
        below, rounded, above = dtypes.from_ordered([key - 1, key, key + 1], x.dtype).tolist()
        # No neighbour of the rounded value is nearer the exact one.
        assert abs(exact - rounded) <= min(abs(exact - below), abs(exact - above)), value


def test_the_oracle_has_the_limits_and_rounds_ties_to_even() -> None:
    special = np.array([np.inf, -np.inf, np.nan, 0.0], np.float16)
    assert [str(v) for v in dsilu_oracle(special)] == ["1.0", "0.0", "nan", "0.5"]
    # grad * d(0) = grad / 2 exactly: a midpoint of float16 for the smallest subnormals.
    tiny = np.array([2.0**-24, 3 * 2.0**-24, -(2.0**-24)], np.float16)
    halves = silu_backward_oracle(tiny, np.zeros(3, np.float16))
    assert halves.tolist() == [0.0, 2.0**-23, -0.0]
    assert np.signbit(halves[2])


def test_the_window_holds_the_zero_of_d_and_the_edge_is_where_d_turns_subnormal() -> None:
    with mpmath.workdps(40):
        zero = float(-1 - mpmath.lambertw(1 / mpmath.e).real)
    assert zero == pytest.approx(nb14.ZERO, abs=1e-15)
    low, high = SILU_GRAD_REGIONS.window
    assert low < zero < high and high - low < 0.11
    edge = np.array([SILU_GRAD_REGIONS.subnormal_edge], np.float32)
    below = np.nextafter(edge, np.float32(-np.inf))
    assert abs(dsilu_oracle(edge)[0]) >= errors.FLOAT32_TINY > abs(dsilu_oracle(below)[0])
    assert SILU_GRAD.regions is SILU_GRAD_REGIONS


@pytest.mark.parametrize("n", [1, 63, 64, 2049, 14_337, 63_490, 100_003])
@pytest.mark.parametrize("cores", [1, 7, 48])
def test_the_tiling_covers_every_element_once(n: int, cores: int) -> None:
    data, blocks, tiles = nb14.tiling(n, cores)
    total, core, tile, reserved = np.frombuffer(data, "<u8,<u8,<u4,<u4")[0].tolist()
    assert (total, tile, reserved) == (n, nb14.TILE_LENGTH, 0) and core % 64 == 0
    starts = np.arange(blocks) * core
    lengths = np.minimum(core, n - starts)
    assert blocks <= cores and (lengths > 0).all() and lengths.sum() == n
    assert tiles == -(-core // tile)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_the_skeleton_builds_and_its_empty_compute_fails_clearly(dtype: str) -> None:
    x = np.linspace(-3, 3, 1000).astype(dtypes.as_dtype(dtype))
    with pytest.raises(KernelError, match=r"TQue::DeQue: the VECOUT queue .* is empty"):
        nb14.run(SILU_GRAD.directory, np.ones_like(x), x)
