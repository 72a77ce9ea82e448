"""The reference oracle: correctly rounded values of Mish's gradient in any dtype (and SiLU's).

Every error figure in this project is measured against these values, so they must be right to
the last bit. The method is Ziv's "evaluate, then prove" (notebook 02 writes it out): evaluate
in float64, with the cancellation-free form and a rigorous error bound; the rounding to the
target dtype is proven where the whole interval ``approx +- bound`` lies strictly between the
midpoints around it; elsewhere (near a midpoint, near the root of d, where the terms cancel)
mpmath at :data:`MP_DIGITS` digits decides it by exact comparison with the midpoints.

This avoids two traps: a float64 value rounded to bfloat16 through float32 can round twice,
and ``float(mpf)`` is not guaranteed to round to nearest. Midpoints between neighbours of a
16- or 32-bit float are exact float64 numbers, so comparing against them is exact.
"""

from collections.abc import Callable
from typing import Final

import mpmath
import numpy as np
import numpy.typing as npt

from .dtypes import as_dtype, as_input, float_info, from_ordered, ordered

#: Significant decimal digits of the mpmath fallback: at least 50 are needed near the root of d
#: and for large |x| (the tests compare with 150-digit mpmath).
MP_DIGITS: Final = 60

#: Relative error allowance of the float64 evaluation, in units of 2**-53 times |t| + |p|.
#: Counting the roundings of the positive-only form (and ``exp`` within 1 ulp) bounds the
#: error by 33 units to first order (notebook 02 derives it); the slack only sends a few
#: more points to mpmath.
_F64_ERROR_UNITS: Final = 64.0
_UNIT: Final = 2.0**-53


