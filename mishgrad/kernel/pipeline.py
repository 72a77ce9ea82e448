"""A model of the double-buffered CopyIn / Compute / CopyOut pipeline.

The twin runs every call one after another; on the NPU, copy-in (MTE2), vector (V) and
copy-out (MTE3) instructions go to separate queues that run in parallel, synchronized by the
queues' EnQue/DeQue/Alloc/Free. Given what each tile asks of each engine (:class:`TileWork`),
:func:`schedule` derives a timeline with the cost parameters of :class:`PipelineModel`. It is a
model, not a measurement.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .trace import STAGES


@dataclass(frozen=True)
class PipelineModel:
    """Cost parameters of the pipeline model (assumptions, not measurements).

    The bandwidth (a peak figure; 1.2 TB/s is an assumed low end) and the clock are those of a
    representative Atlas A2 in ops-nn's migration guide
    (``mishgrad.evaluation.roofline.PLATFORM_GUIDE``).
    """

    hbm_bytes_per_second: float = 1.6e12  # shared equally by the cores streaming at once
    vector_cores: int = 48
    clock_hz: float = 1.8e9
    vector_cycles_per_repeat: float = 1.0  # a vector instruction's cycles per 256-byte repeat
    copy_latency_cycles: float = 0.0  # each copy's fixed start-up
    vector_latency_cycles: float = 0.0  # each vector instruction's fixed start-up

    @property
    def copy_bytes_per_cycle(self) -> float:
        """One core's share of the bandwidth, in bytes per cycle."""
        return self.hbm_bytes_per_second / self.vector_cores / self.clock_hz

    def vector_cycles(self, repeats: float) -> float:
        """Cycles of one vector instruction of ``repeats`` 256-byte repeats."""
        return self.vector_latency_cycles + repeats * self.vector_cycles_per_repeat


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

    The queues' *depth* adds no constraint: every EnQue of a tile is followed by its DeQue
    before the next tile's EnQue, so depth 1 is always enough (notebook 06).
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
