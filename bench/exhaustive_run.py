"""The kernel over every float32 input (``make exhaustive``) on a backend: tiles, resuming, results.

The 2**32 bit patterns (every ``stride``-th one, for a shorter run) are visited in tiles of
consecutive patterns: each tile runs through the kernel (``aclnnMishBackward``, grad = 1, no
tanhx) on a backend (:class:`exhaustive_device.Device`: the twin under one of its numerics
models, or an NPU) — or through a reference formula of :data:`REFERENCES`, to compare with —
and through :func:`exhaustive_check.check`, and its statistics are merged into a summary that
is written to disk after every tile. Memory stays at a few tiles' worth of arrays, and an
interrupted run resumes at the first tile the summary does not contain. A summary records
what it was computed from (the model, the stride and tile size, the backend, its SoC and
kernel, and the hash of the oracle library, which names its build folder); if any of them
changed, the run starts again from the first tile. :func:`result` condenses a model's summary
into its entry of the result file (run time, statistics per region, the target checks),
:func:`measure` sweeps every model and then the 16-bit kernels, :func:`write` writes the file
and its tables (``exhaustive_results``).

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

import accuracy_runs
import exhaustive_check
import numpy as np
from error_summary import Check
from exhaustive_device import Device
from exhaustive_results import markdown
from pytorch_formula import dmish_pytorch

from mishgrad.evaluation import exhaustive, precision
from mishgrad.math import oracle
from mishgrad.math.dtypes import DTYPES, TABLE, float32
from mishgrad.paths import REPOSITORY

#: Number of float32 bit patterns.
PATTERNS: Final = 1 << 32
#: Where the summaries of runs are kept.
SUMMARIES: Final = REPOSITORY / "build" / "exhaustive"
#: Inputs per tile, one ``aclnnMishBackward`` call: 16 MiB per float32 array, about a tenth of
#: a second of kernel time on the twin.
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


def identity(device: Device, model: str, plan: Plan) -> dict[str, Any]:
    """What a summary is computed from; a summary is resumed only if this matches."""
    computed_by = (
        f"numpy {np.__version__}"
        if model in REFERENCES
        else f"{device.name} on {device.soc}: {device.kernel_identity()}"
    )
    return {
        "format": SUMMARY_FORMAT,
        "model": model,
        "stride": plan.stride,
        "tile": plan.tile,
        "kernel": computed_by,
        "oracle": exhaustive_check.library_path().parent.name,
    }


def _derivative(device: Device, model: str, x: np.ndarray, out: np.ndarray) -> None:
    """d(x) into ``out``: the kernel on ``device`` under ``model``, or a reference formula."""
    out[:] = REFERENCES[model](x) if model in REFERENCES else device.derivative(x, model)


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
    device: Device,
    model: str,
    plan: Plan,
    path: Path,
    progress: Callable[[int, int, float], None] | None = None,
) -> Summary:
    """Run (or resume) ``model`` over ``plan``'s inputs, keeping the summary at ``path``.

    Parameters
    ----------
    device
        The backend the kernel runs on.
    model
        One of ``device.models`` (the twin's numerics models, or the NPU), or a reference
        formula's name (:data:`REFERENCES`).
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
    AclError
        If the backend refuses a call (:class:`mishgrad.aclnn.AclError`; the tile is not
        counted).

    """
    summary, _ = load_summary(path, identity(device, model, plan))
    size = min(plan.tile, plan.inputs)
    bits, out = np.empty(size, np.uint32), np.empty(size, float32)
    inputs, seconds = 0, 0.0
    for index in range(summary["tiles_done"], plan.tiles):
        start = time.perf_counter()
        x = plan.x(index, bits)
        _derivative(device, model, x, out[: x.size])
        regions = exhaustive_check.check(x, out[: x.size])
        if (undecided := _undecided(regions)) is not None:
            raise ArithmeticError(f"the oracle could not round d({undecided!r})")
        if identity(device, model, plan) != summary["identity"]:
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


#: Where a run of every input on the twin is stored (an NPU's: beside it, named by backend and SoC).
RESULTS: Final = REPOSITORY / "bench" / "results" / "exhaustive"
#: The dtypes whose every finite input a run also sends through the kernel.
SIXTEEN_BIT: Final = tuple(name for name, record in TABLE.items() if record.exhaustive)


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


def _wrong_specials(device: Device, model: str, name: str) -> Check:
    """NaN, +inf and -inf of dtype ``name`` whose d is not NaN, 1 and 0 (a cast that saturates)."""
    x = np.array([np.nan, np.inf, -np.inf], dtype=DTYPES[name])
    d, truth = device.derivative(x, model), oracle.dmish_oracle(x)
    wrong = int(np.sum((d != truth) & ~(np.isnan(d) & np.isnan(truth))))
    return Check("NaN, ±inf x with a wrong d", wrong, "= 0", wrong == 0)


def _sixteen_bit_entry(run: accuracy_runs.ModelResult, specials: Check) -> dict[str, Any]:
    """One dtype under one model: its inputs, its targets, CANN's MERE and MARE, the specials."""
    cann, power = run.cann, f"2^{TABLE[run.cann.dtype].threshold_exponent}"
    checks = [
        *run.checks,
        Check("MERE", cann.mere, f"< {power}", cann.mere_passed),
        Check("MARE", cann.mare, f"< {precision.MARE_FACTOR}·{power}", cann.mare_passed),
        specials,
    ]
    return {"inputs": run.summary.count, "targets": [asdict(check) for check in checks]}


def sixteen_bit(device: Device, models: list[str]) -> dict[str, dict[str, Any]]:
    """Every finite input of each dtype of :data:`SIXTEEN_BIT` through the kernel, per model.

    Then NaN and ±inf, which the float32 sweep has of its own: a 16-bit result is a cast, where
    a saturation mode would show.
    """
    runs = {
        name: accuracy_runs.sixteen_bit(name, models, device.derivative) for name in SIXTEEN_BIT
    }
    return {
        model: {
            name: _sixteen_bit_entry(runs[name][model], _wrong_specials(device, model, name))
            for name in SIXTEEN_BIT
        }
        for model in models
    }


def measure(device: Device, plan: Plan, models: list[str], folder: Path) -> dict[str, Any]:
    """The result file's contents: each of ``models`` swept over ``plan``, then the 16-bit kernels.

    ``models`` are models of ``device`` or references; each one's summary is kept in
    ``folder`` (and resumed from there), with a progress bar on stderr.
    """
    kernel, references = {}, {}
    for model in models:
        path = folder / f"{model}-stride{plan.stride}.json"
        _, why = load_summary(path, identity(device, model, plan))
        print(f"{model}: {plan.inputs:,} inputs in {plan.tiles} tiles; {why}", file=sys.stderr)
        summary = sweep(device, model, plan, path, Progress(model, plan))
        (references if model in REFERENCES else kernel)[model] = result(summary)
    return {
        "plan": {"stride": plan.stride, "inputs": plan.inputs},
        "backend": device.describe(),
        "models": kernel,
        "references": references,
        "sixteen_bit": sixteen_bit(device, list(kernel)),
    }


def results_stem(backend: dict[str, Any], stride: int, folder: Path) -> Path:
    """Where the result file of a run on ``backend`` (its entry in the file) is written.

    Every input: :data:`RESULTS` for the twin, ``exhaustive-<backend>-<SoC>`` beside it for an
    NPU. A stride: ``results-<backend>-stride<N>`` in ``folder``, beside the summaries.
    """
    if stride > 1:
        return folder / f"results-{backend['name']}-stride{stride}"
    if backend["name"] == "twin":
        return RESULTS
    return RESULTS.with_name(f"exhaustive-{backend['name']}-{backend['soc']}")


def load(stem: Path = RESULTS) -> dict[str, Any]:
    """The result file written by :func:`write` (default: the stored full run)."""
    return json.loads(stem.with_suffix(".json").read_text())


def write(results: dict[str, Any], stem: Path) -> None:
    """Write ``results`` to ``stem``.json and its Markdown rendering to ``stem``.md."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    stem.with_suffix(".md").write_text(markdown(results))
