"""Mish, its gradient, and every formula for the gradient that the project compares.

Conventions (DESIGN §4). With ``t = tanh(softplus(x))`` and ``s = sigmoid(x)``::

    mish(x)  = x * t
    d(x)     = dmish/dx = t + x * s * (1 - t**2)
    out      = grad * d(x)

Every formula here computes in **float32 arithmetic**, as the vector unit does: a
float16 or bfloat16 input is widened to float32 (exactly), the formula runs in float32,
and the result is rounded **once** back to the tensor dtype, ties to even. The functions
take and return NumPy arrays of dtype float32, float16 or ``ml_dtypes.bfloat16``.

The formulas:

``dmish_b1``
    The seed's branch with ``tanhx`` supplied: ``t + x e^x (1 - t^2) / (1 + e^x)``.
``dmish_b2_naive``
    The seed's branch without ``tanhx``: ``y1 = 1/((1+e^x)^2+1)``,
    ``d = 4 x e^x (e^x+1) y1^2 - 2 y1 + 1``.
``dmish_sign_split``
    What ops-nn v1's kernel computes: both halves (``e^-x, e^-2x`` for x > 0 and
    ``e^x, e^2x`` for x <= 0) evaluated everywhere and merged by sign masks.
``dmish_v2``
    MishGradV2's form: ``t = tanh(relu(x) + log(1 + e^-|x|))``,
    ``d = t + x (1 - t^2) / (1 + e^-x)``.
``dmish_ours``
    One ``e = exp(-|x|)``, rational ``t`` and ``1 - t`` formed directly, no
    cancellation and no overflow for any finite x.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np
import numpy.typing as npt

from .dtypes import as_dtype, float32

#: The largest finite float32. Clamping x to +-FLT_MAX in the product term turns
#: ``inf * 0`` (NaN) into ``FLT_MAX * 0 = 0`` so that d(+inf) = 1 and d(-inf) = 0.
FLT_MAX: Final = np.finfo(np.float32).max


def _widen(x: npt.ArrayLike) -> tuple[np.ndarray, np.dtype]:
    """Return ``x`` as float32 (exact for the 16-bit types) and its own dtype."""
    x = np.asarray(x)
    dtype = as_dtype(x.dtype)
    return x.astype(float32), dtype


def _float32_formula(body: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """Run ``body`` on float32 copies of its array arguments, round once to x's dtype.

    Overflow, underflow and invalid operations are the subject of this project, so
    NumPy's floating-point warnings are silenced inside formulas: the results show them.
    """

    def wrapper(x: npt.ArrayLike, *tensors: npt.ArrayLike) -> np.ndarray:
        x32, dtype = _widen(x)
        widened = [_widen(tensor)[0] for tensor in tensors]
        with np.errstate(all="ignore"):
            return np.asarray(body(x32, *widened)).astype(dtype)

    wrapper.__name__ = body.__name__
    wrapper.__qualname__ = body.__qualname__
    wrapper.__doc__ = body.__doc__
    return wrapper


def _exp_parts(x: np.ndarray) -> dict[str, np.ndarray]:
    """The rational pieces of t and 1 - t, and x*s, from the single exponential ``e^-|x|``.

    For x > 0, with e = exp(-x)::

        t = (1 + 2e) / (1 + 2e + 2e^2)   1 - t = 2e^2 / (1 + 2e + 2e^2)   s = 1 / (1 + e)

    For x <= 0, with e = exp(x)::

        t = (2e + e^2) / (2 + 2e + e^2)  1 - t = 2 / (2 + 2e + e^2)       s = e / (1 + e)

    Every denominator lies in [1, 5], so each division is well conditioned, and
    ``e <= 1`` means nothing overflows. ``1 - t`` is never formed by a subtraction.
    ``x * s`` is formed without a per-sign choice as ``(max(x, 0) + min(x, 0) e) / (1 + e)``,
    with each part clamped to +-FLT_MAX so that x = +-inf gives a finite product: that is
    what makes d(+inf) = 1 and d(-inf) = 0 instead of ``inf * 0 = NaN``.

    The operations and their order are the kernel's (``kernel/op_kernel``), so this is a
    NumPy model of what the vector unit computes, rounding for rounding.
    """
    positive = x > 0
    e = np.exp(-np.abs(x))
    e_squared = e * e
    two_e = e + e
    numerator = np.where(positive, two_e + 1, two_e + e_squared)
    one_minus_numerator = np.where(positive, e_squared + e_squared, np.float32(2))
    denominator = numerator + one_minus_numerator
    return {
        "e": e,
        "t": numerator / denominator,
        "one_minus_t": one_minus_numerator / denominator,
        "x_s": _x_times_sigmoid(x, e),
    }


def _x_times_sigmoid(x: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``x * sigmoid(x)`` from ``e = exp(-|x|)``: one division, finite for x = +-inf."""
    negative_part = np.maximum(np.minimum(x, 0), -FLT_MAX) * e
    positive_part = np.minimum(np.maximum(x, 0), FLT_MAX)
    return (positive_part + negative_part) / (e + 1)


@_float32_formula
def softplus(x: np.ndarray) -> np.ndarray:
    """``log(1 + e^x)`` as ``relu(x) + log1p(e^-|x|)``: no overflow, no loss for x << 0."""
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


@_float32_formula
def tanh_softplus(x: np.ndarray) -> np.ndarray:
    """``t = tanh(softplus(x))``, the value the forward pass may save as ``tanhx``."""
    return _exp_parts(x)["t"]


@_float32_formula
def mish(x: np.ndarray) -> np.ndarray:
    """The Mish activation ``x * tanh(softplus(x))``."""
    return x * _exp_parts(x)["t"]


