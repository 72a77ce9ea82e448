"""The three tensor dtypes of MishGrad and the bit-level tools every other module needs.

MishGrad accepts float32, float16 and bfloat16 tensors. NumPy has the first two;
``ml_dtypes`` supplies bfloat16. This module names them once, enumerates every value
of the 16-bit types (the basis of the exhaustive error maps), and maps floats onto
ordered integers so that the distance in ULPs is a subtraction.
"""

from __future__ import annotations

from typing import Final

import ml_dtypes
import numpy as np
import numpy.typing as npt

float32: Final = np.dtype(np.float32)
float16: Final = np.dtype(np.float16)
bfloat16: Final = np.dtype(ml_dtypes.bfloat16)

#: The dtypes MishGrad supports, by the names the notebooks and tables use.
DTYPES: Final[dict[str, np.dtype]] = {
    "float32": float32,
    "float16": float16,
    "bfloat16": bfloat16,
}

_UINT_OF_WIDTH: Final = {2: np.uint16, 4: np.uint32, 8: np.uint64}
_INT_OF_WIDTH: Final = {2: np.int32, 4: np.int64, 8: np.int64}


def as_dtype(dtype: npt.DTypeLike | str) -> np.dtype:
    """Return the NumPy dtype for ``dtype``, accepting the names of :data:`DTYPES`.

    Raises
    ------
    ValueError
        If ``dtype`` is not one of float32, float16, bfloat16.

    """
    if isinstance(dtype, str) and dtype in DTYPES:
        return DTYPES[dtype]
    resolved = np.dtype(dtype)
    if resolved not in DTYPES.values():
        raise ValueError(f"dtype must be one of {sorted(DTYPES)}, got {resolved}")
    return resolved


def as_input(value: npt.ArrayLike) -> np.ndarray:
    """An operator input as a NumPy array in the machine's byte order, values unchanged.

    Every entry point of the operator (the twin, the NumPy model, the aclnn call) takes its
    tensors through this, so they all treat unusual inputs alike. An array keeps its dtype; a
    non-native byte order (``>f4`` on a little-endian host) is converted, not reinterpreted.
    Python numbers and lists become float32, the dtype a float literal has in the operator's
    world; pass a NumPy array to choose float16 or bfloat16.
    """
    if isinstance(value, np.ndarray | np.generic):
        array = np.asarray(value)
        return array if array.dtype.isnative else array.astype(array.dtype.newbyteorder("="))
    return np.asarray(value, dtype=np.float32)


def dtype_name(dtype: npt.DTypeLike) -> str:
    """The short name of ``dtype`` (``"bfloat16"`` rather than ml_dtypes' repr)."""
    return as_dtype(dtype).name


def uint_view(values: np.ndarray) -> np.ndarray:
    """Reinterpret float ``values`` as unsigned integers of the same width (no copy)."""
    return values.view(_UINT_OF_WIDTH[values.dtype.itemsize])


def ordered(values: np.ndarray) -> np.ndarray:
    """Map floats to integers whose order and differences follow the float grid.

    Adjacent floats map to adjacent integers, ``+0`` and ``-0`` both map to 0, and the
    map is monotonic, so ``ordered(a) - ordered(b)`` is the signed distance in ULPs.
    NaN maps to an integer beyond infinity; callers treat NaN separately.
    """
    width = values.dtype.itemsize
    bits = uint_view(np.ascontiguousarray(values)).astype(_INT_OF_WIDTH[width])
    sign_bit = 1 << (8 * width - 1)
    magnitude = bits & (sign_bit - 1)
    return np.where(bits & sign_bit, -magnitude, magnitude)


def from_ordered(keys: npt.ArrayLike, dtype: npt.DTypeLike) -> np.ndarray:
    """Inverse of :func:`ordered`: the floats of ``dtype`` at integer positions ``keys``.

    Key 0 maps to ``+0``.
    """
    dtype = as_dtype(dtype)
    keys = np.asarray(keys, dtype=np.int64)
    sign_bit = 1 << (8 * dtype.itemsize - 1)
    bits = np.where(keys < 0, sign_bit - keys, keys)
    return bits.astype(_UINT_OF_WIDTH[dtype.itemsize]).view(dtype)


def all_values(dtype: npt.DTypeLike, *, finite: bool = True) -> np.ndarray:
    """Every value of a 16-bit dtype, in increasing order, each zero and NaN once.

    Parameters
    ----------
    dtype
        float16 or bfloat16 (float32 has 2**32 values; sample it instead).
    finite
        If true (the default) return only finite values; otherwise include ``-inf``,
        ``+inf`` and one NaN at the end.

    """
    dtype = as_dtype(dtype)
    if dtype.itemsize != 2:
        raise ValueError(f"all_values enumerates 16-bit dtypes only, got {dtype.name}")
    top = int(ordered(np.array([np.inf], dtype=dtype))[0])
    keys = np.arange(-top, top + 1)
    values = from_ordered(keys, dtype)
    if finite:
        return values[1:-1]
    return np.concatenate([values, np.array([np.nan], dtype=dtype)])


def float_info(dtype: npt.DTypeLike) -> ml_dtypes.finfo:
    """``finfo`` that also understands bfloat16 (smallest normal, eps, max, ...)."""
    return ml_dtypes.finfo(as_dtype(dtype))
