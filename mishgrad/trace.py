"""Reading the CPU twin's trace: tiles, instruction counts, the UB map and a pipeline model.

``mishgrad.twin.run_kernel(..., trace=True)`` returns one :data:`~mishgrad.twin.TRACE_DTYPE`
record per AscendC call: the core, its program order (``sequence``), the call's name
(``op``), element ``count``, ``bytes``, UB byte offsets (``dst``, ``src0``, ``src1``, -1
where not applicable) and, for copies, the byte offset into the host tensor
(``gm_offset``). This module turns those records into what notebooks 05 and 06 show:

- the calls of one tile of one core, labelled with the pipeline stage they belong to
  (:func:`tile_rows`);
- the vector instructions per tile, by op (:func:`instruction_counts`);
- the UB map: the kernel's ``InitBuffer`` calls named after the budget table of
  :func:`mishgrad.tiling.budget` (:func:`ub_map`, :func:`ub_segments`);
- a **model** of the double-buffered CopyIn / Compute / CopyOut pipeline
  (:func:`schedule`, :func:`gantt`). The twin runs every call one after another; on the
  NPU, copy-in (MTE2), vector (V) and copy-out (MTE3) instructions go to separate queues
  that run in parallel, synchronized by the queues' EnQue/DeQue/Alloc/Free. The model
  derives a timeline from the trace's bytes and repeat counts with the cost parameters
  of :class:`PipelineModel`; it is a model, not a measurement.

It also reads kernel sources for display (:func:`read_method`, :func:`read_lines`), so
notebooks show the code that runs instead of pasting it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from . import tiling
from .platforms import Platform
from .source import read_method
from .viz import BUFFER_KIND_COLORS

#: Queue bookkeeping calls: they move no data and take no vector time.
QUEUE_OPS: Final = frozenset({"AllocTensor", "EnQue", "DeQue", "FreeTensor"})
#: Copies between global memory and UB (MTE2 inward, MTE3 outward).
COPY_OPS: Final = frozenset({"DataCopy", "DataCopyPad"})
#: Calls made once, before the first tile.
SETUP_OPS: Final = frozenset({"InitBuffer"})

#: Pipeline stages in program order, and the engine that runs each on the NPU.
STAGES: Final = ("CopyIn", "Compute", "CopyOut")
ENGINES: Final = {"CopyIn": "MTE2", "Compute": "Vector", "CopyOut": "MTE3"}


# --------------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------------


def op_names(events: np.ndarray) -> np.ndarray:
    """The ``op`` field of trace records as an array of Python strings."""
    return np.array([op.decode() for op in events["op"]], dtype=object)


def is_vector(op: str) -> bool:
    """True for a vector instruction: any call that is not setup, queue bookkeeping or a copy."""
    return op not in QUEUE_OPS | COPY_OPS | SETUP_OPS


def core_events(trace: np.ndarray, core: int = 0) -> np.ndarray:
    """The records of one core, in program order.

    Raises
    ------
    ValueError
        If the trace holds no record of ``core`` (was the kernel run with ``trace=True``?).

    """
    events = trace[trace["core"] == core]
    if events.size == 0:
        raise ValueError(f"the trace has no record of core {core} (run with trace=True?)")
    return events[np.argsort(events["sequence"], kind="stable")]


def _is_copy_out(op: str, dst: int) -> bool:
    return op in COPY_OPS and dst < 0


def tile_indices(events: np.ndarray) -> np.ndarray:
    """Tile number of each record of one core (:func:`core_events`); -1 for setup calls.

    A tile ends with its copy-out (a copy whose destination is global memory) and the
    ``FreeTensor`` that returns the output buffer right after it.
    """
    ops = op_names(events)
    tiles = np.empty(len(events), dtype=np.int64)
    tile = 0
    previous_was_copy_out = False
    for i, (op, dst) in enumerate(zip(ops, events["dst"], strict=True)):
        if op in SETUP_OPS:
            tiles[i] = -1
            continue
        if previous_was_copy_out and op == "FreeTensor":
            tiles[i] = tile - 1
            previous_was_copy_out = False
            continue
        tiles[i] = tile
        previous_was_copy_out = _is_copy_out(op, int(dst))
        if previous_was_copy_out:
            tile += 1
    return tiles


def stages(events: np.ndarray) -> np.ndarray:
    """Pipeline stage of each record of one core: setup, CopyIn, Compute or CopyOut.

    Within a tile, calls before the first ``DeQue`` are CopyIn; the ``DeQue`` that
    precedes the copy-out, the copy-out and the ``FreeTensor`` after it are CopyOut;
    everything between is Compute.
    """
    ops = op_names(events)
    tiles = tile_indices(events)
    labels = np.empty(len(events), dtype=object)
    for tile in np.unique(tiles):
        rows = np.flatnonzero(tiles == tile)
        if tile < 0:
            labels[rows] = "setup"
            continue
        labels[rows] = "Compute"
        dequeues = [r for r in rows if ops[r] == "DeQue"]
        first_dequeue = dequeues[0] if dequeues else rows[-1] + 1
        labels[rows[rows < first_dequeue]] = "CopyIn"
        outs = [r for r in rows if _is_copy_out(ops[r], int(events["dst"][r]))]
        if outs:
            out = outs[-1]
            start = out - 1 if out - 1 in rows and ops[out - 1] == "DeQue" else out
            labels[rows[rows >= start]] = "CopyOut"
    return labels


def tile_events(trace: np.ndarray, core: int = 0, tile: int = 0) -> np.ndarray:
    """The records of one tile of one core, in program order."""
    events = core_events(trace, core)
    chosen = events[tile_indices(events) == tile]
    if chosen.size == 0:
        raise ValueError(f"core {core} has no tile {tile}")
    return chosen


def tile_count(trace: np.ndarray, core: int = 0) -> int:
    """Tiles the core processed."""
    return int(tile_indices(core_events(trace, core)).max()) + 1


#: Column headers of :func:`tile_rows`.
TILE_HEADERS: Final = ("#", "stage", "op", "count", "bytes", "dst", "src0", "src1", "GM offset")


def tile_rows(
    trace: np.ndarray, buffers: Sequence[UbBuffer], core: int = 0, tile: int = 0
) -> list[list[object]]:
    """One row per call of one tile (see :data:`TILE_HEADERS`), for :func:`mishgrad.report.table`.

    ``#`` is the call's position within the tile; UB operands are shown as
    ``offset name`` (see :func:`buffer_name`); ``—`` marks an operand the call does not
    have. The GM offset is the byte offset into the host tensor.
    """
    events = core_events(trace, core)
    tiles = tile_indices(events)
    labels = stages(events)
    rows = []
    for position, index in enumerate(np.flatnonzero(tiles == tile)):
        event = events[index]
        operands = []
        for field in ("dst", "src0", "src1"):
            offset = int(event[field])
            operands.append("—" if offset < 0 else f"{offset} {buffer_name(offset, buffers)}")
        gm = int(event["gm_offset"])
        rows.append(
            [
                position,
                labels[index],
                event["op"].decode(),
                int(event["count"]),
                int(event["bytes"]),
                *operands,
                "—" if gm < 0 else gm,
            ]
        )
    if not rows:
        raise ValueError(f"core {core} has no tile {tile}")
    return rows


# --------------------------------------------------------------------------------------
# Instruction counts
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InstructionCounts:
    """Vector instructions of one tile.

    Attributes
    ----------
    by_op
        ``{op: instructions}`` in order of first use.

    """

    by_op: Mapping[str, int]

    @property
    def total(self) -> int:
        """All vector instructions."""
        return sum(self.by_op.values())

    @property
    def exp(self) -> int:
        """``Exp`` instructions: exponentials per element."""
        return self.by_op.get("Exp", 0)

    @property
    def div(self) -> int:
        """``Div`` instructions: divisions per element."""
        return self.by_op.get("Div", 0)


def instruction_counts(trace: np.ndarray, core: int = 0, tile: int = 0) -> InstructionCounts:
    """Count the vector instructions of one tile (each processes the whole tile)."""
    ops = [op for op in op_names(tile_events(trace, core, tile)) if is_vector(op)]
    return InstructionCounts(dict(Counter(ops)))


def method_instructions(path: str | Path, name: str) -> int:
    """Vector instructions written in one method of a kernel source (each call once).

    The trace counts what ran; this counts where it is written, to split a tile's total
    by method (for example the kernel's ``RootWindow``). Calls of the file's own methods
    are not instructions and are not counted.
    """
    own = set(re.findall(r"inline \w+ (\w+)\(", Path(path).read_text()))
    body = read_method(path, name, with_comment=False).splitlines()[1:]
    calls = [re.match(r"\s*([A-Z]\w*)\(", line) for line in body]
    return sum(1 for c in calls if c and is_vector(c.group(1)) and c.group(1) not in own)


# --------------------------------------------------------------------------------------
# Global-memory traffic
# --------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------
# The UB map
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UbBuffer:
    """One ``InitBuffer`` allocation: its name, UB offset, bytes and number of copies."""

    name: str
    offset: int
    bytes: int
    copies: int

    @property
    def end(self) -> int:
        """First UB byte after the buffer."""
        return self.offset + self.bytes

    @property
    def slot_bytes(self) -> int:
        """Bytes of one copy (one slot of a queue)."""
        return self.bytes // self.copies


def ub_map(trace: np.ndarray, dtype_size: int, has_tanhx: bool, core: int = 0) -> list[UbBuffer]:
    """The kernel's ``InitBuffer`` calls, named after :func:`mishgrad.tiling.budget`.

    Raises
    ------
    ValueError
        If the kernel allocates a different number of buffers than the budget table
        lists (the table and ``MishGradKernel::Init`` must change together).

    """
    events = core_events(trace, core)
    allocations = events[op_names(events) == "InitBuffer"]
    names = [buffer.name for buffer in tiling.budget(dtype_size, has_tanhx)]
    if len(allocations) != len(names):
        raise ValueError(
            f"the kernel allocates {len(allocations)} buffers but the budget table lists "
            f"{len(names)}: update mishgrad.tiling.budget and KernelBudget together"
        )
    return [
        UbBuffer(name, int(event["dst"]), int(event["bytes"]), int(event["count"]))
        for name, event in zip(names, allocations, strict=True)
    ]


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


def buffer_name(offset: int, buffers: Sequence[UbBuffer]) -> str:
    """Name the UB byte ``offset``: ``"x queue[1]"`` for slot 1 of a queue, ``"temp 0"`` ...

    Returns ``"—"`` for -1 (no UB operand) and ``"?"`` outside every buffer.
    """
    if offset < 0:
        return "—"
    for buffer in buffers:
        if buffer.offset <= offset < buffer.end:
            slot, inside = divmod(offset - buffer.offset, buffer.slot_bytes)
            name = f"{buffer.name}[{slot}]" if buffer.copies > 1 else buffer.name
            return name if inside == 0 else f"{name}+{inside}"
    return "?"


@dataclass(frozen=True)
class UbSegment:
    """A stretch of UB for the map: a buffer, free space, or an area the hardware reserves."""

    name: str
    kind: str  # "queue", "float32 copy", "temp", "mask", "free", "Select scratch", "reserved"
    offset: int
    bytes: int
    copies: int = 1

    @property
    def end(self) -> int:
        """First UB byte after the segment."""
        return self.offset + self.bytes


def ub_segments(buffers: Sequence[UbBuffer], chip: Platform) -> list[UbSegment]:
    """The whole physical UB as buffers and free gaps, then the hardware's areas.

    The first segments cover ``[0, chip.ub_bytes)`` without overlap (buffers and
    ``free``). Two more overlay the top of UB: ``Select scratch`` (what Select's tensor
    modes use) and ``reserved`` (the bytes the tiling API does not report).
    """
    segments, position = [], 0
    for buffer in sorted(buffers, key=lambda b: b.offset):
        if buffer.offset > position:
            segments.append(UbSegment("free", "free", position, buffer.offset - position))
        segments.append(
            UbSegment(
                buffer.name,
                tiling.buffer_kind(buffer.name),
                buffer.offset,
                buffer.bytes,
                buffer.copies,
            )
        )
        position = buffer.end
    if position < chip.ub_bytes:
        segments.append(UbSegment("free", "free", position, chip.ub_bytes - position))
    scratch = chip.select_scratch_begin
    segments.append(UbSegment("Select scratch", "Select scratch", scratch, chip.ub_bytes - scratch))
    reserved = chip.ub_reported
    segments.append(UbSegment("reserved", "reserved", reserved, chip.ub_bytes - reserved))
    return segments


#: Colours of the UB map, by segment kind.


def ub_figure(
    maps: Mapping[str, Sequence[UbSegment]], chip: Platform, *, title: str = ""
) -> Figure:
    """Draw UB maps, one row per configuration, with the Select scratch area hatched.

    Short white ticks separate the buffers of a queue; a dotted line marks the end of the UB
    the tiling API reports.

    Parameters
    ----------
    maps
        ``{label: segments}`` from :func:`ub_segments`.
    chip
        The platform (for the UB size and the areas at its top).
    title
        Figure title.

    """
    figure = plt.figure(figsize=(10.0, 0.9 * len(maps) + 1.6))
    ax = figure.add_subplot()
    kib = 1024.0
    for row, segments in enumerate(maps.values()):
        y = len(maps) - 1 - row
        for segment in segments:
            if segment.kind in ("Select scratch", "reserved"):
                continue
            ax.barh(
                y,
                segment.bytes / kib,
                left=segment.offset / kib,
                height=0.6,
                color=BUFFER_KIND_COLORS[segment.kind],
                edgecolor="white",
                linewidth=0.8,
            )
            for slot in range(1, segment.copies):  # the buffers of a queue
                edge = (segment.offset + slot * segment.bytes / segment.copies) / kib
                for low, high in ((y - 0.3, y - 0.14), (y + 0.14, y + 0.3)):  # not over the label
                    ax.plot([edge, edge], [low, high], color="white", lw=0.9)
            if segment.bytes / chip.ub_bytes > 0.045 and segment.kind != "free":
                label = segment.name.replace(" queue", "\nqueue").replace(" (", "\n(")
                ax.text(
                    (segment.offset + segment.bytes / 2) / kib,
                    y,
                    label,
                    ha="center",
                    va="center",
                    fontsize=6.5,
                    color="white",
                )
    scratch = chip.select_scratch_begin / kib
    top = chip.ub_bytes / kib
    ax.axvspan(scratch, top, facecolor="none", edgecolor="tab:red", hatch="///", lw=0.0)
    ax.axvline(scratch, color="tab:red", lw=1.2)
    ax.axvline(chip.ub_reported / kib, color="0.3", lw=0.8, ls=":")
    ax.axvline(top, color="black", lw=1.2)
    ax.set_yticks(range(len(maps)), list(maps)[::-1])
    ax.set_xlim(0, top * 1.02)
    ax.set_xlabel("UB offset (KiB)")
    ax.grid(axis="y", visible=False)
    handles = [Patch(color=colour, label=kind) for kind, colour in BUFFER_KIND_COLORS.items()]
    handles.append(
        Patch(facecolor="none", edgecolor="tab:red", hatch="///", label="Select scratch")
    )
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.set_title(title)
    figure.tight_layout()
    return figure


# --------------------------------------------------------------------------------------
# The pipeline model
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PipelineModel:
    """Cost parameters of the pipeline model (assumptions, not measurements).

    Attributes
    ----------
    hbm_bytes_per_second
        Global-memory bandwidth of the chip: 1.6 TB/s, the memory bandwidth of a
        representative Atlas A2 in ops-nn's cross-platform migration guide (lines 56-60 of
        ``mishgrad.roofline.PLATFORM_GUIDE``), a peak figure; 1.2 TB/s is an assumed low end
        (``mishgrad.roofline.HBM_BANDWIDTH_RANGE``).
    vector_cores
        Cores sharing that bandwidth when all of them stream.
    clock_hz
        Core clock, to turn bandwidth into bytes per cycle: 1.8 GHz, the AI core frequency of
        the same guide (lines 36-37).
    vector_cycles_per_repeat
        Cycles one vector instruction spends per 256-byte repeat.
    copy_latency_cycles, vector_latency_cycles
        Fixed start-up cycles per copy and per vector instruction.

    """

    hbm_bytes_per_second: float = 1.6e12
    vector_cores: int = 48
    clock_hz: float = 1.8e9
    vector_cycles_per_repeat: float = 1.0
    copy_latency_cycles: float = 0.0
    vector_latency_cycles: float = 0.0

    @property
    def copy_bytes_per_cycle(self) -> float:
        """One core's share of the bandwidth, in bytes per cycle."""
        return self.hbm_bytes_per_second / self.vector_cores / self.clock_hz

    def copy_cycles(self, nbytes: float) -> float:
        """Cycles of one copy of ``nbytes``."""
        return self.copy_latency_cycles + nbytes / self.copy_bytes_per_cycle

    def vector_cycles(self, repeats: float) -> float:
        """Cycles of one vector instruction of ``repeats`` 256-byte repeats."""
        return self.vector_latency_cycles + repeats * self.vector_cycles_per_repeat


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


