"""The tables of ``make exhaustive``'s result: one row per region of x (notebook 11).

The full run's file is stored in the repository (``bench/results/exhaustive.json``, with its
tables as ``.md``), written by ``bench/exhaustive_run.py``; notebook 11 reads its targets from
the file and shows its regions with :func:`region_table`, in the notebook's language.
"""

import math
from typing import Final

from mishgrad.evaluation import exhaustive

from .report import fmt, table

_COLUMNS: Final = (
    "region", "inputs", "max ULP", "% correctly rounded", "% within 1 ULP", "MERE", "MARE",
    "max rel. error (d normal)", "max abs. error (d subnormal)", "NaN/Inf", "wrong sign", "flushes",
)  # fmt: skip


def number(value: float | None, digits: int = 3) -> str:
    """A table cell: ``value`` to ``digits`` significant digits, a dash when there is none."""
    return "–" if value is None or math.isnan(value) else fmt(value, digits)


def region_table(regions: dict[str, exhaustive.Stats]) -> str:
    """Markdown table: one row per region, then the finite and all-input totals."""
    rows = dict(regions)
    rows["all finite x"] = exhaustive.combined(regions, exhaustive.FINITE_REGIONS)
    rows["all x"] = exhaustive.combined(regions)
    cells = [
        [
            name,
            f"{s['count']:,}",
            number(s["max_ulp"]),
            number(exhaustive.correctly_rounded_pct(s), 6),
            number(exhaustive.within_1ulp_pct(s), 6),
            number(exhaustive.mere(s)),
            number(s["mare"]),
            number(s["max_rel_error"]),
            number(s["max_abs_error"]),
            s["spurious_nonfinite"],
            s["wrong_sign"],
            s["flushes"],
        ]
        for name, s in rows.items()
    ]
    return table(cells, _COLUMNS).data
