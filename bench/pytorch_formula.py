"""PyTorch's CPU formula for Mish's gradient in NumPy: what a user compares the kernel with.

Notebook 03 writes the same function out (``pytorch_formula``); ``bench/accuracy_runs.py``
and ``bench/exhaustive_run.py`` measure it beside the kernel, and the tests hold the notebook's
to this one.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mishgrad.math.dtypes import float32
from mishgrad.math.numerics import float32_formula


def _rounded(function: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray:
    """``function`` of float32 ``x`` evaluated in float64 and rounded once to float32."""
    return function(x.astype(np.float64)).astype(float32)


@float32_formula
def dmish_pytorch(x: np.ndarray) -> np.ndarray:
    """PyTorch's CPU ``mish_backward`` (grad = 1) as its source writes it, in float32.

    ``sigmoid = 1 / (1 + e^-x)``, ``t = tanh(log1p(e^x))``, ``d = t + x sigmoid (1 - t^2)``
    (``mish_backward_kernel`` in pytorch/pytorch's ``aten/src/ATen/native/cpu/Activation.cpp``
    at 02def0c, which notebook 03 cites). Every arithmetic step rounds to float32;
    ``exp``, ``log1p`` and ``tanh`` are rounded once from float64, the best a float32 library
    can do (PyTorch's vectorized ones are within an ulp). It returns NaN at +-inf (``inf * 0``).
    """
    one = float32.type(1)
    sigmoid = one / (one + _rounded(np.exp, -x))
    t = _rounded(np.tanh, _rounded(np.log1p, _rounded(np.exp, x)))
    return t + x * sigmoid * (one - t * t)
