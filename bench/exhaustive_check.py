"""Every float32 input: the kernel's errors against a fast, correctly rounded oracle.

The float32 sample of :mod:`mishgrad.math.samples` is a sample; this module makes the check a
proof. Its C++ half (``bench/native``) computes the correctly rounded d(x) for a tile of
inputs, in float64 with a proven error bound and in binary128 only where that bound cannot
decide the rounding (the method of :mod:`mishgrad.math.oracle`, which is authoritative and
against which the tests pin it), and adds the kernel's errors to statistics per region of x
(:func:`check`; the regions and the merging of statistics are
:mod:`mishgrad.evaluation.exhaustive`'s). ``exhaustive_run.py`` drives the kernel over all
2**32 bit patterns, tile by tile; :func:`targets` judges the statistics against the float32
targets that must hold under every numerics model.

The element-wise metrics are those of :mod:`mishgrad.math.errors` (ULP distance, spurious
NaN/Inf, wrong sign, relative and absolute error) and ``precision_standard.py`` (CANN's
relative error with its floor, MERE and MARE), evaluated in C++ for speed.
"""

from __future__ import annotations

import ctypes
import math
import os
from functools import cache
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt
from error_summary import Check

from mishgrad.evaluation import precision
from mishgrad.evaluation.exhaustive import (
    EXP_SUBNORMAL_EDGE,
    FINITE_REGIONS,
    MAXIMA,
    REGIONS,
    Stats,
    combined,
    mere,
    merge,
)
from mishgrad.kernel import twin_build
from mishgrad.math import errors
from mishgrad.math.dtypes import TABLE, float32


class RegionStats(ctypes.Structure):
    """``ExhaustiveRegionStats`` (native/exhaustive.cpp), field for field.

    Its first fields are :data:`~mishgrad.evaluation.exhaustive.SUMS`, then the maxima of
    :data:`~mishgrad.evaluation.exhaustive.MAXIMA` and their x.
    """

    _fields_ = [
        ("count", ctypes.c_uint64),
        ("correctly_rounded", ctypes.c_uint64),
        ("within_1ulp", ctypes.c_uint64),
        ("spurious_nonfinite", ctypes.c_uint64),
        ("wrong_sign", ctypes.c_uint64),
        ("flushes", ctypes.c_uint64),
        ("fallbacks", ctypes.c_uint64),
        ("undecided", ctypes.c_uint64),
        ("sum_relative", ctypes.c_double),
        ("mare", ctypes.c_double),
        ("max_ulp", ctypes.c_double),
        ("max_rel_error", ctypes.c_double),
        ("max_abs_error", ctypes.c_double),
        ("worst_mare_x", ctypes.c_float),
        ("worst_ulp_x", ctypes.c_float),
        ("worst_rel_error_x", ctypes.c_float),
        ("worst_abs_error_x", ctypes.c_float),
        ("undecided_x", ctypes.c_float),
    ]


#: The C++ sources of the oracle and the statistics.
NATIVE_DIR: Final = Path(__file__).resolve().parent / "native"


class _Config(ctypes.Structure):
    _fields_ = [
        ("root_low", ctypes.c_double),
        ("root_high", ctypes.c_double),
        ("exp_subnormal_edge", ctypes.c_double),
        ("floor", ctypes.c_double),
        ("threads", ctypes.c_uint32),
    ]


def native_spec() -> twin_build.BuildSpec:
    """The oracle-and-statistics library (the twin's build machinery, with libquadmath)."""
    units = ((NATIVE_DIR / "exhaustive.cpp", ()),)
    return twin_build.BuildSpec(
        "mishgrad_exhaustive", units, (NATIVE_DIR,), "release", ("quadmath",)
    )


@cache
def _load(path: Path) -> ctypes.CDLL:
    library = ctypes.CDLL(str(path))
    pointer = ctypes.c_void_p
    library.exhaustive_oracle.argtypes = [pointer, pointer, ctypes.c_uint64, pointer]
    library.exhaustive_oracle.restype = ctypes.c_int64
    library.exhaustive_check.argtypes = [pointer, pointer, ctypes.c_uint64, pointer, pointer]
    library.exhaustive_check.restype = None
    library.exhaustive_regions.argtypes = [pointer, pointer, ctypes.c_uint64, pointer, pointer]
    library.exhaustive_regions.restype = None
    library.exhaustive_region_count.restype = ctypes.c_uint32
    if library.exhaustive_region_count() != len(REGIONS):
        raise RuntimeError(
            f"{path.name} has other regions than mishgrad.evaluation.exhaustive.REGIONS"
        )
    return library


