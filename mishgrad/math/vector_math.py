"""The twin's vector ``Exp`` and ``Div`` under each numerics model, in NumPy.

The CPU twin rounds the kernel's ``Exp`` and ``Div`` as one of three models (see
``kernel/twin/include/twin/numerics.h`` for the model and the AscendC pages it follows):

``ieee``
    ``Exp`` is the C library's ``expf``, ``Div`` IEEE division.
``hardware``
    Faithful: one of the two float32 neighbours of the exact value (the value itself when
    it is a float32), picked by a hash of the operands' bit patterns; a subnormal result is
    flushed to a zero of its sign.
``adversarial``
    As ``hardware``, but always the neighbour farther from the exact value.

This module repeats the twin's C++ operation for operation, so that for the same operands
and model it returns the same bits (``tests/test_numerics_model.py`` checks it), and the
NumPy model of the kernel can reproduce the kernel under each model. One exception: under
``ieee`` :func:`exp` is the correctly rounded exponential (NumPy cannot call the C library's
``expf`` element by element), which glibc's ``expf`` matches except where its own error
exceeds half an ulp (a fraction of a percent of inputs; both are within one ulp).
"""

import math
from typing import Final

import numpy as np
import numpy.typing as npt

from .dtypes import as_input

#: The numerics models of the twin's Exp and Div (the module doc), in ``MishGradTwinNumerics``
#: order; the twin's C++ is ``kernel/twin/src/numerics.cpp``.
NUMERICS_MODELS: Final = ("ieee", "hardware", "adversarial")

# exp(x) = 2^k * exp(r), r = x - k ln2 (Cody and Waite), exp(r) a Taylor polynomial of
# degree 12 (Estrin's scheme): the constants and the order of operations of
# twin/src/numerics.cpp.
_INV_LN2: Final = float.fromhex("0x1.71547652b82fep+0")
_LN2_HI: Final = float.fromhex("0x1.62e42fee00000p-1")
_LN2_LO: Final = float.fromhex("0x1.a39ef35793c76p-33")
_ROUNDING_SHIFT: Final = 1.5 * 2.0**52
_TAYLOR: Final = tuple(1.0 / math.factorial(n) for n in range(13))
_EXP_TOLERANCE: Final = 2.0**-49
_EXP_NEAR_ZERO: Final = np.float32(2.0**-30)
_EXP_OVERFLOW: Final = np.float32(89.0)
_EXP_UNDERFLOW: Final = np.float32(-88.0)
_EXP_SALT: Final = np.uint64(0x6578700000000000)
_DIV_SALT: Final = np.uint64(0x6469760000000000)
_TWO_TO_128: Final = 2.0**128  # where +inf stands on the float32 grid
_FLT_MIN: Final = np.finfo(np.float32).tiny


def check_model(model: str, name: str = "model") -> None:
    """Refuse (ValueError, naming ``name``) a model not in :data:`NUMERICS_MODELS`."""
    if model not in NUMERICS_MODELS:
        raise ValueError(f"{name} is {model!r}; it must be one of {', '.join(NUMERICS_MODELS)}")


def _float32(name: str, values: npt.ArrayLike) -> np.ndarray:
    """``values`` as native float32 (any byte order; lists are float32), else refused by name."""
    array = as_input(values)
    if array.dtype != np.float32:
        raise TypeError(f"{name} has dtype {array.dtype}; the vector unit computes in float32")
    return array


