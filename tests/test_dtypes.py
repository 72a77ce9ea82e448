import re

import ml_dtypes
import numpy as np
import pytest

from mishgrad.kernel.source import OPERATOR_DIR, TWIN_DIR
from mishgrad.math import dtypes


@pytest.mark.parametrize(("name", "count"), [("float16", 63487), ("bfloat16", 65279)])
def test_all_values_enumerates_every_finite_value_once(name, count):
    values = dtypes.all_values(name)
    assert values.dtype == dtypes.DTYPES[name]
    assert values.size == count  # 2**16 patterns minus inf/NaN patterns minus -0
    as64 = values.astype(np.float64)
    assert np.all(np.isfinite(as64))
    assert np.all(np.diff(as64) > 0)
    assert as64[0] == -dtypes.float_info(name).max


def test_all_values_rejects_float32():
    with pytest.raises(ValueError, match="16-bit"):
        dtypes.all_values("float32")


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_ordered_is_a_bijection_onto_consecutive_integers(name):
    values = dtypes.all_values(name)
    keys = dtypes.ordered(values)
    assert np.all(np.diff(keys) == 1)
    back = dtypes.from_ordered(keys, name)
    assert np.array_equal(back.view(np.uint16), values.view(np.uint16))


def test_ordered_maps_both_zeros_to_zero_and_neighbours_to_one():
    zeros = np.array([0.0, -0.0], dtype=np.float32)
    assert list(dtypes.ordered(zeros)) == [0, 0]
    tiny = np.array([np.float32(1.4e-45), -np.float32(1.4e-45)], dtype=np.float32)
    assert list(dtypes.ordered(tiny)) == [1, -1]
    one = np.array([1.0, np.nextafter(np.float32(1), np.float32(2))], dtype=np.float32)
    assert np.diff(dtypes.ordered(one))[0] == 1


def test_as_dtype_accepts_names_and_rejects_others():
    assert dtypes.as_dtype("bfloat16") == np.dtype(ml_dtypes.bfloat16)
    assert dtypes.as_dtype(np.float16) == np.dtype(np.float16)
    for bad in (np.float64, np.int32, "float8"):
        with pytest.raises((ValueError, TypeError)):
            dtypes.as_dtype(bad)


def test_dtype_name_is_short():
    assert dtypes.dtype_name(ml_dtypes.bfloat16) == "bfloat16"


def test_float_info_follows_from_the_widths_of_the_fields():
    """Notebook 02's first table: the ULP of 1, the smallest normal and subnormal values.

    The notebook derives them from the exponent and fraction widths; the package's
    float_info (NumPy's and ml_dtypes' finfo) reports the same.
    """
    widths = {"float32": (8, 23), "float16": (5, 10), "bfloat16": (8, 7)}
    for name, (exponent, fraction) in widths.items():
        info, bias = dtypes.float_info(name), 2 ** (exponent - 1) - 1
        assert 8 * dtypes.as_dtype(name).itemsize == 1 + exponent + fraction
        assert (int(info.nexp), int(info.nmant)) == (exponent, fraction)
        assert float(info.eps) == 2.0**-fraction
        assert float(info.tiny) == 2.0 ** (1 - bias)
        assert float(info.smallest_subnormal) == 2.0 ** (1 - bias - fraction)


def cpp_dtype_rows(header: str) -> dict[int, tuple[int, str]]:
    """The rows of the C++ table ``MISHGRAD_DTYPES``: aclDataType code -> (size, entry suffix)."""
    table = header[header.index("#define MISHGRAD_DTYPES(X)") :].split("\n\n")[0]
    rows = re.findall(r'X\(\w+, (\d+), "\w+", (\d+), (\w+)\)', table)
    return {int(code): (int(size), suffix) for code, size, suffix in rows}


def test_the_python_and_cpp_dtype_tables_agree():
    """One table per language: the same dtypes, aclDataType codes, sizes and entry names."""
    header = (OPERATOR_DIR / "common" / "mish_grad_dtypes.h").read_text()
    python = {r.acl_code: (r.numpy.itemsize, r.entry_suffix) for r in dtypes.TABLE.values()}
    assert cpp_dtype_rows(header) == python
    dropped = header.replace('    X(kDtBf16, 27, "BFLOAT16", 2, bfloat16)', "")
    assert cpp_dtype_rows(dropped) != python  # the check sees a row missing


def test_the_c_types_are_the_kernels_dtype_x():
    """Each record's C type is float or one the twin defines for 16-bit floats."""
    header = (TWIN_DIR / "include" / "twin" / "numeric_types.h").read_text()
    for record in dtypes.TABLE.values():
        assert record.c_type == "float" or re.search(rf"\b{record.c_type}\b", header), record