def library_path() -> Path:
    """The built library (its folder name carries the hash of its sources)."""
    return twin_build.build(native_spec())


def _library() -> ctypes.CDLL:
    return _load(library_path())


def _config(threads: int | None = None) -> _Config:
    low, high = errors.ROOT_WINDOW
    count = threads or os.cpu_count() or 1
    return _Config(low, high, EXP_SUBNORMAL_EDGE, precision.FLOOR, count)


def _float32(name: str, values: npt.ArrayLike) -> np.ndarray:
    array = np.ascontiguousarray(values)
    if array.dtype != float32:
        raise ValueError(f"{name} must be float32, got {array.dtype}")
    return array.ravel()


def oracle(x: npt.ArrayLike) -> np.ndarray:
    """Correctly rounded d(x) for float32 ``x``, from the C++ oracle (one thread).

    Raises
    ------
    ValueError
        If ``x`` is not float32.
    ArithmeticError
        If binary128 could not decide a rounding (never observed; names the x).

    """
    x = _float32("x", x)
    out = np.empty_like(x)
    undecided = ctypes.c_float()
    status = _library().exhaustive_oracle(
        x.ctypes.data, out.ctypes.data, x.size, ctypes.byref(undecided)
    )
    if status < 0:
        raise ArithmeticError(f"the rounding of d({undecided.value!r}) is undecided")
    return out


def regions_of(x: npt.ArrayLike, d: npt.ArrayLike) -> np.ndarray:
    """Index into :data:`REGIONS` of each float32 ``x`` whose correctly rounded d(x) is ``d``."""
    x, d = _float32("x", x), _float32("d", d)
    if x.size != d.size:
        raise ValueError(f"x has {x.size} elements, d {d.size}: they must match")
    out = np.empty(x.size, dtype=np.uint32)
    config = _config()
    _library().exhaustive_regions(
        x.ctypes.data, d.ctypes.data, x.size, ctypes.byref(config), out.ctypes.data
    )
    return out


def _from_struct(row: RegionStats) -> Stats:
    stats = {name: getattr(row, name) for name, _ in RegionStats._fields_}
    return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in stats.items()}


def check(x: npt.ArrayLike, actual: npt.ArrayLike, threads: int | None = None) -> dict[str, Stats]:
    """Statistics of ``actual`` (the kernel's d for float32 ``x``) per region of :data:`REGIONS`.

    Raises
    ------
    ValueError
        If the arrays are not float32 or differ in size.

    """
    x, actual = _float32("x", x), _float32("actual", actual)
    if x.size != actual.size:
        raise ValueError(f"x has {x.size} elements, actual {actual.size}: they must match")
    config = _config(threads)
    rows = (RegionStats * (config.threads * len(REGIONS)))()
    for row in rows:
        for name in [*MAXIMA.values(), "undecided_x"]:
            setattr(row, name, math.nan)
    _library().exhaustive_check(
        x.ctypes.data, actual.ctypes.data, x.size, ctypes.byref(config), rows
    )
    per_thread = [_from_struct(row) for row in rows]
    return {name: merge(per_thread[i :: len(REGIONS)]) for i, name in enumerate(REGIONS)}


def merge_regions(a: dict[str, Stats], b: dict[str, Stats]) -> dict[str, Stats]:
    """Region-wise :func:`merge` of two sets of per-region statistics."""
    return {name: merge([a[name], b[name]]) for name in REGIONS}


