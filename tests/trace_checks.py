"""What the tests read from the kernel's trace beyond what the notebooks do.

Global-memory copies as intervals (:func:`copy_intervals`, :func:`covers_exactly`), each
tile's work per engine (:func:`tile_work`), the pipeline model notebook 06 writes as a
recurrence, as a schedule of every stage on its engine (:func:`stage_cycles`,
:func:`schedule`, :func:`makespan`; its busy and serial cycles :func:`busy_cycles`,
:func:`serial_cycles`), the tile count, the UB map against the tiling's budget
(:func:`budget_mismatches`) and v1's overrun of the UB (:func:`v1_overrun_bytes`): the tests
hold :mod:`mishgrad.kernel`'s trace, pipeline model and tiling to them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from mishgrad.kernel import tiling
from mishgrad.kernel.pipeline import PipelineModel
from mishgrad.kernel.tiling import v1_block_bytes
from mishgrad.kernel.trace import (
    COPY_OPS,
    core_events,
    is_copy_out,
    is_vector,
    op_names,
    tile_indices,
)
from mishgrad.kernel.ub_layout import UbBuffer

#: Pipeline stages in program order (:func:`mishgrad.kernel.trace.stages` labels them), and
#: the engine that runs each on the NPU.
STAGES = ("CopyIn", "Compute", "CopyOut")
ENGINES = {"CopyIn": "MTE2", "Compute": "Vector", "CopyOut": "MTE3"}


def copy_intervals(trace: np.ndarray, direction: str) -> np.ndarray:
    """``(start, end)`` byte intervals of the host tensors that copies read or wrote.

    Parameters
    ----------
    trace
        Records of every core.
    direction
        ``"in"`` (global memory to UB) or ``"out"`` (UB to global memory).

    Returns
    -------
    numpy.ndarray
        Shape (k, 2), sorted; a read interval appears once per input tensor.

    """
    if direction not in ("in", "out"):
        raise ValueError("direction must be 'in' or 'out'")
    ops = op_names(trace)
    copies = np.array([op in COPY_OPS for op in ops], dtype=bool)
    inward = trace["dst"] >= 0
    chosen = trace[copies & (inward if direction == "in" else ~inward)]
    start = chosen["gm_offset"].astype(np.int64)
    intervals = np.stack([start, start + chosen["bytes"].astype(np.int64)], axis=1)
    return intervals[np.lexsort((intervals[:, 1], intervals[:, 0]))]


def covers_exactly(intervals: np.ndarray, total_bytes: int, times: int = 1) -> bool:
    """True if the intervals cover ``[0, total_bytes)`` exactly ``times`` times, no byte more.

    Each distinct interval must occur ``times`` times, and the distinct intervals must
    tile the range without gaps or overlaps.
    """
    if len(intervals) == 0:
        return total_bytes == 0
    distinct, counts = np.unique(intervals, axis=0, return_counts=True)
    if not np.all(counts == times):
        return False
    starts, ends = distinct[:, 0], distinct[:, 1]
    return bool(starts[0] == 0 and ends[-1] == total_bytes and np.all(starts[1:] == ends[:-1]))


def repeats(op: str, count: int, nbytes: int) -> int:
    """256-byte repeats of one vector instruction.

    The element width is ``nbytes / count`` as traced, except for ``Cast``, whose repeat
    is set by its float32 side (the trace records the destination's bytes).
    """
    width = 4 if op == "Cast" else max(1, nbytes // max(count, 1))
    return -(-count * width // tiling.REPEAT_BYTES)


@dataclass(frozen=True)
class TileWork:
    """What one tile asks of each engine: bytes in, vector repeats and instructions, bytes out."""

    tile: int
    read_bytes: int
    vector_repeats: tuple[int, ...]
    write_bytes: int
    read_copies: int = 1
    write_copies: int = 1


@dataclass(frozen=True)
class Span:
    """One stage of one tile on its engine, in model cycles."""

    stage: str
    tile: int
    start: float
    end: float


def copy_bytes_per_cycle(model: PipelineModel) -> float:
    """One core's share of the bandwidth, in bytes per cycle."""
    return model.hbm_bytes_per_second / model.vector_cores / model.clock_hz


def stage_cycles(
    work: TileWork, model: PipelineModel, copy_latency: float = 0.0, vector_latency: float = 0.0
) -> dict[str, float]:
    """Model cycles of each stage of one tile.

    Each copy and each vector instruction may add a fixed start-up (``copy_latency``,
    ``vector_latency``).
    """
    per_cycle = copy_bytes_per_cycle(model)
    vector = (vector_latency + r * model.vector_cycles_per_repeat for r in work.vector_repeats)
    return {
        "CopyIn": work.read_copies * copy_latency + work.read_bytes / per_cycle,
        "Compute": sum(vector),
        "CopyOut": work.write_copies * copy_latency + work.write_bytes / per_cycle,
    }


def schedule(
    work: Sequence[TileWork], model: PipelineModel, buffers: int = 2, copy_latency: float = 0.0
) -> list[Span]:
    """Schedule CopyIn, Compute and CopyOut of every tile on their engines.

    Each engine does one thing at a time, in tile order. With ``buffers`` buffers per queue
    tile i uses buffer ``i % buffers``, so CopyIn(i) waits for CopyIn(i-1) and for
    Compute(i-buffers) to free its input buffer; Compute(i) for CopyIn(i), Compute(i-1) and
    CopyOut(i-buffers) to free its output buffer; CopyOut(i) for Compute(i) and CopyOut(i-1).
    """
    if buffers < 1:
        raise ValueError("buffers must be at least 1")
    spans: list[Span] = []
    ends: dict[tuple[str, int], float] = {}

    def end(stage: str, tile: int) -> float:
        return ends.get((stage, tile), 0.0)

    for item in work:
        i = item.tile
        cycles = stage_cycles(item, model, copy_latency)
        ready = {
            "CopyIn": max(end("CopyIn", i - 1), end("Compute", i - buffers)),
            "Compute": max(end("Compute", i - 1), end("CopyOut", i - buffers)),
            "CopyOut": end("CopyOut", i - 1),
        }
        previous = 0.0
        for stage in STAGES:
            start = max(ready[stage], previous)
            ends[(stage, i)] = start + cycles[stage]
            spans.append(Span(stage, i, start, ends[(stage, i)]))
            previous = ends[(stage, i)]
    return spans


def makespan(spans: Iterable[Span]) -> float:
    """Cycles from the first start to the last end."""
    spans = list(spans)
    return max(s.end for s in spans) - min(s.start for s in spans)


def tile_work(trace: np.ndarray, core: int = 0) -> list[TileWork]:
    """The work of every tile of one core, from its trace records."""
    events = core_events(trace, core)
    ops = op_names(events)
    tiles = tile_indices(events)
    work = []
    for tile in range(int(tiles.max()) + 1):
        rows = np.flatnonzero(tiles == tile)
        copies_in = [r for r in rows if ops[r] in COPY_OPS and events["dst"][r] >= 0]
        copies_out = [r for r in rows if is_copy_out(ops[r], int(events["dst"][r]))]
        vector = [
            repeats(ops[r], int(events["count"][r]), int(events["bytes"][r]))
            for r in rows
            if is_vector(ops[r])
        ]
        work.append(
            TileWork(
                tile,
                int(events["bytes"][copies_in].sum()),
                tuple(vector),
                int(events["bytes"][copies_out].sum()),
                len(copies_in),
                len(copies_out),
            )
        )
    return work


def busy_cycles(spans: Iterable[Span]) -> dict[str, float]:
    """Cycles each engine is busy (MTE2, Vector, MTE3)."""
    busy = dict.fromkeys(ENGINES.values(), 0.0)
    for span in spans:
        busy[ENGINES[span.stage]] += span.end - span.start
    return busy


def serial_cycles(work: Sequence[TileWork], model: PipelineModel) -> float:
    """Cycles if nothing overlapped: the sum of every stage of every tile."""
    return sum(sum(stage_cycles(item, model).values()) for item in work)


def tile_count(trace: np.ndarray, core: int = 0) -> int:
    """Tiles the core processed."""
    return int(tile_indices(core_events(trace, core)).max()) + 1


def budget_mismatches(
    buffers: Sequence[UbBuffer], dtype_size: int, has_tanhx: bool, tile_length: int
) -> list[str]:
    """Names of buffers whose size or copies differ from the budget table (empty: all match)."""
    expected = tiling.budget(dtype_size, has_tanhx)
    return [
        buffer.name
        for buffer, planned in zip(buffers, expected, strict=True)
        if buffer.bytes != planned.bytes_for(tile_length) or buffer.copies != planned.copies
    ]


def v1_overrun_bytes(total_length: int, dtype_size: int, has_tanhx: bool) -> int:
    """Bytes past the tensor's end that ops-nn v1's tiling makes its last core touch.

    v1 rounds the byte length up to whole blocks (256 bytes without tanhx, 32 with it) and
    copies whole blocks (ops-nn
    ``experimental/activation/mish_grad/op_host/mish_grad_tiling.cpp``), so the last core
    reads and writes up to a block minus one byte past the end of each tensor.
    """
    block = v1_block_bytes(has_tanhx)
    length = total_length * dtype_size
    return -(-length // block) * block - length
