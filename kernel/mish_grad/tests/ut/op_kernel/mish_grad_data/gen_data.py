"""Inputs and golden of MishGrad's kernel unit test (ops-nn's gen_data.py convention).

Usage: ``python3 gen_data.py N DTYPE [tanhx]`` writes ``input_grad.bin``, ``input_x.bin``
(and ``input_tanhx.bin``) and ``golden.bin`` into the current folder: N elements of DTYPE
(float32, float16 or bfloat16), raw little-endian. Needs NumPy only (``mish_grad_golden``,
beside this script, holds the logic).

x is uniform on [-20, 20] with special values at the front (``mish_grad_golden.SPECIAL``).
The golden is ``grad * dmish/dx(x)`` in float64, rounded once to DTYPE. With tanhx, the
forward pass's t = tanh(softplus(x)) rounded to DTYPE is a third input, and the operator
computes grad * (t + x * sigmoid(x) * (1 - t^2)) from that t: the golden is this function of
the three inputs, in float64, rounded once (the exact derivative assumes an exact t, which no
DTYPE input can hold; notebook 10 shows the difference).
"""

from __future__ import annotations

import sys
from pathlib import Path

# python3 puts a script's folder on sys.path; this does it too when the file is loaded from
# elsewhere (notebook 13 takes ``inputs`` from it).
sys.path.insert(0, str(Path(__file__).resolve().parent))
import mish_grad_golden as mg
from mish_grad_golden import inputs


def main(argv: list[str]) -> None:
    """Write the input and golden files for ``argv = [_, N, DTYPE, (tanhx)]``."""
    n, dtype = int(argv[1]), mg.check_dtype(argv[2])
    grad, x = (mg.from_float32(a, dtype) for a in inputs(n))
    grad.tofile("input_grad.bin")
    x.tofile("input_x.bin")
    if argv[3:] == ["tanhx"]:
        t = mg.tanh_softplus(x, dtype)
        t.tofile("input_tanhx.bin")
        golden = mg.golden_with_tanhx(grad, x, t, dtype)
    else:
        golden = mg.golden(grad, x, dtype)
    golden.tofile("golden.bin")


if __name__ == "__main__":
    main(sys.argv)