def targets(regions: dict[str, Stats]) -> list[Check]:
    """The float32 targets of :mod:`mishgrad.math.errors` and CANN's MERE/MARE, on every input."""
    everything, finite = combined(regions), combined(regions, FINITE_REGIONS)
    t, power = precision.threshold("float32"), f"2^{TABLE['float32'].threshold_exponent}"
    limit = precision.MARE_FACTOR * t
    positive = regions[REGIONS[0]]["max_ulp"]
    return [
        Check(
            "spurious NaN/Inf",
            everything["spurious_nonfinite"],
            "= 0",
            everything["spurious_nonfinite"] == 0,
        ),
        Check("wrong sign", everything["wrong_sign"], "= 0", everything["wrong_sign"] == 0),
        Check("normal d flushed to 0", everything["flushes"], "= 0", everything["flushes"] == 0),
        Check(
            "max ULP, x ≥ 0",
            positive,
            f"≤ {TABLE['float32'].max_ulp:g}",
            positive <= TABLE["float32"].max_ulp,
        ),
        Check(
            "max rel. error, d normal",
            everything["max_rel_error"],
            f"≤ {TABLE['float32'].max_rel_error:g}",
            everything["max_rel_error"] <= TABLE["float32"].max_rel_error,
        ),
        Check(
            "max abs. error, d subnormal",
            everything["max_abs_error"],
            "≤ 2^-126",
            everything["max_abs_error"] <= errors.FLOAT32_MAX_ABS_ERROR_SUBNORMAL,
        ),
        Check("MERE (finite x)", mere(finite), f"< {power}", mere(finite) < t),
        Check(
            "MARE (finite x)",
            finite["mare"],
            f"< {precision.MARE_FACTOR}·{power}",
            finite["mare"] < limit,
        ),
    ]


#: The assumptions about Atlas A2's vector unit the float32 results rest on, none documented
#: for A2 (``kernel/mish_grad/README.md``, "The kernel in one paragraph" and "How the twin
#: rounds Exp and Div"), each with the figure of the run that shows it.
VECTOR_UNIT: Final = (
    "`Exp` and `Div` faithful (1 ULP)",
    "`Mul` and `Add` keep subnormal operands",
    "`Maxs` and `Mins` IEEE on ±inf and NaN",
    "`Select`'s scratch within its 8 KB",
    "saturation mode off",
)
#: The largest ULP distance of a subnormal d: the last `Mul` rounds once at subnormal spacing,
#: to which the normal factor's few ULP of 24 bits add less than one.
SUBNORMAL_MAX_ULP: Final = 2.0


def vector_unit(regions: dict[str, Stats]) -> list[Check]:
    """What a run's ``regions`` say about each assumption of :data:`VECTOR_UNIT`, in order.

    - Faithful `Exp` and `Div`: for x ≥ 0 d is 1 minus one quotient of one exponential, and the
      4 ULP there hold under any faithful model; a less accurate unit breaks them first.
    - Subnormal operands: where d is subnormal, a flushed operand or result of the last `Mul`
      (or of the `Mul` by grad) returns 0, millions of ULP away (as PyTorch's formula, whose
      eˣ is flushed); kept, d is within :data:`SUBNORMAL_MAX_ULP`.
    - `Maxs` after `Exp` makes ±inf finite and must keep a NaN: a `Maxs` that does not gives
      NaN or ±inf x a wrong d.
    - Saturation mode (a runtime setting, ``SetCtrlSpr`` CTRL[48]) turns a NaN into 0 and an
      infinity into ±MAX when casting to half or bfloat16, which the 16-bit result file's row
      of NaN and ±inf shows; should it reach float32 arithmetic too, it shares the figure of
      `Maxs`.
    - `Select`'s tensor modes use the top 8 KB of UB as scratch, which the tiling leaves free;
      more, or elsewhere, overwrites a mask or a temporary, and lanes take the wrong branch:
      relative errors of order 1 where d is normal.
    """
    everything, specials = combined(regions), regions[REGIONS[-1]]
    positive, subnormal = regions[REGIONS[0]]["max_ulp"], regions[REGIONS[4]]["max_ulp"]
    wrong_specials = specials["count"] - specials["correctly_rounded"]
    limit = TABLE["float32"].max_rel_error
    figures = [
        ("max ULP, x ≥ 0", positive, f"≤ {TABLE['float32'].max_ulp:g}",
         positive <= TABLE["float32"].max_ulp),
        ("max ULP, d subnormal or 0", subnormal, f"≤ {SUBNORMAL_MAX_ULP:g}",
         subnormal <= SUBNORMAL_MAX_ULP),
        ("NaN, ±inf x with a wrong d", wrong_specials, "= 0", wrong_specials == 0),
        ("max rel. error, d normal", everything["max_rel_error"], f"≤ {limit:g}",
         everything["max_rel_error"] <= limit),
        ("NaN, ±inf x with a wrong d", wrong_specials, "= 0", wrong_specials == 0),
    ]  # fmt: skip
    return [
        Check(f"{assumption}: {figure}", measured, target, met)
        for assumption, (figure, measured, target, met) in zip(VECTOR_UNIT, figures, strict=True)
    ]