def _flat_terms(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A flat float64 copy of x, and the two terms of ``d = t + x s (1 - t)(1 + t)`` there.

    In float64, cancellation-free; 0 stands in for +-inf and NaN.
    """
    x64 = x.astype(np.float64).ravel()
    finite = np.where(np.isfinite(x64), x64, 0.0)
    with np.errstate(all="ignore"):
        e = np.exp(-np.abs(finite))
        positive = finite > 0
        numerator = np.where(positive, 1 + 2 * e, e * (2 + e))
        one_minus_numerator = np.where(positive, 2 * e * e, 2.0)
        denominator = numerator + one_minus_numerator
        t = numerator / denominator
        s = np.where(positive, 1.0, e) / (1 + e)
        product = finite * s * (one_minus_numerator / denominator) * (1 + t)
    return x64, t, product


def dmish_mp(x: float) -> mpmath.mpf:
    """d(x) = dmish/dx at :data:`MP_DIGITS` digits, from the same cancellation-free form.

    Only the final ``t + product`` can cancel (near the root, x ~ -1.19); 60 digits leave
    more than 40 after the worst cancellation a float32 input can produce.
    """
    with mpmath.workdps(MP_DIGITS):
        xm = mpmath.mpf(float(x))
        e = mpmath.exp(-abs(xm))
        if xm > 0:
            numerator, one_minus_numerator, s = 1 + 2 * e, 2 * e * e, 1 / (1 + e)
        else:
            numerator, one_minus_numerator, s = e * (2 + e), mpmath.mpf(2), e / (1 + e)
        denominator = numerator + one_minus_numerator
        t = numerator / denominator
        return t + xm * s * (one_minus_numerator / denominator) * (1 + t)


def tanh_softplus_mp(x: float) -> mpmath.mpf:
    """t(x) = tanh(softplus(x)) at :data:`MP_DIGITS` digits."""
    with mpmath.workdps(MP_DIGITS):
        return mpmath.tanh(mpmath.log1p(mpmath.exp(mpmath.mpf(float(x)))))


def _neighbour_midpoints(candidate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The float64 midpoints between each candidate and its lower and upper neighbours.

    Infinity counts as the value one ULP past the largest finite one (float16: 65536), where
    the next binade would start: a value rounds to infinity from half an ULP past the largest
    finite value on (float16: 65520), not from halfway to infinity.
    """
    keys = ordered(candidate)
    beyond = 2.0 ** float_info(candidate.dtype).maxexp  # float16: 65536, float32: 2^128

    def finite(values: np.ndarray) -> np.ndarray:
        values = values.astype(np.float64)
        return np.where(np.isinf(values), np.copysign(beyond, values), values)

    with np.errstate(invalid="ignore"):  # past infinity the neighbour is NaN: no midpoint
        below = finite(from_ordered(keys - 1, candidate.dtype))
        above = finite(from_ordered(keys + 1, candidate.dtype))
        centre = finite(candidate)
        return (below + centre) / 2, (centre + above) / 2


def _round_exact(value: mpmath.mpf, dtype: np.dtype) -> np.generic:
    """Round an mpmath number to ``dtype``, to nearest with ties to even, exactly."""
    with np.errstate(over="ignore"):  # past the largest finite value: start from infinity
        key = int(ordered(np.array([float(value)]).astype(dtype))[0])
    while True:
        candidate = from_ordered(np.array([key]), dtype)
        low, high = (m[0] for m in _neighbour_midpoints(candidate))
        if value < low:
            key -= 1
        elif value > high:
            key += 1
        else:
            if value in (low, high) and key % 2:  # exactly halfway (SiLU's d(0) = 1/2): to even
                candidate = from_ordered(np.array([key + (1 if value == high else -1)]), dtype)
            result = candidate[0]
            return np.copysign(result, -1) if result == 0 and value < 0 else result


def correctly_round(
    approx: np.ndarray,
    bound: np.ndarray,
    dtype: npt.DTypeLike,
    exact: Callable[[int], mpmath.mpf],
) -> np.ndarray:
    """Round true values, known as ``approx +- bound``, correctly to ``dtype``, flattened.

    ``approx`` and ``bound`` are float64 approximations of the true values and absolute bounds
    on their error; ``exact(i)`` returns the i-th true value (flat index) as an mpmath number,
    and is called only where the float64 interval straddles a rounding midpoint. A zero takes
    the sign of ``approx``.
    """
    dtype = as_dtype(dtype)
    approx = np.asarray(approx, dtype=np.float64).ravel()
    bound = np.asarray(bound, dtype=np.float64).ravel()
    with np.errstate(over="ignore"):  # an overflow's candidate is infinity
        candidate = approx.astype(np.float32).astype(dtype)
    low, high = _neighbour_midpoints(candidate)
    proven = (approx - bound > low) & (approx + bound < high)
    for index in np.flatnonzero(~proven):
        candidate[index] = _round_exact(exact(int(index)), dtype)
    return candidate


def _output_dtype(dtype: npt.DTypeLike | None, x: np.ndarray) -> np.dtype:
    """The oracle's output dtype: ``dtype``, by default x's (each named if refused)."""
    if dtype is None:
        return as_dtype(x.dtype, "x's dtype (the output dtype when dtype is not given)")
    return as_dtype(dtype)


def dmish_oracle(x: npt.ArrayLike, dtype: npt.DTypeLike | None = None) -> np.ndarray:
    """Correctly rounded dmish/dx for every element of ``x``.

    To nearest, ties to even; NaN for NaN, 1 at +inf, 0 at -inf.

    Parameters
    ----------
    x
        Inputs of any float dtype and byte order; their values are taken exactly. Lists are
        float32, as the operator reads them (:func:`~mishgrad.math.dtypes.as_input`).
    dtype
        The output dtype (any spelling, :func:`~mishgrad.math.dtypes.as_dtype`); default
        ``x.dtype``.
    """
    return mish_backward_oracle(np.ones(1), x, dtype)


def tanh_softplus_oracle(x: npt.ArrayLike, dtype: npt.DTypeLike | None = None) -> np.ndarray:
    """Correctly rounded t = tanh(softplus(x)): the exact ``tanhx`` a forward pass could save.

    ``x`` and ``dtype`` as for :func:`dmish_oracle`.
    """
    x = as_input(x)
    dtype = _output_dtype(dtype, x)
    x64, t, _ = _flat_terms(x)
    bound = _F64_ERROR_UNITS * _UNIT * np.abs(t)
    result = correctly_round(t, bound, dtype, lambda i: tanh_softplus_mp(x64[i]))
    result[np.isnan(x64)] = np.nan  # t(NaN) = NaN; t tends to 1 at +inf and to 0 at -inf
    result[x64 == np.inf] = 1.0
    result[x64 == -np.inf] = 0.0
    return result.reshape(x.shape)


def mish_backward_oracle(
    grad: npt.ArrayLike, x: npt.ArrayLike, dtype: npt.DTypeLike | None = None
) -> np.ndarray:
    """Correctly rounded ``grad * d(x)`` (broadcast), the truth for the whole operator.

    Special values follow IEEE arithmetic on the exact limits: ``grad * 1`` at +inf,
    ``grad * 0`` at -inf (NaN if grad is infinite), NaN if either input is NaN. Arguments as
    for :func:`dmish_oracle`.
    """
    return _backward_oracle(grad, x, dtype, _flat_terms, dmish_mp)


def _silu_terms(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A flat float64 copy of x, and the two terms of SiLU's d there (as :func:`_flat_terms`).

    With e = e^-|x|: d = e (1 + x) / (1 + e)^2 + e^2 / (1 + e)^2 for x < 0, where the two
    cancel at the zero of d, and (1 + e (1 + x)) / (1 + e)^2 + 0 for x >= 0.
    """
    x64 = x.astype(np.float64).ravel()
    finite = np.where(np.isfinite(x64), x64, 0.0)
    with np.errstate(all="ignore"):
        e = np.exp(-np.abs(finite))
        square = (1 + e) * (1 + e)
        negative = finite < 0
        leading = np.where(negative, e * (1 + finite), 1 + e * (1 + finite)) / square
        rest = np.where(negative, e * e, 0.0) / square
    return x64, leading, rest


def dsilu_mp(x: float) -> mpmath.mpf:
    """SiLU's d(x) = sigma(x) (1 + x (1 - sigma(x))) at :data:`MP_DIGITS` digits."""
    with mpmath.workdps(MP_DIGITS):
        xm = mpmath.mpf(float(x))
        sigma = 1 / (1 + mpmath.exp(-xm))
        return sigma * (1 + xm * (1 - sigma))


def dsilu_oracle(x: npt.ArrayLike, dtype: npt.DTypeLike | None = None) -> np.ndarray:
    """Correctly rounded dsilu/dx, as :func:`dmish_oracle` for Mish."""
    return silu_backward_oracle(np.ones(1), x, dtype)


def silu_backward_oracle(
    grad: npt.ArrayLike, x: npt.ArrayLike, dtype: npt.DTypeLike | None = None
) -> np.ndarray:
    """Correctly rounded ``grad * d(x)`` for SiluGrad, d = dsilu/dx (the capstone's operator).

    As :func:`mish_backward_oracle`: d tends to 1 at +inf and to 0 at -inf; its zero is
    x0 = -1 - W(1/e) ~ -1.27846.
    """
    return _backward_oracle(grad, x, dtype, _silu_terms, dsilu_mp)


def _backward_oracle(
    grad: npt.ArrayLike,
    x: npt.ArrayLike,
    dtype: npt.DTypeLike | None,
    terms: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]],
    exact: Callable[[float], mpmath.mpf],
) -> np.ndarray:
    """Correctly rounded ``grad * d(x)``, d given by its float64 ``terms`` and ``exact`` value.

    d tends to 1 at +inf and to 0 at -inf; ``terms`` sum to d with an error below
    :data:`_F64_ERROR_UNITS` units of their magnitudes.
    """
    grad, x = np.broadcast_arrays(as_input(grad), as_input(x))
    dtype = _output_dtype(dtype, x)
    x64, t, product = terms(x)
    g64 = grad.astype(np.float64).ravel()
    derivative = np.where(np.isfinite(x64), t + product, np.where(x64 > 0, 1.0, 0.0))
    finite = np.isfinite(x64) & np.isfinite(g64)
    safe_grad = np.where(finite, g64, 0.0)
    bound = np.abs(safe_grad) * _F64_ERROR_UNITS * _UNIT * (np.abs(t) + np.abs(product))
    result = correctly_round(safe_grad * derivative, bound, dtype, lambda i: g64[i] * exact(x64[i]))
    zero = result == 0
    # A zero takes the sign of grad * d. The float64 sum of d's terms has d's sign wherever it
    # is nonzero (d vanishes only at its root, which no float hits, and the error near it is
    # far below |d|); it is zero only below x ~ -700, where d ~ x e^x < 0.
    sign = np.copysign(1.0, g64) * np.where(t + product > 0, 1.0, -1.0)
    result[zero] = np.copysign(0.0, sign[zero])
    with np.errstate(invalid="ignore"):
        result[~finite] = (g64 * derivative)[~finite].astype(dtype)
    result[np.isnan(x64)] = np.nan
    return result.reshape(x.shape)
