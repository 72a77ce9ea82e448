"""Checkers for notebook 11 (the NPU's arithmetic): ``Div`` under the ``adversarial`` model."""

from collections.abc import Callable
from typing import Final

import numpy as np

from mishgrad.math import vector_math

from . import Verdict, correct, learner_function, wrong
from .learner import learner_numbers

#: The exercise's model: the farther float32 neighbour, subnormal results flushed.
_MODEL = "adversarial"


def operands(seed: int = 1111, count: int = 600) -> tuple[np.ndarray, np.ndarray]:
    """float32 ``a`` and ``b`` whose quotients are finite and nonzero, of either sign.

    Most quotients are normal floats across the exponent range; some are exact (a power of two
    times the divisor), and some far below the smallest normal float32 (flushed). None lies
    near the edge of the normal range, where the model picks before it flushes.
    """
    rng = np.random.default_rng(seed)
    a = rng.uniform(1, 2, count) * 2.0 ** rng.integers(-60, 60, count)
    b = rng.uniform(1, 2, count) * 2.0 ** rng.integers(-60, 60, count)
    a[:40] = rng.uniform(1, 2, 40) * 2.0**-100  # quotients near 2**-140: subnormal
    b[:40] = rng.uniform(1, 2, 40) * 2.0**40
    a, b = a.astype(np.float32), b.astype(np.float32)
    a[40:60] = b[40:60] * np.float32(4)  # exact quotients: 4 is a float32
    a[::3] *= -1
    b[1::5] *= -1
    return a, b


_QUOTIENTS_USAGE: Final = "return a NumPy array of float32 numbers, one quotient per pair"


@learner_function("write a function adversarial_div(a, b) and pass it")
def check_adversarial_div(function: Callable[..., object] | None) -> Verdict:
    """``function(a, b)`` must round each quotient as the twin's ``adversarial`` model does."""
    a, b = operands()
    got = learner_numbers(function, a, b, shape=a.shape, usage=_QUOTIENTS_USAGE)
    expected = vector_math.div(a, b, _MODEL).astype(np.float64)
    if np.array_equal(got, expected):
        return correct(
            "every quotient is one ULP from the correctly rounded one, or exact, or flushed: "
            "faithful, as AscendC documents Div, and as far off as that allows"
        )
    nearest = (a / b).astype(np.float64)
    if np.array_equal(got, nearest):
        return wrong(
            "that is the correctly rounded quotient, what the ieee model returns; the "
            "adversarial model takes the other float32 neighbour"
        )
    normal = np.abs(expected) >= np.finfo(np.float32).tiny
    if np.array_equal(got[normal], expected[normal]):
        return wrong(
            "right for normal results; a result below the smallest normal float32 is "
            "flushed to zero"
        )
    return wrong(
        "take the float32 neighbour of the quotient farther from it (the quotient itself "
        "where it is a float32), with the quotient's sign"
    )
