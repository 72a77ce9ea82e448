"""Reading the CPU twin's trace: the calls of each core and tile, and the instructions they run.

``mishgrad.kernel.twin.run_kernel(..., trace=True)`` returns one
:data:`~mishgrad.kernel.twin_abi.TRACE_DTYPE` record per AscendC call. This module splits them by
core and tile, labels each call with its pipeline stage (:func:`stages`) and counts a tile's
vector instructions (:func:`instruction_counts`).
"""

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np

#: Queue bookkeeping calls: they move no data and take no vector time.
QUEUE_OPS: Final = frozenset({"AllocTensor", "EnQue", "DeQue", "FreeTensor"})
#: Copies between global memory and UB (MTE2 inward, MTE3 outward).
COPY_OPS: Final = frozenset({"DataCopy", "DataCopyPad"})
#: Calls made once, before the first tile.
SETUP_OPS: Final = frozenset({"InitBuffer"})


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


def is_copy_out(op: str, dst: int) -> bool:
    """True for a copy from UB to global memory (its destination is not a UB offset)."""
    return op in COPY_OPS and dst < 0


def tile_indices(events: np.ndarray) -> np.ndarray:
    """Tile number of each record of one core (:func:`core_events`); -1 for setup calls.

    A tile ends with its copy-out (a copy whose destination is global memory) and the
    ``FreeTensor`` that returns the output buffer right after it.
    """
    ops = op_names(events)
    tiles = np.empty(len(events), dtype=np.int64)
    tile, after_copy_out = 0, False
    for i, (op, dst) in enumerate(zip(ops, events["dst"], strict=True)):
        if op in SETUP_OPS:
            tiles[i] = -1
        elif after_copy_out and op == "FreeTensor":
            tiles[i], after_copy_out = tile - 1, False
        else:
            tiles[i], after_copy_out = tile, is_copy_out(op, int(dst))
            tile += 1 if after_copy_out else 0
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
        outs = [r for r in rows if is_copy_out(ops[r], int(events["dst"][r]))]
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


@dataclass(frozen=True)
class InstructionCounts:
    """Vector instructions of one tile."""

    by_op: Mapping[str, int]  # {op: instructions}, in order of first use

    @property
    def total(self) -> int:
        """All vector instructions."""
        return sum(self.by_op.values())


def instruction_counts(trace: np.ndarray, core: int = 0, tile: int = 0) -> InstructionCounts:
    """Count the vector instructions of one tile (each processes the whole tile)."""
    ops = [op for op in op_names(tile_events(trace, core, tile)) if is_vector(op)]
    return InstructionCounts(dict(Counter(ops)))