@_float32_formula
def dmish_b1(x: np.ndarray, tanhx: np.ndarray) -> np.ndarray:
    """Seed branch 1 (``tanhx`` given), as v1's kernel computes it.

    ``d = t - x e^x (t^2 - 1) / (1 + e^x)``. For x above ~88.7 (float32) ``e^x`` is
    inf while ``t^2 - 1`` is exactly 0, and ``inf * 0`` gives NaN.
    """
    ex = np.exp(x)
    return tanhx - (x * ex) * (tanhx * tanhx - 1) * (1 / (ex + 1))


@_float32_formula
def dmish_b2_naive(x: np.ndarray) -> np.ndarray:
    """Seed branch 2 (no ``tanhx``) exactly as documented, through ``y1``.

    ``y1 = 1 / ((1 + e^x)^2 + 1)``, ``d = 4 x e^x (e^x + 1) y1^2 - 2 y1 + 1``.
    """
    ex = np.exp(x)
    one_plus = 1 + ex
    y1 = 1 / (one_plus * one_plus + 1)
    return 4 * x * ex * one_plus * (y1 * y1) - 2 * y1 + 1


@_float32_formula
def dmish_sign_split(x: np.ndarray) -> np.ndarray:
    """ops-nn v1's kernel: both sign halves everywhere, merged by masks.

    x > 0 half (``u = e^-x``, ``v = e^-2x``)::

        t = (1 + 2u) / (1 + 2u + 2v),  d = t + x / (1 + u) * (1 - t*t)

    x <= 0 half (``w = e^x``, ``w2 = e^2x``)::

        n = 2w + w2,  t = n / (n + 2),  d = t + (x w) / (w + 1) * (1 - t*t)

    Four exponentials and four divisions per element. Where neither mask is set (x is
    NaN) the kernel returns x itself, which propagates NaN. ``1 - t*t`` cancels for
    large x, where t rounds towards 1: that is where this form drifts.
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


@_float32_formula
def dmish_v2(x: np.ndarray) -> np.ndarray:
    """MishGradV2: ``t = tanh(relu(x) + log(1 + e^-|x|))``, ``d = t + x (1 - t^2)/(1 + e^-x)``.

    ``log(1 + e)`` is evaluated literally: once ``e^-|x|`` is below half an ULP of 1
    (x < -16.6 in float32) softplus becomes exactly 0 for negative x and t = 0.
    """
    t = np.tanh(np.maximum(x, 0) + np.log(1 + np.exp(-np.abs(x))))
    return t + x * (1 - t * t) / (1 + np.exp(-x))


@_float32_formula
def dmish_ours(x: np.ndarray) -> np.ndarray:
    """Our form: one exponential, ``1 - t`` formed directly (see :func:`_exp_parts`).

    ``d = t + ((x s) (1 - t)) (1 + t)``; the limits d(+inf) = 1 and d(-inf) = 0 come out
    and NaN stays NaN.
    """
    parts = _exp_parts(x)
    t = parts["t"]
    return parts["x_s"] * parts["one_minus_t"] * (t + 1) + t


@_float32_formula
def dmish_tanhx(x: np.ndarray, tanhx: np.ndarray) -> np.ndarray:
    """Our tanhx branch: ``d = t + x s (1 - t)(1 + t)`` with the supplied ``t``.

    ``s`` comes from the one exponential ``e^-|x|`` and never overflows, so the result
    is finite for every finite x and any ``t`` in [0, 1]. It cannot be more accurate
    than the rounding of ``t`` allows (near the root of d especially).
    """
    x_s = _x_times_sigmoid(x, np.exp(-np.abs(x)))
    return x_s * (1 - tanhx) * (tanhx + 1) + tanhx


#: The no-tanhx formulas, by the names used in tables and plots.
FORMULAS: Final[dict[str, Callable[[np.ndarray], np.ndarray]]] = {
    "B2 naive (y1)": dmish_b2_naive,
    "B2 sign split (v1)": dmish_sign_split,
    "V2": dmish_v2,
    "ours": dmish_ours,
}


def mish_backward(
    grad: npt.ArrayLike, x: npt.ArrayLike, tanhx: npt.ArrayLike | None = None
) -> np.ndarray:
    """MishGrad: ``grad * dmish/dx(x)`` in the tensor dtype.

    Parameters
    ----------
    grad, x
        Arrays of one dtype (float32, float16 or bfloat16) whose shapes broadcast.
    tanhx
        Optional ``tanh(softplus(x))`` saved by the forward pass, same dtype. With it
        the gradient uses :func:`dmish_tanhx`, otherwise :func:`dmish_ours`.

    Returns
    -------
    numpy.ndarray
        ``grad * d`` computed in float32 and rounded once to the dtype of ``x``.

    Raises
    ------
    ValueError
        If the dtypes differ or are not supported, or the shapes do not broadcast.

    """
    grad, x = np.asarray(grad), np.asarray(x)
    tensors = {"grad": grad} if tanhx is None else {"grad": grad, "tanhx": np.asarray(tanhx)}
    for name, tensor in tensors.items():
        if tensor.dtype != x.dtype:
            raise ValueError(f"{name} has dtype {tensor.dtype}, x has {x.dtype}; they must match")
    x32, dtype = _widen(x)
    if tanhx is None:
        derivative = dmish_ours(x32)
    else:
        derivative = dmish_tanhx(x32, _widen(tanhx)[0])
    try:
        shape = np.broadcast_shapes(grad.shape, x.shape)
    except ValueError as error:
        raise ValueError(f"grad {grad.shape} and x {x.shape} do not broadcast") from error
    product = np.broadcast_to(grad.astype(float32), shape) * derivative
    return product.astype(dtype)