def _mix(key: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer on uint64 (wrapping arithmetic, as in C++)."""
    z = key + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _take_high(model: str, high_is_farther: np.ndarray, key: np.ndarray) -> np.ndarray:
    if model == "adversarial":
        return high_is_farther
    return (_mix(key) >> np.uint64(63)) != 0


def _bits(values: np.ndarray) -> np.ndarray:
    return values.view(np.uint32).astype(np.uint64)


def _pick(exact: np.ndarray, tolerance: float, key: np.ndarray, model: str) -> np.ndarray:
    """A float32 neighbour of each finite nonzero ``exact`` (float64), flushed if subnormal."""
    magnitude = np.abs(exact)
    nearest = magnitude.astype(np.float32)
    nearest_value = np.where(np.isinf(nearest), _TWO_TO_128, nearest.astype(np.float64))
    decided = np.abs(magnitude - nearest_value) <= tolerance * magnitude
    low = np.where(nearest_value < magnitude, nearest, np.nextafter(nearest, np.float32(0)))
    high = np.nextafter(low, np.float32(np.inf))
    high_value = np.where(np.isinf(high), _TWO_TO_128, high.astype(np.float64))
    farther = magnitude - low <= high_value - magnitude
    chosen = np.where(decided, nearest, np.where(_take_high(model, farther, key), high, low))
    chosen = np.where(magnitude >= _TWO_TO_128, np.float32(np.inf), chosen)
    chosen = np.where(chosen < _FLT_MIN, np.float32(0), chosen)
    return np.where(np.signbit(exact), -chosen, chosen).astype(np.float32)


def _exp_double(x: np.ndarray) -> np.ndarray:
    xd = x.astype(np.float64)
    k = (xd * _INV_LN2 + _ROUNDING_SHIFT) - _ROUNDING_SHIFT
    r = (xd - k * _LN2_HI) - k * _LN2_LO
    r2 = r * r
    r4 = r2 * r2
    c = _TAYLOR
    low = (c[0] + c[1] * r) + (c[2] + c[3] * r) * r2
    middle = (c[4] + c[5] * r) + (c[6] + c[7] * r) * r2
    high = (c[8] + c[9] * r) + (c[10] + c[11] * r) * r2 + c[12] * r4
    p = low + (middle + high * r4) * r4
    power = ((k.astype(np.int64) + 1023) << 52).view(np.float64)  # 2^k
    return p * power


def _exp_near_zero(x: np.ndarray, key: np.ndarray, model: str) -> np.ndarray:
    """exp(x) for 0 < |x| < 2^-30: 1, or the float32 next to 1 on x's side."""
    one = np.float32(1)
    low = np.where(x > 0, one, np.nextafter(one, np.float32(0)))
    high = np.nextafter(low, np.float32(2))
    return np.where(_take_high(model, x > 0, key), high, low)


def exp(x: npt.ArrayLike, model: str = "ieee") -> np.ndarray:
    """``Exp`` of the twin's vector unit under ``model``, element by element.

    ``x`` is float32 (any byte order; lists are float32); the result is float32, its shape.

    Raises
    ------
    TypeError
        If ``x`` is not float32.
    ValueError
        If ``model`` is not one of :data:`NUMERICS_MODELS`.
    """
    x = _float32("x", x)
    check_model(model)
    with np.errstate(all="ignore"):
        if model == "ieee":
            return np.exp(x.astype(np.float64)).astype(np.float32)
        shape, x = x.shape, np.atleast_1d(x)
        key = _bits(x) ^ _EXP_SALT
        exact = _exp_double(np.clip(x, _EXP_UNDERFLOW, _EXP_OVERFLOW))
        picked = _pick(exact, _EXP_TOLERANCE, key, model)
        result = np.where(np.abs(x) < _EXP_NEAR_ZERO, _exp_near_zero(x, key, model), picked)
        result = np.where(x == 0, np.float32(1), result)
        result = np.where(x < _EXP_UNDERFLOW, np.float32(0), result)
        result = np.where(np.isnan(x) | (x > _EXP_OVERFLOW), x + np.float32(np.inf), result)
    return result.astype(np.float32).reshape(shape)


def div(a: npt.ArrayLike, b: npt.ArrayLike, model: str = "ieee") -> np.ndarray:
    """``Div`` (``a / b``) of the twin's vector unit under ``model``, element by element.

    ``a`` and ``b`` are float32 of one shape (any byte order; lists are float32); so is the
    result.

    Raises
    ------
    TypeError
        If ``a`` or ``b`` is not float32.
    ValueError
        If ``model`` is not one of :data:`NUMERICS_MODELS` or the shapes differ.
    """
    a, b = _float32("a", a), _float32("b", b)
    check_model(model)
    if a.shape != b.shape:
        raise ValueError(f"a has shape {a.shape}, b has {b.shape}; they must match")
    with np.errstate(all="ignore"):
        if model == "ieee":
            return a / b
        quotient = np.atleast_1d(a.astype(np.float64) / b.astype(np.float64))
        key = ((_bits(np.atleast_1d(a)) << np.uint64(32)) | _bits(np.atleast_1d(b))) ^ _DIV_SALT
        special = (quotient == 0) | ~np.isfinite(quotient)
        safe = np.where(special, 1.0, quotient)
        result = np.where(special, quotient.astype(np.float32), _pick(safe, 0.0, key, model))
    return result.astype(np.float32).reshape(a.shape)
