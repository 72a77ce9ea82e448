"""Checkers for notebook 10 (CANN's precision standard)."""

import math
from collections.abc import Callable
from typing import Final

import numpy as np

from mishgrad.evaluation import precision
from mishgrad.math import dtypes, oracle

from . import Verdict, checker, correct, learner_function, wrong
from .learner import learner_numbers, learner_whole_number, number_verdict

#: The dtypes the write-code exercise tries: (name, bits of the significand, smallest
#: normal exponent), so the ULP of every normal and subnormal value can be computed.
_FORMATS = {"float32": (23, -126), "float16": (10, -14), "bfloat16": (7, -126)}


def ulp_of(golden: np.ndarray, name: str) -> np.ndarray:
    """The ULP of each (representable) golden value in the dtype; the smallest subnormal at 0."""
    bits, min_exponent = _FORMATS[name]
    _, exponent = np.frexp(np.abs(golden))  # |g| = m 2**exponent with 0.5 <= m < 1
    # Subnormals and 0 share the ULP of the smallest normal binade.
    leading = np.where(golden == 0, min_exponent, np.maximum(exponent - 1, min_exponent))
    return np.ldexp(1.0, leading - bits)


def reference_allowed_ulps(golden: np.ndarray, name: str) -> np.ndarray:
    """MARE's allowance at each golden value, in ULPs of that value in the dtype."""
    return precision.allowed_abs_error(golden, name) / ulp_of(golden, name)


def _goldens(name: str, seed: int = 909) -> np.ndarray:
    """Golden values of the dtype from 0 to 1, dense near the floor 1e-7."""
    rng = np.random.default_rng(seed)
    values = np.concatenate([[0.0], 10.0 ** rng.uniform(-12, 0, 400)])
    values[1::2] *= -1
    return values.astype(dtypes.as_dtype(name)).astype(np.float64)


_ULPS_USAGE: Final = "return a NumPy array of numbers, one per golden value"


@learner_function("write a function allowed_ulps(golden, dtype_name) and pass it")
def check_allowed_ulps(function: Callable[..., object] | None) -> Verdict:
    """``function(golden, dtype_name)`` must return MARE's allowance in ULPs of each golden."""
    for name in _FORMATS:
        golden = _goldens(name)
        got = learner_numbers(function, golden, name, shape=golden.shape, usage=_ULPS_USAGE)
        if not np.allclose(got, reference_allowed_ulps(golden, name), rtol=1e-9, atol=0):
            return wrong(
                f"{name}: the allowance is 10 T (|g| + 1e-7); divide by the "
                "spacing of the dtype's numbers at |g| (at 0: the smallest subnormal)"
            )
    return correct(
        "for |g| well above 1e-7 the allowance is about the same number of ULPs at every "
        "magnitude; below it, the floor makes it grow without bound"
    )


#: The allowance exercise: the smallest positive float16 golden value at which an error of
#: two ULPs of that value passes MARE's limit (no notebook prints it, nor the one-ULP value).
_ALLOWANCE_DTYPE = "float16"
_ALLOWANCE_ULPS = 2


def ulps_pass_from(ulps: int = _ALLOWANCE_ULPS) -> float:
    """The smallest positive golden value of the dtype at which an error of ``ulps`` ULPs passes."""
    positive = dtypes.all_values(_ALLOWANCE_DTYPE)
    positive = positive[positive > 0].astype(np.float64)
    passes = ulps * ulp_of(positive, _ALLOWANCE_DTYPE) < precision.allowed_abs_error(
        positive, _ALLOWANCE_DTYPE
    )
    return float(positive[passes].min())


@checker
def check_allowance(answer: object) -> Verdict:
    """The smallest positive float16 golden value at which a two-ULP error passes MARE."""
    expected = ulps_pass_from()
    return number_verdict(
        answer,
        dtypes.as_dtype(_ALLOWANCE_DTYPE),
        expected,
        hint="not quite — hint: where is the ULP of a float16 value constant while the "
        "allowance 10 T (|g| + 1e-7) grows? Do not forget the floor",
        off_grid="your g is not a float16 value, and the answer is one: the smallest positive "
        "float16 g at which two ULPs of g pass. Which float16 values are the neighbours of "
        "yours, and does a two-ULP error pass at each?",
    )


#: The sample-size exercise: the tanhx branch in float16, whose saved t is rounded to float16.
_STRETCH_DTYPE = "float16"


def stretch_width(name: str = _STRETCH_DTYPE) -> float:
    """Width of the stretch around the zero x0 of d where a t + p form breaks MARE in ``name``.

    There |d| is below ``g_break``: half an ULP (in ``name``) of t(x0), divided by the MARE
    limit of ``name``, less the floor. Measured with the oracle on a float32 grid of step
    1e-6 over [-1.35, -1.05], which holds the stretch for the 16-bit dtypes.
    """
    grid = np.linspace(-1.35, -1.05, 300_001).astype(np.float32)
    d = oracle.dmish_oracle(grid).astype(np.float64)
    crossing = np.flatnonzero(np.diff(np.signbit(d)))[0]
    t0 = oracle.tanh_softplus_oracle(grid[crossing : crossing + 1])[0]
    half_ulp = float(np.spacing(np.asarray(t0).astype(dtypes.as_dtype(name)))) / 2
    limit = precision.MARE_FACTOR * precision.threshold(name)
    g_break = half_ulp / limit - precision.FLOOR
    inside = grid[np.abs(d) < g_break].astype(np.float64)
    return float(inside.max() - inside.min())


#: CANN's current case generation draws half its values from uniform [-5, 5] (opbase
#: experimental_standard.md, section 1.2).
_UNIFORM_SPAN, _UNIFORM_SHARE = 10.0, 0.5


@checker
def check_sample_size(answer: object) -> Verdict:
    """Smallest k such that 10**k points, half from uniform[-5, 5], expect one in the stretch."""
    k = learner_whole_number(answer, usage="answer with the exponent k, a whole number")
    expected = math.ceil(math.log10(_UNIFORM_SPAN / (_UNIFORM_SHARE * stretch_width())))
    if k == expected:
        return correct(
            f"10**{expected} points: a smaller float16 test may well miss the stretch, and "
            "then the tanhx branch passes it"
        )
    return wrong(
        "expected points in the stretch = (points drawn uniformly) × width / (length of the "
        "interval); the width follows from float16's T and the float16 ULP of t at x0"
    )
