"""The gradient of Mish, and every formula for it that the project compares.

Conventions (notebook 01). With ``t = tanh(softplus(x))`` and ``s = sigmoid(x)``::

    mish(x)  = x * t
    d(x)     = dmish/dx = t + x * s * (1 - t**2)
    out      = grad * d(x)

Every formula here computes in **float32 arithmetic**, as the vector unit does: a
float16 or bfloat16 input is widened to float32 (exactly), the formula runs in float32,
and the result is rounded **once** back to the tensor dtype, ties to even. The functions
take and return NumPy arrays of dtype float32, float16 or ``ml_dtypes.bfloat16``.

The formulas: ops-nn v1's README (:func:`dmish_b1`, :func:`dmish_b2_naive`), v1's kernel
(:func:`dmish_sign_split`), MishGradV2 (:func:`dmish_v2`), and the kernel's
(:func:`dmish_ours`, :func:`dmish_tanhx`) under each numerics model of
:mod:`mishgrad.math.vector_math`, operation for operation as it computes (PyTorch's CPU
formula, which :func:`float32_formula` evaluates too, is ``bench/pytorch_formula.py``'s).
"""

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, wraps
from typing import Final

import mpmath
import numpy as np
import numpy.typing as npt

from . import vector_math
from .dtypes import as_dtype, as_input, float32, float_info

#: The largest finite float32. Clamping x to +-FLT_MAX in the product term turns
#: ``inf * 0`` (NaN) into ``FLT_MAX * 0 = 0`` so that d(+inf) = 1 and d(-inf) = 0.
FLT_MAX: Final = np.finfo(np.float32).max


def _widen(x: npt.ArrayLike, name: str = "x") -> tuple[np.ndarray, np.dtype]:
    """Return ``x`` as float32 (exact for the 16-bit types) and its own dtype (native).

    Any byte order; lists are float32; another dtype is refused naming ``name``.
    """
    x = as_input(x)
    return x.astype(float32), as_dtype(x.dtype, f"{name}'s dtype")


