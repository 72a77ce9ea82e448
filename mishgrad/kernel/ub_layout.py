"""The UB map: the kernel's ``InitBuffer`` calls from the trace, named after the tiling's budget."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from . import tiling
from .messages import Ambiguous
from .trace import core_events, op_names, stages, tile_indices


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


#: The header of the calls' column: an AscendC call (调用), not an operator (算子).
_OP: Final = Ambiguous("op", meaning="op (an AscendC call, in a trace)")
#: Column headers of :func:`tile_rows`.
TILE_HEADERS: Final = ("#", "stage", _OP, "count", "bytes", "dst", "src0", "src1", "GM offset")


def tile_rows(
    trace: np.ndarray, buffers: Sequence[UbBuffer], core: int = 0, tile: int = 0
) -> list[list[object]]:
    """One row per call of one tile (see :data:`TILE_HEADERS`), for a table.

    ``#`` is the call's position within the tile; UB operands are shown as ``offset name`` (see
    :func:`buffer_name`); ``—`` marks an operand the call does not have. The GM offset is the
    byte offset into the host tensor.
    """
    events = core_events(trace, core)
    labels = stages(events)
    chosen = np.flatnonzero(tile_indices(events) == tile)
    if chosen.size == 0:
        raise ValueError(f"core {core} has no tile {tile}")
    rows = []
    for position, (event, label) in enumerate(zip(events[chosen], labels[chosen], strict=True)):
        ub = [int(event[field]) for field in ("dst", "src0", "src1")]
        operands = [f"{at} {buffer_name(at, buffers)}" if at >= 0 else "—" for at in ub]
        gm = int(event["gm_offset"])
        call = [event["op"].decode(), int(event["count"]), int(event["bytes"])]
        rows.append([position, label, *call, *operands, "—" if gm < 0 else gm])
    return rows