def tile_work(trace: np.ndarray, core: int = 0) -> list[TileWork]:
    """The work of every tile of one core, from its trace records."""
    events = core_events(trace, core)
    ops = op_names(events)
    tiles = tile_indices(events)
    work = []
    for tile in range(int(tiles.max()) + 1):
        rows = np.flatnonzero(tiles == tile)
        copies_in = [r for r in rows if ops[r] in COPY_OPS and events["dst"][r] >= 0]
        copies_out = [r for r in rows if _is_copy_out(ops[r], int(events["dst"][r]))]
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


@dataclass(frozen=True)
class Span:
    """One stage of one tile on its engine, in model cycles."""

    stage: str
    tile: int
    start: float
    end: float

    @property
    def engine(self) -> str:
        """The engine that runs the stage (MTE2, Vector or MTE3)."""
        return ENGINES[self.stage]


def stage_cycles(work: TileWork, model: PipelineModel) -> dict[str, float]:
    """Model cycles of each stage of one tile."""
    latency = model.copy_latency_cycles
    return {
        "CopyIn": work.read_copies * latency + work.read_bytes / model.copy_bytes_per_cycle,
        "Compute": sum(model.vector_cycles(r) for r in work.vector_repeats),
        "CopyOut": work.write_copies * latency + work.write_bytes / model.copy_bytes_per_cycle,
    }


