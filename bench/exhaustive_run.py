"""The kernel on the twin over every float32 input (``make exhaustive``): tiles, resuming, results.

The 2**32 bit patterns (every ``stride``-th one, for a shorter run) are visited in tiles of
consecutive patterns: each tile runs through the kernel (grad = 1, no tanhx) under one
numerics model of the twin — or through a reference formula of :data:`REFERENCES`, to compare
with — and through :func:`mishgrad.evaluation.exhaustive_check.check`, and its
statistics are merged into a summary that is written to disk after every tile. Memory
stays at a few tiles' worth of arrays, and an interrupted run resumes at the first tile
the summary does not contain. A summary records what it was computed from (the model, the
stride and tile size, and the hashes of the twin library and of the oracle library, which
name their build folders); if any of them changed, the run starts again from the first
tile. :func:`result` condenses a model's summary into its entry of the result file (run time,
statistics per region, the target checks), :func:`write` writes the file and its tables.

``bench/exhaustive.py`` runs it, and the tests import it.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Final, TextIO

import exhaustive_check
import numpy as np
from pytorch_formula import dmish_pytorch

from mishgrad.book.exhaustive_report import number, region_table
from mishgrad.book.report import fmt, table
from mishgrad.evaluation import exhaustive
from mishgrad.kernel import twin, twin_build
from mishgrad.math.dtypes import float32
from mishgrad.paths import REPOSITORY

#: Number of float32 bit patterns.
PATTERNS: Final = 1 << 32
#: Where the summaries of runs are kept.
SUMMARIES: Final = REPOSITORY / "build" / "exhaustive"
#: Inputs per tile: 16 MiB per float32 array, about a tenth of a second of kernel time.
DEFAULT_TILE: Final = 1 << 22
#: Version of the summary file's layout (a summary of another layout is not resumed).
SUMMARY_FORMAT: Final = 1

#: Formulas swept like the kernel, to compare with: PyTorch's CPU formula in NumPy.
REFERENCES: Final[dict[str, Callable[[np.ndarray], np.ndarray]]] = {"pytorch": dmish_pytorch}

Summary = dict[str, Any]


@dataclass(frozen=True)
class Plan:
    """Which bit patterns a run visits (every ``stride``-th from 0) and how many per tile."""

    stride: int = 1
    tile: int = DEFAULT_TILE

    def __post_init__(self) -> None:
        if not 1 <= self.stride <= PATTERNS:
            raise ValueError(f"stride must be in [1, 2**32], got {self.stride}")
        if self.tile < 1:
            raise ValueError(f"tile must be positive, got {self.tile}")

    @property
    def inputs(self) -> int:
        """Number of inputs visited."""
        return -(-PATTERNS // self.stride)

    @property
    def tiles(self) -> int:
        """Number of tiles."""
        return -(-self.inputs // self.tile)

    @cached_property
    def _steps(self) -> np.ndarray:
        steps = np.arange(min(self.tile, self.inputs), dtype=np.uint64) * self.stride
        return steps.astype(np.uint32)

    def x(self, index: int, out: np.ndarray | None = None) -> np.ndarray:
        """The float32 inputs of tile ``index`` (their bits written into uint32 ``out``)."""
        first = index * self.tile
        size = min(self.tile, self.inputs - first)
        bits = np.empty(size, dtype=np.uint32) if out is None else out[:size]
        np.add(self._steps[:size], np.uint32(first * self.stride), out=bits)
        return bits.view(float32)


def identity(model: str, plan: Plan) -> dict[str, Any]:
    """What a summary is computed from; a summary is resumed only if this matches."""
    computed_by = (
        f"numpy {np.__version__}" if model in REFERENCES else twin_build.build().parent.name
    )
    return {
        "format": SUMMARY_FORMAT,
        "model": model,
        "stride": plan.stride,
        "tile": plan.tile,
        "kernel": computed_by,
        "oracle": exhaustive_check.library_path().parent.name,
    }


def _derivative(model: str, grad: np.ndarray, x: np.ndarray, out: np.ndarray) -> None:
    """d(x) into ``out``: the kernel under the numerics ``model``, or a reference formula."""
    if model in REFERENCES:
        out[:] = REFERENCES[model](x)
    else:
        twin.run_kernel(grad, x, numerics=model, out=out)


def fresh_summary(ident: dict[str, Any]) -> Summary:
    """A summary of no tile yet."""
    regions = {name: exhaustive.empty_stats() for name in exhaustive.REGIONS}
    return {"identity": ident, "tiles_done": 0, "seconds": 0.0, "regions": regions}


def load_summary(path: Path, ident: dict[str, Any]) -> tuple[Summary, str]:
    """The summary to continue from, and why: the stored one if it matches ``ident``."""
    if not path.exists():
        return fresh_summary(ident), "no summary yet"
    try:
        stored = json.loads(path.read_text())
    except json.JSONDecodeError:
        return fresh_summary(ident), f"{path} is not valid JSON: starting again"
    if stored.get("identity") != ident:
        return fresh_summary(ident), f"{path} was computed from other inputs: starting again"
    return stored, f"resuming at tile {stored['tiles_done']}"


def save_summary(path: Path, summary: Summary) -> None:
    """Write ``summary`` atomically (an interrupted write leaves the previous one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(summary, indent=1))
    os.replace(partial, path)


