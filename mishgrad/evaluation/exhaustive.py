"""Every float32 input, the kernel's errors by region of x: the regions and their statistics.

``make exhaustive`` runs the kernel over all 2**32 float32 bit patterns and sums its errors
per region of x (``bench/exhaustive_check.py``, with a C++ oracle); this module defines the
regions (:data:`REGIONS`), the statistics of each (:data:`Stats`), how they merge and the
shares the book reports; notebook 11 shows the stored result's regions
(:func:`mishgrad.book.exhaustive_report.region_table`).
"""

import math
from collections.abc import Iterable
from typing import Final

from mishgrad.math import errors

#: Below this x, e^x is subnormal in float32 (e^x < 2^-126): a kernel that forms e^x (or
#: lets its hardware flush it) loses d here, though d stays normal down to
#: :data:`mishgrad.math.errors.FLOAT32_SUBNORMAL_EDGE`.
EXP_SUBNORMAL_EDGE: Final = math.log(errors.FLOAT32_TINY)

#: Regions of x (the order of ``ExhaustiveRegion`` in native/exhaustive.cpp).
REGIONS: Final = (
    "x ≥ 0",
    f"root window [{errors.ROOT_WINDOW[0]}, {errors.ROOT_WINDOW[1]}]",
    f"{EXP_SUBNORMAL_EDGE:.4g} ≤ x < 0 outside the window",
    f"x < {EXP_SUBNORMAL_EDGE:.4g}, d normal (eˣ subnormal)",
    "d subnormal or 0",
    "NaN, ±inf",
)
#: The regions of finite x (MERE and MARE are taken over these).
FINITE_REGIONS: Final = REGIONS[:-1]

#: Statistics that add up over tiles (the first fields of ``ExhaustiveRegionStats``).
SUMS: Final = (
    "count", "correctly_rounded", "within_1ulp", "spurious_nonfinite", "wrong_sign", "flushes",
    "fallbacks", "undecided", "sum_relative",
)  # fmt: skip
#: Maxima, each with the x where it occurs.
MAXIMA: Final = {
    "mare": "worst_mare_x", "max_ulp": "worst_ulp_x", "max_rel_error": "worst_rel_error_x",
    "max_abs_error": "worst_abs_error_x",
}  # fmt: skip

Stats = dict[str, float | int | None]


def empty_stats() -> Stats:
    """Statistics of no input: zero counts and maxima, no worst x."""
    stats: Stats = dict.fromkeys(SUMS, 0)
    stats.update(dict.fromkeys(MAXIMA, 0.0))
    stats.update(dict.fromkeys([*MAXIMA.values(), "undecided_x"], None))
    return stats


def _raise(maximum: float, worst: float | None, value: float, x: float | None) -> bool:
    """True if (value, x) replaces (maximum, worst): the rule of native ``Raise``."""
    if value > maximum:
        return True
    return value == maximum and value > 0 and x is not None and (worst is None or x < worst)


def merge(parts: Iterable[Stats]) -> Stats:
    """Statistics of the union of disjoint inputs (sums add; maxima keep their x)."""
    merged = empty_stats()
    for part in parts:
        for name in SUMS:
            merged[name] += part[name]
        for name, where in MAXIMA.items():
            if _raise(merged[name], merged[where], part[name], part[where]):
                merged[name], merged[where] = part[name], part[where]
        merged["undecided_x"] = merged["undecided_x"] or part["undecided_x"]
    return merged


def combined(regions: dict[str, Stats], names: Iterable[str] = REGIONS) -> Stats:
    """One set of statistics over the named regions."""
    return merge(regions[name] for name in names)


def mere(stats: Stats) -> float:
    """CANN's MERE: the mean of the relative errors (NaN for no input)."""
    return stats["sum_relative"] / stats["count"] if stats["count"] else math.nan


def correctly_rounded_pct(stats: Stats) -> float:
    """Share of inputs with the correctly rounded result, in percent."""
    return 100.0 * stats["correctly_rounded"] / stats["count"] if stats["count"] else math.nan


def within_1ulp_pct(stats: Stats) -> float:
    """Share of inputs within 1 ULP of the correctly rounded result, in percent."""
    return 100.0 * stats["within_1ulp"] / stats["count"] if stats["count"] else math.nan
