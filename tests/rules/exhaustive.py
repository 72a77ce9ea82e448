"""The stored exhaustive run (bench/results/exhaustive.json) covers every float32 input under
every numerics model, in the layout bench/exhaustive_run.py writes (tests/test_exhaustive.py
holds a 2**24-input stride of a fresh run to the same layout)."""

from __future__ import annotations

import copy
import math
from functools import cache

import exhaustive_check
import exhaustive_run

from mishgrad.evaluation import exhaustive
from mishgrad.kernel import twin
from rules.shared import Rule, where

#: Every float32 bit pattern.
INPUTS = 1 << 32
STORED = where(exhaustive_run.RESULTS.with_suffix(".json"))
stored = cache(exhaustive_run.load)


def layout_problems(results: dict, models: list[str]) -> list[str]:
    """A result file not laid out as exhaustive_report writes it for ``models``."""
    problems = []
    if list(results["models"]) != models:
        problems.append(f"models {list(results['models'])}, not {models}")
    criteria: list[str] = []
    for model, entry in results["models"].items():
        if not entry["seconds"] > 0:
            problems.append(f"{model}: {entry['seconds']} s")
        if list(entry["regions"]) != list(exhaustive.REGIONS):
            problems.append(f"{model}: regions {list(entry['regions'])}")
        problems += [
            f"{model}: {region}: statistics {sorted(stats)}"
            for region, stats in entry["regions"].items()
            if set(stats) != set(exhaustive.empty_stats())
        ]
        criteria = [check.criterion for check in exhaustive_check.targets(entry["regions"])]
        if [check["criterion"] for check in entry["targets"]] != criteria:
            problems.append(f"{model}: the targets are not {criteria}")
    lines = exhaustive_run.markdown(results).splitlines()
    rows = len(models) + len(results.get("references", {}))
    problems += [
        f"the table has {count} rows of {criterion}, not 1"
        for criterion in criteria
        if (count := sum(line.startswith(f"| {criterion} ") for line in lines)) != 1
    ]
    problems += [
        f"the table has {count} rows of the region {name}, not {rows}"
        for name in exhaustive.REGIONS
        if (count := sum(line.startswith(f"| {name} |") for line in lines)) != rows
    ]
    shares = [line for line in lines if line.startswith(("| kernel, ", "| pytorch |"))]
    if len(shares) != rows:
        problems.append(f"the within-1-ULP table has {len(shares)} rows, not {rows}")
    return problems


def coverage_problems(results: dict) -> list[str]:
    """A stored run that is not every input under every model (and PyTorch's formula)."""
    problems = layout_problems(results, list(twin.NUMERICS_MODELS))
    if results["plan"] != {"stride": 1, "inputs": INPUTS}:
        problems.append(f"the plan is {results['plan']}, not every input")
    pytorch = exhaustive.combined(results["references"]["pytorch"]["regions"])["count"]
    if pytorch != INPUTS:
        problems.append(f"PyTorch's formula ran on {pytorch} inputs, not {INPUTS}")
    counts = [exhaustive.combined(e["regions"])["count"] for e in results["models"].values()]
    if not math.isclose(sum(counts), len(twin.NUMERICS_MODELS) * INPUTS):
        problems.append(f"the models ran on {counts} inputs, not {INPUTS} each")
    return [f"{STORED}: {problem}" for problem in problems]


def _a_stride() -> dict:
    """The stored run, as if it had run on every 256th input only."""
    results = copy.deepcopy(stored())
    results["plan"] = {"stride": 256, "inputs": INPUTS // 256}
    return results


RULES = [
    Rule(
        "the stored exhaustive run covers every input under every model",
        lambda: coverage_problems(stored()),
        lambda _tmp: coverage_problems(_a_stride()),
        ("the plan is {'stride': 256",),
    ),
]