class Progress:
    """A one-line progress bar on a terminal stream, redrawn after each tile."""

    WIDTH: Final = 30

    def __init__(self, label: str, plan: Plan, stream: TextIO = sys.stderr) -> None:
        self.label, self.plan, self.stream = label, plan, stream

    def __call__(self, done: int, inputs: int, seconds: float) -> None:
        """Show ``done`` tiles; ``inputs`` and ``seconds`` are this run's so far (the rate)."""
        total = self.plan.tiles
        filled = self.WIDTH * done // total
        rate = inputs / seconds if seconds > 0 else math.inf
        left = max(self.plan.inputs - done * self.plan.tile, 0) / rate
        self.stream.write(
            f"\r{self.label:12s} [{'#' * filled}{'-' * (self.WIDTH - filled)}] "
            f"{100 * done / total:5.1f} %  {rate:8.3g} inputs/s  {left:6.0f} s left"
            + ("\n" if done == total else "")
        )
        self.stream.flush()


def _undecided(regions: dict[str, exhaustive.Stats]) -> float | None:
    return next((s["undecided_x"] for s in regions.values() if s["undecided"]), None)


def sweep(
    model: str,
    plan: Plan,
    path: Path,
    progress: Callable[[int, int, float], None] | None = None,
) -> Summary:
    """Run (or resume) ``model`` over ``plan``'s inputs, keeping the summary at ``path``.

    Parameters
    ----------
    model
        A numerics model of the twin (:data:`mishgrad.kernel.twin.NUMERICS_MODELS`), or a
        reference formula's name (:data:`REFERENCES`).
    plan
        The inputs and tiles.
    path
        The summary file: read to resume, rewritten after every tile.
    progress
        Called after each tile with the tiles done, and the inputs and seconds of this run.

    Raises
    ------
    ArithmeticError
        If the oracle could not decide a rounding (names the x; the summary is not updated).
    RuntimeError
        If the sources of the twin or the oracle change during the run (the tile is not
        counted: a summary never mixes two kernels).

    """
    summary, _ = load_summary(path, identity(model, plan))
    size = min(plan.tile, plan.inputs)
    grad, bits, out = np.ones(size, float32), np.empty(size, np.uint32), np.empty(size, float32)
    inputs, seconds = 0, 0.0
    for index in range(summary["tiles_done"], plan.tiles):
        start = time.perf_counter()
        x = plan.x(index, bits)
        _derivative(model, grad[: x.size], x, out[: x.size])
        regions = exhaustive_check.check(x, out[: x.size])
        if (undecided := _undecided(regions)) is not None:
            raise ArithmeticError(f"the oracle could not round d({undecided!r})")
        if identity(model, plan) != summary["identity"]:
            raise RuntimeError(
                "the kernel or the oracle sources changed during the run: run again to start "
                "over with the new ones"
            )
        summary["regions"] = exhaustive_check.merge_regions(summary["regions"], regions)
        summary["tiles_done"] = index + 1
        elapsed = time.perf_counter() - start
        summary["seconds"] += elapsed
        inputs, seconds = inputs + x.size, seconds + elapsed
        save_summary(path, summary)
        if progress is not None:
            progress(index + 1, inputs, seconds)
    return summary


RESULTS: Final = REPOSITORY / "bench" / "results" / "exhaustive"


def result(summary: Summary) -> dict[str, Any]:
    """One model's entry of the result file: time, statistics per region, target checks.

    A reference formula's entry (``references`` in the file) has the same fields; its checks
    are not the kernel's verdict.
    """
    return {
        "seconds": summary["seconds"],
        "regions": summary["regions"],
        "targets": [asdict(check) for check in exhaustive_check.targets(summary["regions"])],
    }


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


def _target_cell(check: dict[str, Any]) -> str:
    measured = fmt(check["measured"], 3)
    return f"{measured} met" if check["met"] else f"{measured} MISSED"


def markdown(results: dict[str, Any]) -> str:
    """The result file in Markdown: the targets under every model, then a table per model."""
    models, plan = results["models"], results["plan"]
    what = "every" if plan["stride"] == 1 else f"every {plan['stride']}th"
    checks = zip(*(entry["targets"] for entry in models.values()), strict=True)
    targets = [
        [f"{row[0]['criterion']} {row[0]['target']}"] + [_target_cell(c) for c in row]
        for row in checks
    ]
    parts = [
        f"The kernel on the twin, float32 without tanhx, grad = 1: {plan['inputs']:,} inputs "
        f"({what} float32 bit pattern) against the correctly rounded d.",
        table(targets, ["target", *models]).data,
        within_1ulp_table(results),
    ]
    references = results.get("references", {})
    for model, entry in {**models, **references}.items():
        parts.append(f"**{model}** ({entry['seconds']:.0f} s on the machine that ran it)")
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
