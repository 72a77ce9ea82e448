"""Checkers for notebook 12 (performance)."""

import math
from collections.abc import Callable, Mapping

import numpy as np

from mishgrad.evaluation import roofline, upstream
from mishgrad.kernel.pipeline import PipelineModel
from mishgrad.kernel.platforms import Platform
from mishgrad.kernel.scratch import ScratchKernel

from . import (
    Verdict,
    call_on_copy,
    checker,
    correct,
    is_number,
    learner_answer,
    learner_function,
    wrong,
)
from .learner import close_or_hint, learner_float

#: (dtype size, has tanhx) of the configurations the roofline exercise draws from.
_CONFIGS = ((4, False), (4, True), (2, False), (2, True))
#: The ops the exercise's instruction mixes draw from; Exp and Div get their own cycles.
_OPS = ("Exp", "Div", "Mul", "Adds", "Select", "Cast")


def reference_seconds(
    n: int,
    dtype_size: int,
    has_tanhx: bool,
    counts: Mapping[str, int],
    op_cycles: Mapping[str, float],
    cores: int,
    clock_hz: float,
    bandwidth: float,
) -> float:
    """The roofline's steady-state time of ``n`` elements, from :mod:`mishgrad.evaluation.roofline`.

    ``counts`` gives vector instructions per element by op; ``op_cycles`` the cycles per
    256-byte repeat of particular ops, the others taking one cycle.
    """
    chip = Platform("exercise", 196_608, cores, select_uses_scratch=True)  # an A2-like chip
    model = PipelineModel(bandwidth, cores, clock_hz, 1.0)
    line = roofline.Roofline(chip, model, dict(op_cycles))
    cost = roofline.KernelCost(dtype_size, has_tanhx, dict(counts))
    rate = min(line.memory_elements_per_second(cost), line.vector_elements_per_second(cost))
    return n / rate


def _roofline_case(rng: np.random.Generator) -> tuple:
    dtype_size, has_tanhx = _CONFIGS[rng.integers(len(_CONFIGS))]
    counts = {op: int(rng.integers(1, 9)) for op in _OPS if rng.random() < 0.8 or op == "Exp"}
    op_cycles = {op: float(rng.choice([2.0, 3.0, 4.0, 8.0])) for op in ("Exp", "Div")}
    return (
        int(rng.integers(10**6, 10**10)),
        dtype_size,
        has_tanhx,
        counts,
        op_cycles,
        int(rng.choice([20, 24, 30, 32, 40, 48, 64])),
        float(rng.uniform(0.8e9, 2.2e9)),
        float(rng.uniform(0.4e12, 3.2e12)),
    )


@learner_function("write a function roofline_seconds(n, dtype_size, has_tanhx, counts, …)")
def check_roofline_time(function: Callable[..., object] | None) -> Verdict:
    """``function(n, dtype_size, has_tanhx, counts, op_cycles, cores, clock_hz, bandwidth)``."""
    rng = np.random.default_rng(1010)
    for _ in range(40):
        case = _roofline_case(rng)
        result = learner_answer(
            function,
            *(*case[:3], dict(case[3]), dict(case[4]), *case[5:]),
            shape=is_number,
            usage="return the time in seconds, a number",
        )
        expected = reference_seconds(*case)
        if not math.isclose(float(result), expected, rel_tol=1e-9):  # type: ignore[arg-type]
            n, dtype_size, has_tanhx = case[:3]
            tanhx = "read" if has_tanhx else "absent"
            return wrong(
                f"for n = {n}, {dtype_size}-byte tensors, tanhx {tanhx}, "
                f"counts {case[3]}, op cycles {case[4]}, {case[5]} cores, {case[6]:.4g} Hz and "
                f"{case[7]:.4g} B/s your function returns {result!r}; hint: which tensors cross "
                "the memory bus, and on what data (and so how many elements per repeat) does "
                "every vector instruction work, whatever the tensors' dtype?"
            )
    return correct(
        "your roofline agrees with mishgrad.evaluation.roofline on 40 random configurations"
    )


#: Cycles per 256-byte repeat the kernel-edit exercise assumes for every instruction.
EDIT_CYCLES_PER_REPEAT = 3.0


@checker
def check_added_instruction_cost(answer: object, scratch: ScratchKernel) -> Verdict:
    """Vector cycles per element on one core that the learner's added instructions cost."""
    value = learner_float(answer, usage="answer with a number: cycles per element")
    if not scratch.edited():
        return wrong(f"edit op_kernel/mish_grad.h in {scratch} first (kernel/ stays as it is)")
    before = roofline.measure_cost("float32", False).instruction_count
    cost = call_on_copy(scratch, roofline.measure_cost, "float32", False, kernel_dir=scratch.path)
    after = cost.instruction_count
    if after <= before:
        return wrong("your copy runs no more vector instructions than kernel/: add one")
    expected = (after - before) * EDIT_CYCLES_PER_REPEAT / roofline.ELEMENTS_PER_REPEAT
    return close_or_hint(
        value,
        expected,
        "count what you added; one repeat covers 256 bytes of float32",
        remark=f"{after - before} more instruction(s): {expected:.4g} cycles per element",
    )


#: The ridge exercise: v1's float32 path without tanhx on a 910B3 whose clock is 1.5 GHz.
_RIDGE_CHIP, _RIDGE_CLOCK = "910B3", 1.5e9


@checker
def check_v1_ridge(answer: object) -> Verdict:
    """v1's ridge bandwidth in TB/s (two decimals) on the 910B3 at 1.5 GHz."""
    value = learner_float(answer, usage="answer with a number: the bandwidth in TB/s")
    cost = roofline.cost_from_counts(upstream.V1_FLOAT32_NO_TANHX.counts(), 4, False)
    line = roofline.Roofline.for_chip(_RIDGE_CHIP, clock_hz=_RIDGE_CLOCK)
    expected = line.ridge_bandwidth(cost) / 1e12
    return close_or_hint(
        value,
        expected,
        "at the ridge, bytes per element × elements per second of the vector roof",
        abs_tol=0.006,
        remark=f"{expected:.2f} TB/s",
    )