def float32_formula(body: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """Run ``body`` on float32 copies of its array arguments, round once to x's dtype.

    The array arguments are the parameters without a default (``x``, ``tanhx``), each taken by
    :func:`_widen` under its own name; the others (the numerics model) pass through. Overflow,
    underflow and invalid operations are the subject of this project, so NumPy's floating-point
    warnings are silenced inside formulas: the results show them.
    """
    signature = inspect.signature(body)
    tensors = [name for name, p in signature.parameters.items() if p.default is p.empty]

    @wraps(body)
    def wrapper(*args: npt.ArrayLike | str, **kwargs: npt.ArrayLike | str) -> np.ndarray:
        arguments = signature.bind(*args, **kwargs).arguments
        widened = {name: _widen(arguments[name], name) for name in tensors}
        arguments.update({name: wide for name, (wide, _) in widened.items()})
        with np.errstate(all="ignore"):
            return np.asarray(body(**arguments)).astype(widened["x"][1])

    return wrapper


@dataclass(frozen=True)
class RootExpansion:
    """The root x0 of d and its Taylor coefficients, as the kernel's float32 constants.

    ``x0 = high + low`` (``high`` the float32 nearest x0, ``low`` the float32 nearest the
    rest), and ``d(x0 + u) = c1 u + c2 u^2 + c3 u^3 + c4 u^4 + ...``; ``c4`` is not used
    by the kernel, only to bound the polynomial's truncation error (``|c4 / c1| w^3``).
    """

    high: np.float32
    low: np.float32
    c1: np.float32
    c2: np.float32
    c3: np.float32
    c4: float


def _d_mp(x: mpmath.mpf) -> mpmath.mpf:
    t = mpmath.tanh(mpmath.log1p(mpmath.exp(x)))
    return t + x * (1 - t * t) / (1 + mpmath.exp(-x))


@cache
def root_expansion() -> RootExpansion:
    """Find the root of d and its Taylor coefficients at 50 digits (mpmath)."""
    with mpmath.workdps(50):
        x0 = mpmath.findroot(_d_mp, -1.19)
        high = np.float32(float(x0))
        c1, c2, c3, c4 = (
            float(mpmath.diff(_d_mp, x0, k) / mpmath.factorial(k)) for k in range(1, 5)
        )
        low = float(x0 - mpmath.mpf(float(high)))
        return RootExpansion(high, *np.array([low, c1, c2, c3], dtype=float32), c4)


#: 2^-64: the tanhx branch's scaling of its quotient (kernel: ``kTwoToMinus64``).
TWO_TO_MINUS_64: Final = float32.type(2.0**-64)

#: Half-width, in x, of the window around the root where the kernel uses the polynomial:
#: where the rational form's relative error (its absolute error of a few 1e-8 over |d|)
#: and the cubic's truncation error (``|c4 / c1| w^3``) are both below 1e-5.
ROOT_HALF_WIDTH: Final = np.float32(0.04)

#: Beyond |x| = 2^20 the exponential is 0 and its argument only multiplies zeros: clamping
#: it there turns x = +-inf into finite products (kernel: ``kArgumentClamp``).
ARGUMENT_CLAMP: Final = np.float32(2.0**20)

#: Below this x the kernel takes the exponential of x / 2 and applies P = exp(x) as two such
#: factors, so that d stays normal where exp(x) is subnormal (kernel: ``kFarLimit``).
FAR_LIMIT: Final = float32.type(-64.0)


def _exponential(x: np.ndarray, numerics: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's ``Exponential``: ``a = -|x|``, ``e`` and the mask ``far`` (x < -64).

    ``e`` is ``exp(-|x|)``, or ``exp(-|x| / 2)`` in the far lanes, where ``exp(x)`` would be
    flushed to zero by a vector unit that flushes subnormals.
    """
    a = np.abs(x) * float32.type(-1)
    far = x < FAR_LIMIT
    e = vector_math.exp(np.where(far, a * float32.type(0.5), a), numerics)
    return a, e, far


def _kernel_parts(x: np.ndarray, numerics: str) -> dict[str, np.ndarray]:
    """The kernel's pieces of d (``MishGradKernel::Derivative``), operation for operation.

    With ``e = exp(-|x|)``, ``sigma = 1 + e`` and, on each side of 0::

        x > 0:   V = 2e       D = 1 + sigma V    S = 2 sigma V         L = 1       P = 1
        x <= 0:  V = sigma    D = 1 + sigma V    S = V D + D + 2e      L = 1 + x   P = e

    ``d = P (L - e (S a + V D) / D^2)`` with ``a = -|x|``: the leading term ``P L`` and one
    quotient, the correction, which is small where most inputs are, so that the division's
    rounding barely reaches d. Near the root of d, L and the correction cancel (the root
    window takes over there). In the far lanes (x < -64) ``e`` is ``exp(x/2)`` and P is
    applied twice; the correction, of size ``exp(x/2)``, vanishes beside L there.
    """
    one = float32.type(1)
    a, e, far = _exponential(x, numerics)
    a = np.maximum(a, -ARGUMENT_CLAMP)
    non_positive = x <= 0
    sigma = e + one
    v = np.where(non_positive, sigma, e + e)
    sigma_v = sigma * v
    denominator = sigma_v + one
    v_d = v * denominator
    s = np.where(non_positive, (denominator + (e + e)) + v_d, sigma_v + sigma_v)
    correction = vector_math.div((s * a + v_d) * e, denominator * denominator, numerics)
    leading = np.where(non_positive, a + one, one)
    p = np.where(non_positive, e, one)
    d = (leading - correction) * p * np.where(far, e, one)
    return {"e": e, "D": denominator, "L": leading, "correction": correction, "P": p, "d": d}


#: The 16-bit path's upper clamp of x: its d is 1 above x = 8, and the fraction's w^4 stays
#: finite in float32 below x = 22 (kernel: ``kNarrowHigh``).
NARROW_HIGH: Final = np.float32(16.0)


def narrow_derivative(x: np.ndarray, halved: bool, numerics: str) -> np.ndarray:
    """The kernel's ``NarrowDerivative`` (16-bit tensors, no tanhx), operation for operation.

    ``d = w (u (D + 4x) + D) / D^2`` with ``w = exp(x)``, ``u = 1 + w``, ``D = u^2 + 1``, x
    clamped to ``[-ARGUMENT_CLAMP, NARROW_HIGH]``. ``halved`` (bfloat16): ``h = exp(x/2)``,
    ``w = h h``, and the quotient is multiplied by h twice, so d stays normal where it is.
    """
    x = np.maximum(np.minimum(x, NARROW_HIGH), -ARGUMENT_CLAMP)
    if halved:
        e = vector_math.exp(x * float32.type(0.5), numerics)
        u = e * e + float32.type(1)
    else:
        e = vector_math.exp(x, numerics)
        u = e + float32.type(1)
    denominator = u * u + float32.type(1)
    numerator = (x * float32.type(4) + denominator) * u + denominator
    d = vector_math.div(numerator, denominator * denominator, numerics) * e
    return d * e if halved else d


def root_window(x: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The kernel's ``RootWindow``: ``u (c1 + u (c2 + c3 u))`` where ``|u| < ROOT_HALF_WIDTH``.

    ``u = (x - high) - low``; the first subtraction is exact (Sterbenz) near the root.
    """
    root = root_expansion()
    u = (x - root.high) - root.low
    polynomial = ((u * root.c3 + root.c2) * u + root.c1) * u
    return np.where(np.abs(u) < ROOT_HALF_WIDTH, polynomial, d)


@float32_formula
def tanh_softplus(x: np.ndarray, numerics: str = "ieee") -> np.ndarray:
    """``t = tanh(softplus(x))``, the value the forward pass may save as ``tanhx``.

    From the kernel's pieces: ``t = P n / D`` with ``n = 1 + 2e`` (x > 0) or ``2 + e``
    (x <= 0), one more division.
    """
    parts = _kernel_parts(x, numerics)
    e, one = parts["e"], float32.type(1)
    n = np.where(x <= 0, e + float32.type(2), (e + e) + one)
    t = vector_math.div(n * parts["P"], parts["D"], numerics)
    return t * np.where(x < FAR_LIMIT, e, one)


@float32_formula
def dmish_b1(x: np.ndarray, tanhx: np.ndarray) -> np.ndarray:
    """v1 README's formula with ``tanhx`` given, as v1's kernel computes it.

    ``d = t - x e^x (t^2 - 1) / (1 + e^x)``. For x above ~88.7 (float32) ``e^x`` is
    inf while ``t^2 - 1`` is exactly 0, and ``inf * 0`` gives NaN.
    """
    ex = np.exp(x)
    return tanhx - (x * ex) * (tanhx * tanhx - 1) * (1 / (ex + 1))


@float32_formula
def dmish_b2_naive(x: np.ndarray) -> np.ndarray:
    """v1 README's formula without ``tanhx``, exactly as documented, through ``y1``.

    ``y1 = 1 / ((1 + e^x)^2 + 1)``, ``d = 4 x e^x (e^x + 1) y1^2 - 2 y1 + 1``.
    """
    ex = np.exp(x)
    one_plus = 1 + ex
    y1 = 1 / (one_plus * one_plus + 1)
    return 4 * x * ex * one_plus * (y1 * y1) - 2 * y1 + 1


@float32_formula
def dmish_sign_split(x: np.ndarray) -> np.ndarray:
    """ops-nn v1's kernel: both sign halves everywhere, merged by masks.

    The x > 0 half from ``u = e^-x`` and ``v = e^-2x``, the x <= 0 half from ``w = e^x`` and
    ``w2 = e^2x``. Four exponentials and four divisions per element. Where neither mask is set
    (x is NaN) the kernel returns x itself, which propagates NaN. ``1 - t*t`` cancels for large
    x, where t rounds towards 1: that is where this form drifts.
    """
    u, v = np.exp(-x), np.exp(-2 * x)
    t_pos = (1 + 2 * u) / (2 * u + 2 * v + 1)
    d_pos = t_pos + (x / (u + 1)) * (1 - t_pos * t_pos)
    w, w2 = np.exp(x), np.exp(2 * x)
    n = 2 * w + w2
    t_neg = n / (n + 2)
    d_neg = t_neg + ((x * w) / (w + 1)) * (1 - t_neg * t_neg)
    merged = np.where(x > 0, d_pos, np.float32(0)) + np.where(x <= 0, d_neg, np.float32(0))
    return np.where((x > 0) | (x <= 0), merged, x)


@float32_formula
def dmish_v2(x: np.ndarray) -> np.ndarray:
    """MishGradV2: ``t = tanh(relu(x) + log(1 + e^-|x|))``, ``d = t + x (1 - t^2)/(1 + e^-x)``.

    ``log(1 + e)`` is evaluated literally: once ``e^-|x|`` is below half an ULP of 1
    (x < -16.6 in float32) softplus becomes exactly 0 for negative x and t = 0.
    """
    t = np.tanh(np.maximum(x, 0) + np.log(1 + np.exp(-np.abs(x))))
    return t + x * (1 - t * t) / (1 + np.exp(-x))


@float32_formula
def dmish_rational(x: np.ndarray, numerics: str = "ieee") -> np.ndarray:
    """The kernel's formula alone (:func:`_kernel_parts`), without the root window.

    The comparison that shows why the window exists: near the root of d its error is
    absolute, not relative, and fails CANN's MARE.
    """
    return _kernel_parts(x, numerics)["d"]


def _ours_in_float32(x32: np.ndarray, dtype: np.dtype, numerics: str) -> np.ndarray:
    """The kernel's d in float32 for a tensor of ``dtype`` (:func:`dmish_ours`)."""
    if dtype == float32:
        return root_window(x32, _kernel_parts(x32, numerics)["d"])
    # bfloat16 has float32's exponent range: its d is normal where exp(x) is subnormal in
    # float32 (x < -87.3) and may be flushed, so its 16-bit path halves x
    halved = int(float_info(dtype).minexp) == int(np.finfo(float32).minexp)
    return narrow_derivative(x32, halved, numerics)


def dmish_ours(x: npt.ArrayLike, numerics: str = "ieee") -> np.ndarray:
    """Our form, as the kernel computes it, for every dtype.

    float32: :func:`dmish_rational`, and the Taylor polynomial around the root of d
    (:func:`root_window`); float16 and bfloat16: :func:`narrow_derivative`. One exponential,
    one division; d(+inf) = 1, d(-inf) = 0 and NaN stays NaN. ``numerics`` is how ``Exp`` and
    ``Div`` round (:data:`~mishgrad.math.vector_math.NUMERICS_MODELS`).
    """
    x32, dtype = _widen(x)
    with np.errstate(all="ignore"):
        return _ours_in_float32(x32, dtype, numerics).astype(dtype)


@float32_formula
def dmish_tanhx(x: np.ndarray, tanhx: np.ndarray, numerics: str = "ieee") -> np.ndarray:
    """Our tanhx branch: ``d = t + x s (1 - t)(1 + t)`` with the supplied ``t``.

    ``x s = (max(x, 0) + min(x, 0) e) / (1 + e)`` from ``h = exp(-|x|/2)``, ``e = h h``;
    ``min(x, 0) e`` is formed as ``(min(x, 0) h) h`` so that it stays normal where the
    true product is, and the quotient is scaled so that Div never flushes it. The result is
    finite for every finite x and any ``t`` in [0, 1]; it cannot be more accurate than the
    rounding of ``t`` allows (near the root of d especially).
    """
    h = vector_math.exp(np.abs(x) * float32.type(-0.5), numerics)
    negative_part = np.maximum(np.minimum(x, 0), -FLT_MAX) * h * h
    # The kernel scales the quotient by 2^64 and 1 - t by 2^-64 so that a subnormal x s is
    # not flushed by Div (exact scalings by powers of two, also in NumPy).
    positive_part = np.minimum(np.maximum(x, 0), FLT_MAX * TWO_TO_MINUS_64)
    denominator = h * h * TWO_TO_MINUS_64 + TWO_TO_MINUS_64
    x_s = vector_math.div(negative_part + positive_part, denominator, numerics)
    one_minus_t = tanhx * -TWO_TO_MINUS_64 + TWO_TO_MINUS_64
    return x_s * one_minus_t * (tanhx + 1) + tanhx


#: The no-tanhx formulas, by the names used in tables and plots.
FORMULAS: Final[dict[str, Callable[[np.ndarray], np.ndarray]]] = {
    "B2 naive (y1)": dmish_b2_naive,
    "B2 sign split (v1)": dmish_sign_split,
    "V2": dmish_v2,
    "ours": dmish_ours,
}


def mish_backward(
    grad: npt.ArrayLike,
    x: npt.ArrayLike,
    tanhx: npt.ArrayLike | None = None,
    numerics: str = "ieee",
) -> np.ndarray:
    """MishGrad: ``grad * dmish/dx(x)`` in the tensor dtype.

    Parameters
    ----------
    grad, x
        Arrays of one dtype (float32, float16 or bfloat16) whose shapes broadcast.
    tanhx
        Optional ``tanh(softplus(x))`` saved by the forward pass, same dtype. With it
        the gradient uses :func:`dmish_tanhx`, otherwise :func:`dmish_ours`.
    numerics
        How ``Exp`` and ``Div`` round: one of :data:`mishgrad.kernel.twin.NUMERICS_MODELS`.

    Raises
    ------
    ValueError
        If the dtypes differ or are not supported, or the shapes do not broadcast.
    """
    grad, x = as_input(grad), as_input(x)
    tensors = {"grad": grad} if tanhx is None else {"grad": grad, "tanhx": as_input(tanhx)}
    for name, tensor in tensors.items():
        if tensor.dtype != x.dtype:
            raise ValueError(f"{name} has dtype {tensor.dtype}, x has {x.dtype}; they must match")
    x32, dtype = _widen(x)
    if tanhx is None:
        with np.errstate(all="ignore"):
            derivative = _ours_in_float32(x32, dtype, numerics)
    else:
        derivative = dmish_tanhx(x32, tensors["tanhx"], numerics)
    try:
        shape = np.broadcast_shapes(grad.shape, x.shape)
    except ValueError as error:
        raise ValueError(f"grad {grad.shape} and x {x.shape} do not broadcast") from error
    product = np.broadcast_to(grad.astype(float32), shape) * derivative
    return product.astype(dtype)
