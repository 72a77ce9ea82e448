"""Checkers for notebook 10 (performance).

The roofline time (write code), the cost of one more vector instruction in a scratch copy of
the kernel (kernel edit), and v1's ridge bandwidth.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .. import roofline, upstream
from ..platforms import Platform
from ..scratch import ScratchKernel
from ..trace import PipelineModel
from . import UNANSWERED, Verdict, call_learner, correct, wrong
from .numeric import close_or_hint

#: (dtype size, has tanhx) of the configurations the roofline exercise draws from.
_CONFIGS = ((4, False), (4, True), (2, False), (2, True))


def reference_seconds(
    n: int,
    dtype_size: int,
    has_tanhx: bool,
    instructions: int,
    cores: int,
    clock_hz: float,
    bandwidth: float,
    cycles_per_repeat: float,
) -> float:
    """The roofline's steady-state time of ``n`` elements, from :mod:`mishgrad.roofline`."""
    chip = Platform("exercise", 196_608, cores, select_uses_scratch=True)  # an A2-like chip
    model = PipelineModel(bandwidth, cores, clock_hz, cycles_per_repeat)
    line = roofline.Roofline(chip, model)
    cost = roofline.KernelCost(dtype_size, has_tanhx, {"vector": instructions})
    rate = min(line.memory_elements_per_second(cost), line.vector_elements_per_second(cost))
    return n / rate


def check_roofline_time(function: Callable[..., object] | None) -> Verdict:
    """``function(n, bytes_per_element, instructions, cores, clock_hz, bandwidth, cycles)``."""
    if function is None:
        return UNANSWERED
    if not callable(function):
        return wrong("write a function roofline_seconds(n, bytes_per_element, …)")
    rng = np.random.default_rng(1010)
    for _ in range(40):
        dtype_size, has_tanhx = _CONFIGS[rng.integers(len(_CONFIGS))]
        parameters = (
            int(rng.integers(10**6, 10**10)),
            int(rng.integers(8, 80)),
            int(rng.choice([20, 24, 30, 32, 40, 48, 64])),
            float(rng.uniform(0.8e9, 2.2e9)),
            float(rng.uniform(0.4e12, 3.2e12)),
            float(rng.choice([1.0, 2.0, 4.0])),
        )
        n, instructions, cores, clock, bandwidth, cycles = parameters
        bytes_per_element = (3 if has_tanhx else 2) * dtype_size + dtype_size
        args = (n, bytes_per_element, instructions, cores, clock, bandwidth, cycles)
        result, failure = call_learner(function, *args)
        if failure is not None:
            return failure
        expected = reference_seconds(
            n, dtype_size, has_tanhx, instructions, cores, clock, bandwidth, cycles
        )
        try:
            ok = math.isclose(float(result), expected, rel_tol=1e-9)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return wrong("return the time in seconds, a number")
        if not ok:
            return wrong(
                "compare the memory time (all bytes over the bandwidth) with the vector time "
                "(every core works on its share; 64 float32 elements per repeat)"
            )
    return correct("your roofline agrees with mishgrad.roofline on 40 random configurations")


#: Cycles per 256-byte repeat the kernel-edit exercise assumes for every instruction.
EDIT_CYCLES_PER_REPEAT = 3.0


def check_added_instruction_cost(answer: object, scratch: ScratchKernel) -> Verdict:
    """Vector cycles per element on one core that the learner's added instructions cost."""
    if answer is None:
        return UNANSWERED
    if not scratch.edited():
        return wrong(f"edit op_kernel/mish_grad.h in {scratch} first (kernel/ stays as it is)")
    before = roofline.measure_cost("float32", False).instruction_count
    after = roofline.measure_cost("float32", False, kernel_dir=scratch.path).instruction_count
    if after <= before:
        return wrong("your copy runs no more vector instructions than kernel/: add one")
    expected = (after - before) * EDIT_CYCLES_PER_REPEAT / roofline.ELEMENTS_PER_REPEAT
    return close_or_hint(
        answer,
        expected,
        "count what you added; one repeat covers 256 bytes of float32",
        remark=f"{after - before} more instruction(s): {expected:.4g} cycles per element",
    )


#: The ridge exercise: v1's float32 path without tanhx on a 910B3 whose clock is 1.5 GHz.
_RIDGE_CHIP, _RIDGE_CLOCK = "910B3", 1.5e9


def check_v1_ridge(answer: object) -> Verdict:
    """v1's ridge bandwidth in TB/s (two decimals) on the 910B3 at 1.5 GHz."""
    if answer is None:
        return UNANSWERED
    cost = roofline.cost_from_counts(upstream.V1_FLOAT32_NO_TANHX.counts(), 4, False)
    line = roofline.Roofline.for_chip(_RIDGE_CHIP, clock_hz=_RIDGE_CLOCK)
    expected = line.ridge_bandwidth(cost) / 1e12
    return close_or_hint(
        answer,
        expected,
        "at the ridge, bytes per element × elements per second of the vector roof",
        abs_tol=0.006,
        remark=f"{expected:.2f} TB/s",
    )
