"""The result file of ``make exhaustive`` read back: its verdict (:func:`met`) and its Markdown.

The file (``exhaustive_run.write``) holds the run's plan, the backend it ran on, each kernel
run's statistics per region with its target checks, each reference formula's, and the 16-bit
kernels' checks. The Markdown (:func:`markdown`) shows the same tables for every backend — the
twin under its numerics models or an NPU — with a line naming the backend, its SoC and which
kernel ran, and a table of what the run says of the five assumptions about the vector unit
(:func:`exhaustive_check.vector_unit`).
"""

from dataclasses import asdict
from typing import Any

import exhaustive_check

from mishgrad.book.exhaustive_report import number, region_table
from mishgrad.book.report import fmt, table
from mishgrad.evaluation import exhaustive


def met(results: dict[str, Any]) -> bool:
    """Whether every target and assumption holds for every kernel run (references aside)."""
    entries = results["models"].values()
    checks = [check["met"] for entry in entries for check in entry["targets"]]
    checks += [check.met for e in entries for check in exhaustive_check.vector_unit(e["regions"])]
    checks += [
        check["met"]
        for dtypes in results.get("sixteen_bit", {}).values()
        for entry in dtypes.values()
        for check in entry["targets"]
    ]
    return all(checks)


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
    rows = [[name, number(finite_within_1ulp_pct(e), 6)] for name, e in entries(results).items()]
    return table(rows, ["d computed by", "% within 1 ULP, all finite x"]).data


def _checks_table(label: str, columns: dict[str, list[dict[str, Any]]], verdicts: str) -> str:
    """Markdown table of checks, a row per check and a column each of ``columns``' lists.

    ``verdicts`` is the words for a check met and missed, separated by "/".
    """
    yes, no = verdicts.split("/")
    rows = [
        [f"{row[0]['criterion']} {row[0]['target']}"]
        + [f"{fmt(c['measured'], 3)} {yes if c['met'] else no}" for c in row]
        for row in zip(*columns.values(), strict=True)
    ]
    return table(rows, [label, *columns]).data


def _sixteen_bit_table(results: dict[str, Any]) -> str:
    per_model = results.get("sixteen_bit")
    if not per_model:
        return "float16 and bfloat16: not part of this run."
    columns = {
        model: [
            {**check, "criterion": f"{name}: {check['criterion']}"}
            for name, entry in dtypes.items()
            for check in entry["targets"]
        ]
        for model, dtypes in per_model.items()
    }
    return _checks_table("float16 and bfloat16, every finite input", columns, "met/MISSED")


def markdown(results: dict[str, Any]) -> str:
    """The result file in Markdown, a table per part.

    The targets under every model, the share within 1 ULP, what the run says of the vector
    unit, the 16-bit targets, then the regions of each model and reference.
    """
    models, plan, backend = results["models"], results["plan"], results["backend"]
    what = "every" if plan["stride"] == 1 else f"every {plan['stride']}th"
    assumed = {
        model: [asdict(c) for c in exhaustive_check.vector_unit(entry["regions"])]
        for model, entry in models.items()
    }
    parts = [
        f"Backend {backend['name']} on {backend['soc']}: {backend['kernel']}.",
        f"The kernel, float32 without tanhx, grad = 1: {plan['inputs']:,} inputs ({what} "
        "float32 bit pattern) against the correctly rounded d.",
        _checks_table("target", {m: e["targets"] for m, e in models.items()}, "met/MISSED"),
        within_1ulp_table(results),
        "What the run says of the vector unit: the float32 results rest on five assumptions "
        "about it (kernel/mish_grad/README.md), each shown by one figure of the regions below "
        "(a saturation mode shows in the 16-bit rows of NaN and ±inf too).",
        _checks_table("assumption: figure", assumed, "as assumed/NOT as assumed"),
        _sixteen_bit_table(results),
    ]
    references = results.get("references", {})
    for model, entry in {**models, **references}.items():
        parts.append(f"**{model}** ({entry['seconds']:.0f} s on the machine that ran it)")
        parts.append(region_table(entry["regions"]))
    return "\n\n".join(parts) + "\n"
