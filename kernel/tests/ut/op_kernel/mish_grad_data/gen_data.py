"""Inputs and golden of MishGrad's kernel unit test (ops-nn's gen_data.py convention).

Usage: ``python3 gen_data.py N DTYPE [tanhx]`` writes ``input_grad.bin``, ``input_x.bin``
(and ``input_tanhx.bin``) and ``golden.bin`` into the current folder: N elements of DTYPE
(float32, float16 or bfloat16), raw little-endian. The golden is the correctly rounded
``grad * dmish/dx(x)`` of :mod:`mishgrad.math.oracle`.

x is uniform on [-20, 20] with the special values at the front (1e30 becomes inf in the
16-bit types). With tanhx, the forward pass's t = tanh(softplus(x)) correctly rounded to DTYPE
is a third input, and the operator computes grad * (t + x * sigmoid(x) * (1 - t^2)) from that
t: the golden is this function of the three inputs, in float64, rounded once (the oracle's
truth assumes an exact t, which no DTYPE input can hold; notebook 09 shows the difference).
"""

from __future__ import annotations

import sys

import numpy as np

from mishgrad.math import oracle, samples
from mishgrad.math.dtypes import as_dtype

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, 1e30, -1e30, 88.0, -88.0], dtype=np.float32)


def inputs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The float32 grad and x: seeded, x uniform on [-20, 20] after the special values."""
    rng = np.random.default_rng(samples.SEED)
    x = rng.uniform(-20.0, 20.0, n).astype(np.float32)
    x[: min(n, SPECIAL.size)] = SPECIAL[:n]
    grad = rng.uniform(-2.0, 2.0, n).astype(np.float32)
    return grad, x


def golden_with_tanhx(grad: np.ndarray, x: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The operator from a given t: grad * (t + x s (1 - t^2)) in float64, rounded to the dtype."""
    g64, x64, t64 = (a.astype(np.float64) for a in (grad, x, t))
    with np.errstate(over="ignore", invalid="ignore"):
        sigmoid = np.where(x64 >= 0, 1 / (1 + np.exp(-x64)), np.exp(x64) / (1 + np.exp(x64)))
        d = np.where(np.isfinite(x64), t64 + x64 * sigmoid * (1 - t64 * t64), (x64 > 0) * 1.0)
    return (g64 * d).astype(x.dtype)


def main(argv: list[str]) -> None:
    """Write the input and golden files for ``argv = [_, N, DTYPE, (tanhx)]``."""
    n, dtype = int(argv[1]), as_dtype(argv[2])
    with np.errstate(over="ignore"):  # 1e30 overflows the 16-bit types to inf, on purpose
        grad, x = (a.astype(dtype) for a in inputs(n))
    grad.tofile("input_grad.bin")
    x.tofile("input_x.bin")
    if argv[3:] == ["tanhx"]:
        t = oracle.tanh_softplus_oracle(x, dtype)
        t.tofile("input_tanhx.bin")
        golden = golden_with_tanhx(grad, x, t)
    else:
        golden = oracle.mish_backward_oracle(grad, x, dtype)
    golden.tofile("golden.bin")


if __name__ == "__main__":
    main(sys.argv)