def schedule(work: Sequence[TileWork], model: PipelineModel, buffers: int = 2) -> list[Span]:
    """Schedule CopyIn, Compute and CopyOut of every tile on their engines.

    Each engine does one thing at a time, in tile order. With ``buffers`` buffers per queue
    (``TPipe::InitBuffer(queue, buffers, ...)``; 2 is double buffering) tile i uses buffer
    ``i % buffers``, so

    - CopyIn(i) waits for CopyIn(i-1) and for Compute(i-buffers) to free its input buffer;
    - Compute(i) waits for CopyIn(i), Compute(i-1), and CopyOut(i-buffers) to free its
      output buffer;
    - CopyOut(i) waits for Compute(i) and CopyOut(i-1).

    The queues' *depth* (how many EnQue may precede a DeQue) adds no constraint: in the
    kernel's program order every EnQue of a tile is followed by that tile's DeQue before
    the next tile's EnQue, so depth 1 is always enough.
    """
    if buffers < 1:
        raise ValueError("buffers must be at least 1")
    spans: list[Span] = []
    ends: dict[tuple[str, int], float] = {}

    def end(stage: str, tile: int) -> float:
        return ends.get((stage, tile), 0.0)

    for item in work:
        i = item.tile
        cycles = stage_cycles(item, model)
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


