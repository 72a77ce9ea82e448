"""Global-memory traffic from the twin's trace: which bytes of the host tensors were touched.

A kernel that reads or writes a byte outside its tensors, or a byte twice, shows it here: the
copies' intervals must cover each tensor exactly (:func:`covers_exactly`).
"""

from __future__ import annotations

import numpy as np

from .trace import COPY_OPS, op_names


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
