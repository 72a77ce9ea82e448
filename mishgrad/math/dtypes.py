"""The tensor dtypes of MishGrad, one record each, and the bit-level tools every module needs.

MishGrad accepts float32, float16 and bfloat16 tensors. NumPy has the first two;
``ml_dtypes`` supplies bfloat16. :data:`TABLE` holds one :class:`Dtype` record per dtype, every
fact another module needs about it, so that a dtype is added in one place. The module also
enumerates every value of the 16-bit types (the basis of the exhaustive error maps), and maps
floats onto ordered integers so that the distance in ULPs is a subtraction.

It is also where every function of :mod:`mishgrad.math` and :mod:`mishgrad.aclnn` takes its
arrays (:func:`as_input`, :func:`as_floats`) and dtypes (:func:`as_dtype`): any byte order in,
native results out, so no other module handles byte order.
"""

from dataclasses import dataclass
from typing import Final

import ml_dtypes
import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class Dtype:
    """Everything the package knows about one tensor dtype."""

    name: str  # as tables, figures and notebooks show it ("bfloat16")
    numpy: np.dtype  # ml_dtypes' for bfloat16
    acl_code: int  # its aclDataType in CANN's acl_base.h (float 0, float16 1, bfloat16 27)
    c_type: str  # its C++ type in an AscendC kernel (half, bfloat16_t): DTYPE_X
    #: The suffix of the kernel entry compiled for it (``<operator>_half``): the last column of
    #: the C++ table, ``MISHGRAD_DTYPES`` in ``kernel/mish_grad/common/mish_grad_dtypes.h``.
    entry_suffix: str
    #: CANN's precision standard for it: the threshold ``T = 2**threshold_exponent``, and the
    #: mixed tolerance ``(rtol, atol, abs_cap)``.
    threshold_exponent: int
    mixed_tolerance: tuple[float, float, float]
    #: The operator's accuracy targets. The dtypes tested exhaustively (``max_rel_error`` None):
    #: ``max_ulp`` on every finite input, ``correctly_rounded_pct`` percent correctly rounded;
    #: the sampled ones: ``max_ulp`` on x >= 0, ``max_rel_error`` where the correctly rounded
    #: gradient is normal.
    max_ulp: float
    correctly_rounded_pct: float | None = None
    max_rel_error: float | None = None

    @property
    def exhaustive(self) -> bool:
        """Whether every value is tested (the 16-bit dtypes) rather than a sample."""
        return self.max_rel_error is None


# The accuracy targets: notebook 03 states the figure each is anchored in (v1's and V2's
# measured errors, PyTorch's CPU formula, CANN's precision thresholds, AscendC's documented
# Exp and Div accuracy); notebook 11 checks that they hold under every numerics model. The
# precision standard's numbers are cited in mishgrad.evaluation.precision.
#: One record per dtype MishGrad supports, by name.
TABLE: Final[dict[str, Dtype]] = {
    record.name: record
    for record in (
        Dtype("float32", np.dtype(np.float32), 0, "float", "float", -13,
              (2.0**-10, 2.0**-16, 1e-2), max_ulp=4.0, max_rel_error=1e-5),
        Dtype("float16", np.dtype(np.float16), 1, "half", "half", -10,
              (2.0**-9, 2.0**-9, 1e-1), max_ulp=1.0, correctly_rounded_pct=99.9),
        Dtype("bfloat16", np.dtype(ml_dtypes.bfloat16), 27, "bfloat16_t", "bfloat16", -7,
              (2.0**-6, 2.0**-6, 1e-0), max_ulp=1.0, correctly_rounded_pct=99.9),
    )
}  # fmt: skip

float32: Final = TABLE["float32"].numpy
float16: Final = TABLE["float16"].numpy
bfloat16: Final = TABLE["bfloat16"].numpy

#: The dtypes MishGrad supports, by the names the notebooks and tables use.
DTYPES: Final[dict[str, np.dtype]] = {name: record.numpy for name, record in TABLE.items()}

_UINT_OF_WIDTH: Final = {2: np.uint16, 4: np.uint32}
_INT_OF_WIDTH: Final = {2: np.int32, 4: np.int64}


def native_dtype(dtype: npt.DTypeLike) -> np.dtype:
    """``dtype`` in the machine's byte order: ``'>f4'`` is float32 stored the other way round.

    The one place where a dtype's byte order is dropped (:func:`as_input` converts the values).
    """
    resolved = np.dtype(dtype)
    return resolved if resolved.isnative else resolved.newbyteorder("=")


