"""The cost parameters of the double-buffered CopyIn / Compute / CopyOut pipeline.

The twin runs every call one after another; on the NPU, copy-in (MTE2), vector (V) and
copy-out (MTE3) instructions go to separate queues that run in parallel, synchronized by the
queues' EnQue/DeQue/Alloc/Free. Notebook 06 turns each tile's bytes and vector repeats into
cycles with these parameters and schedules them by the pipeline's recurrence; the roofline
(:mod:`mishgrad.evaluation.roofline`) makes the same assumptions. It is a model, not a
measurement.
"""

from dataclasses import dataclass


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
