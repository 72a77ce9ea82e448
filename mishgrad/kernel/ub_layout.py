"""The UB map: the kernel's ``InitBuffer`` calls from the trace, named after the tiling's budget.

:func:`ub_map` names each allocation after the budget table of
:func:`mishgrad.kernel.tiling.budget`; :func:`buffer_name` names any UB offset (``"x queue[1]"``),
which :func:`tile_rows` uses to show one tile's calls; :func:`ub_segments` lays the buffers,
the free gaps and the hardware's areas over the whole physical UB, and :func:`ub_figure`
draws it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from . import tiling
from .messages import Ambiguous
from .platforms import Platform
from .trace import core_events, op_names, stages, tile_indices

#: Colour of each kind of UB buffer (:func:`mishgrad.kernel.tiling.buffer_kind`), and of free UB.
BUFFER_KIND_COLORS: Final[dict[str, str]] = {
    "queue": "tab:blue",
    "float32 copy": "tab:green",
    "temp": "tab:orange",
    "mask": "tab:purple",
    "free": "0.92",
}


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
    """The kernel's ``InitBuffer`` calls, named after :func:`mishgrad.kernel.tiling.budget`.

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
            f"{len(names)}: update mishgrad.kernel.tiling.budget and KernelBudget together"
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


#: The header of the calls' column: an AscendC call (调用), not an operator (算子).
_OP: Final = Ambiguous("op", meaning="op (an AscendC call, in a trace)")
#: Column headers of :func:`tile_rows`.
TILE_HEADERS: Final = ("#", "stage", _OP, "count", "bytes", "dst", "src0", "src1", "GM offset")


def tile_rows(
    trace: np.ndarray, buffers: Sequence[UbBuffer], core: int = 0, tile: int = 0
) -> list[list[object]]:
    """One row per call of one tile (see :data:`TILE_HEADERS`), for a table.

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