def busy_cycles(spans: Iterable[Span]) -> dict[str, float]:
    """Cycles each engine is busy (MTE2, Vector, MTE3)."""
    busy = dict.fromkeys(ENGINES.values(), 0.0)
    for span in spans:
        busy[span.engine] += span.end - span.start
    return busy


def serial_cycles(work: Sequence[TileWork], model: PipelineModel) -> float:
    """Cycles if nothing overlapped: the sum of every stage of every tile."""
    return sum(sum(stage_cycles(item, model).values()) for item in work)


#: Colours of the two buffers of a double-buffered queue in the timeline.
BUFFER_COLORS: Final = ("tab:blue", "tab:orange", "tab:green", "tab:red")


def gantt(
    spans: Sequence[Span],
    *,
    buffers: int = 2,
    ax: Axes | None = None,
    title: str = "",
    clock_hz: float | None = None,
) -> Figure:
    """Draw a schedule as a Gantt chart: one lane per engine, bars coloured by buffer.

    Parameters
    ----------
    spans
        From :func:`schedule`.
    buffers
        Buffers per queue (bars of tile i use colour ``i % buffers``).
    ax
        Draw into this axes; default: a new figure.
    title
        Axes title.
    clock_hz
        If given, the x axis is in microseconds at this clock; otherwise in cycles.

    """
    if ax is None:
        figure = plt.figure(figsize=(9.0, 2.6))
        ax = figure.add_subplot()
    else:
        figure = ax.get_figure()
    scale = 1e6 / clock_hz if clock_hz else 1.0
    lanes = list(ENGINES.values())
    for span in spans:
        y = len(lanes) - 1 - lanes.index(span.engine)
        width = (span.end - span.start) * scale
        ax.barh(
            y,
            width,
            left=span.start * scale,
            height=0.6,
            color=BUFFER_COLORS[span.tile % buffers % len(BUFFER_COLORS)],
            edgecolor="black",
            linewidth=0.6,
        )
        ax.text(
            span.start * scale + width / 2, y, str(span.tile), ha="center", va="center", fontsize=8
        )
    ax.set_yticks(range(len(lanes)), [f"{e} ({s})" for s, e in ENGINES.items()][::-1])
    ax.set_xlabel("model time (µs)" if clock_hz else "model cycles")
    ax.grid(axis="y", visible=False)
    handles = [Patch(color=BUFFER_COLORS[b], label=f"buffer {b}") for b in range(min(buffers, 4))]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.set_title(title)
    return figure
