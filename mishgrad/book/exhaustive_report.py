"""The result of ``make exhaustive``: one file per run, and its tables in Markdown.

:func:`result` condenses a model's summary (:mod:`mishgrad.evaluation.exhaustive_run`) into
its entry of the result file: run time, statistics per region and the target checks. The full run's
file is stored in the repository (``bench/results/exhaustive.json``, with its tables as
``.md``); notebook 11 reads its targets from the file and shows its regions with
:func:`region_table`.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any, Final

from mishgrad.evaluation import exhaustive
from mishgrad.evaluation.exhaustive_run import Summary
from mishgrad.paths import REPOSITORY

from .i18n import translate
from .report import fmt, table

#: The stored result of the full run (``.json``, and its tables as ``.md``).
RESULTS: Final = REPOSITORY / "bench" / "results" / "exhaustive"

_COLUMNS: Final = (
    "region",
    "inputs",
    "max ULP",
    "% correctly rounded",
    "% within 1 ULP",
    "MERE",
    "MARE",
    "max rel. error (d normal)",
    "max abs. error (d subnormal)",
    "NaN/Inf",
    "wrong sign",
    "flushes",
)


def result(summary: Summary) -> dict[str, Any]:
    """One model's entry of the result file: time, statistics per region, target checks.

    A reference formula's entry (``references`` in the file) has the same fields; its checks
    are not the kernel's verdict.
    """
    return {
        "seconds": summary["seconds"],
        "regions": summary["regions"],
        "targets": [asdict(check) for check in exhaustive.targets(summary["regions"])],
    }


def _number(value: float | None, digits: int = 3) -> str:
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
            _number(s["max_ulp"]),
            _number(exhaustive.correctly_rounded_pct(s), 6),
            _number(exhaustive.within_1ulp_pct(s), 6),
            _number(exhaustive.mere(s)),
            _number(s["mare"]),
            _number(s["max_rel_error"]),
            _number(s["max_abs_error"]),
            s["spurious_nonfinite"],
            s["wrong_sign"],
            s["flushes"],
        ]
        for name, s in rows.items()
    ]
    return table(cells, _COLUMNS).data


def finite_within_1ulp_pct(entry: dict[str, Any]) -> float:
    """An entry's share of results within 1 ULP over every finite x, in percent."""
    return exhaustive.within_1ulp_pct(
        exhaustive.combined(entry["regions"], exhaustive.FINITE_REGIONS)
    )


def entries(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The result file's entries by what computed d: ``kernel, <model>``, then each reference."""
    named = {f"kernel, {model}": entry for model, entry in results["models"].items()}
    return named | results.get("references", {})


def within_1ulp_table(results: dict[str, Any]) -> str:
    """Markdown table: the share within 1 ULP over all finite x, per model and reference."""
    rows = [[name, _number(finite_within_1ulp_pct(e), 6)] for name, e in entries(results).items()]
    return table(rows, ["d computed by", "% within 1 ULP, all finite x"]).data


def _target_cell(check: dict[str, Any]) -> str:
    measured = fmt(check["measured"], 3)
    return translate(f"{measured} met" if check["met"] else f"{measured} MISSED")


def markdown(results: dict[str, Any]) -> str:
    """The result file in Markdown: the targets under every model, then a table per model."""
    models, plan = results["models"], results["plan"]
    what = "every" if plan["stride"] == 1 else f"every {plan['stride']}th"
    checks = zip(*(entry["targets"] for entry in models.values()), strict=True)
    targets = [
        [f"{row[0]['criterion']} {row[0]['target']}"] + [_target_cell(c) for c in row]
        for row in checks
    ]
    # In the reader's language when a notebook shows it (bench/ writes it in English).
    parts = [
        translate(
            f"The kernel on the twin, float32 without tanhx, grad = 1: {plan['inputs']:,} inputs "
            f"({what} float32 bit pattern) against the correctly rounded d."
        ),
        table(targets, ["target", *models]).data,
        within_1ulp_table(results),
    ]
    references = results.get("references", {})
    for model, entry in {**models, **references}.items():
        parts.append(
            translate(f"**{model}** ({entry['seconds']:.0f} s on the machine that ran it)")
        )
        parts.append(region_table(entry["regions"]))
    return "\n\n".join(parts) + "\n"


def load(stem: Path = RESULTS) -> dict[str, Any]:
    """The result file written by :func:`write` (default: the stored full run)."""
    return json.loads(stem.with_suffix(".json").read_text())


def write(results: dict[str, Any], stem: Path) -> None:
    """Write ``results`` to ``stem``.json and its Markdown rendering to ``stem``.md."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    stem.with_suffix(".md").write_text(markdown(results))