def as_dtype(dtype: npt.DTypeLike | str, name: str = "dtype") -> np.dtype:
    """Return the native NumPy dtype for ``dtype``: a name of :data:`DTYPES` or any spelling.

    ``'>f4'``, ``np.dtype('<f2')`` and a byte-swapped bfloat16 mean float32, float16 and
    bfloat16: the byte order says how values are stored, not which values they are.

    Raises
    ------
    ValueError
        Naming ``name``, if ``dtype`` is not one of float32, float16, bfloat16.
    """
    if isinstance(dtype, str) and dtype in DTYPES:
        return DTYPES[dtype]
    try:
        resolved = native_dtype(dtype)
    except TypeError as error:
        raise ValueError(f"{name} must be one of {sorted(DTYPES)}, got {dtype!r}") from error
    if resolved not in DTYPES.values():
        raise ValueError(f"{name} must be one of {sorted(DTYPES)}, got {resolved}")
    return resolved


def as_input(value: npt.ArrayLike) -> np.ndarray:
    """An array in the machine's byte order, values unchanged: how every function takes arrays.

    An array keeps its dtype; a non-native byte order (``>f4`` on a little-endian host) is
    converted, not reinterpreted. Python numbers and lists become float32, the dtype a float
    literal has in the operator's world; pass a NumPy array to choose float16 or bfloat16.
    """
    if isinstance(value, np.ndarray | np.generic):
        array = np.asarray(value)
        return array if array.dtype.isnative else array.astype(native_dtype(array.dtype))
    return np.asarray(value, dtype=np.float32)


def as_floats(value: npt.ArrayLike, name: str) -> np.ndarray:
    """:func:`as_input`, and refused unless its dtype is one of :data:`DTYPES`.

    For the functions that read a float's bits or its grid, which only these dtypes have.

    Raises
    ------
    ValueError
        Naming ``name``, for another dtype.
    """
    array = as_input(value)
    as_dtype(array.dtype, f"{name}'s dtype")
    return array


def dtype_name(dtype: npt.DTypeLike) -> str:
    """The short name of ``dtype`` (``"bfloat16"`` rather than ml_dtypes' repr)."""
    return as_dtype(dtype).name


def uint_view(values: npt.ArrayLike) -> np.ndarray:
    """Reinterpret float ``values`` as unsigned integers of the same width: their bits.

    No copy for a native array of :data:`DTYPES`; another byte order is converted first.
    """
    array = as_floats(values, "values")
    return array.view(_UINT_OF_WIDTH[array.dtype.itemsize])


def ordered(values: npt.ArrayLike) -> np.ndarray:
    """Map floats to integers whose order and differences follow the float grid.

    Adjacent floats map to adjacent integers, ``+0`` and ``-0`` both map to 0, and the
    map is monotonic, so ``ordered(a) - ordered(b)`` is the signed distance in ULPs.
    NaN maps to an integer beyond infinity; callers treat NaN separately. Any byte order;
    lists become float32 (:func:`as_floats`).
    """
    raw = uint_view(values)
    bits = raw.astype(_INT_OF_WIDTH[raw.itemsize])
    sign_bit = 1 << (8 * raw.itemsize - 1)
    magnitude = bits & (sign_bit - 1)
    return np.where(bits & sign_bit, -magnitude, magnitude)


def from_ordered(keys: npt.ArrayLike, dtype: npt.DTypeLike) -> np.ndarray:
    """Inverse of :func:`ordered`: the floats of ``dtype`` at integer positions ``keys`` (0: +0)."""
    dtype = as_dtype(dtype)
    keys = np.asarray(keys, dtype=np.int64)
    sign_bit = 1 << (8 * dtype.itemsize - 1)
    bits = np.where(keys < 0, sign_bit - keys, keys)
    return bits.astype(_UINT_OF_WIDTH[dtype.itemsize]).view(dtype)


def all_values(dtype: npt.DTypeLike) -> np.ndarray:
    """Every finite float16 or bfloat16 value, in increasing order, each zero once (not float32)."""
    dtype = as_dtype(dtype)
    if dtype.itemsize != 2:
        raise ValueError(f"all_values enumerates 16-bit dtypes only, got {dtype.name}")
    top = int(ordered(np.array([np.inf], dtype=dtype))[0])
    return from_ordered(np.arange(1 - top, top), dtype)  # the keys strictly between -inf, +inf


def record(dtype: npt.DTypeLike | str) -> Dtype:
    """The :class:`Dtype` record of ``dtype`` (a name of :data:`TABLE` or any spelling)."""
    return TABLE[dtype_name(dtype)]


def float_info(dtype: npt.DTypeLike) -> ml_dtypes.finfo:
    """``finfo`` that also understands bfloat16 (smallest normal, eps, max, ...)."""
    return ml_dtypes.finfo(as_dtype(dtype))
