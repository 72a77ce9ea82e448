"""Checkers for notebook 14: SiluGrad, written by the learner and judged like the book's kernel.

The learner's kernel is their scratch copy of ``kernel/silu_grad`` (:data:`SILU_GRAD`'s
folder), run isolated on the twin (:func:`run`) for every finite float16 and bfloat16 value
and for a float32 sample (:func:`judged_inputs`), with grads that are powers of two, under
each numerics model, against the correctly rounded oracle. :data:`TARGET_LABELS` states what
it is held to; :func:`check_silu_grad` names the first target missed, the worst input there
and a hint for the mistake it points at (:data:`HINTS`, :data:`KERNEL_HINTS`). The inputs and
their truths are computed once per process.
"""

import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Final

import numpy as np

from mishgrad.evaluation import roofline
from mishgrad.kernel import trace
from mishgrad.kernel.launcher import OperatorRun, run_operator
from mishgrad.kernel.operators import SILU_GRAD, SILU_GRAD_REGIONS
from mishgrad.kernel.scratch import ScratchKernel
from mishgrad.kernel.twin_build import build, kernel_spec
from mishgrad.math import dtypes, errors
from mishgrad.math.oracle import dsilu_oracle, silu_backward_oracle
from mishgrad.math.vector_math import NUMERICS_MODELS

from . import EarlyVerdict, Verdict, call_on_copy, checker, correct, learner_function, wrong
from .learner import learner_result, learner_whole_number

#: The file the learner writes Compute in; elements per full tile; cores of every launch.
KERNEL_FILE: Final = "op_kernel/silu_grad.h"
TILE_LENGTH: Final = 2048
CORES: Final = 7
#: The zero of d, x0 = -1 - W(1/e); the window around it and d's subnormal edge.
ZERO: Final = -1.2784645427610738
REGIONS: Final = SILU_GRAD_REGIONS
#: The dtypes in the order they are judged, and what the count answer must be.
DTYPES: Final = ("float16", "bfloat16", "float32")
COUNT_USAGE: Final = "answer with a whole number: your kernel's vector instructions per element"
#: The float32 sample starts with this many uniform[-20, 20] inputs.
UNIFORM: Final = 20_000


def tiling(n: int, cores: int = CORES) -> tuple[bytes, int, int]:
    """SiluGradTilingData for ``n`` elements, the cores it starts, and the most tiles of one."""
    core = _ceil(_ceil(n, cores), 64) * 64  # a share of n, rounded up to 64 elements
    fields = [(n, core, TILE_LENGTH, 0)]
    return np.array(fields, "<u8,<u8,<u4,<u4").tobytes(), _ceil(n, core), _ceil(core, TILE_LENGTH)


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def run(
    kernel_dir: Path | ScratchKernel,
    grad: np.ndarray,
    x: np.ndarray,
    *,
    numerics: str | None = None,
    trace: bool = False,
) -> OperatorRun:
    """SiluGrad's kernel built from ``kernel_dir`` (a copy of its folder), isolated, on 7 cores."""
    folder = kernel_dir.path if isinstance(kernel_dir, ScratchKernel) else kernel_dir
    data, cores, tiles = tiling(x.size)
    inputs = {"grad": grad, "x": x}
    return run_operator(
        SILU_GRAD, inputs, data, cores, tiles, trace=trace, numerics=numerics, kernel_dir=folder
    )


def _float32_sample(rng: np.random.Generator) -> np.ndarray:
    below, above = (np.float32(ZERO + side).view(np.uint32) for side in (3e-4, -3e-4))
    parts = [
        rng.uniform(-20, 20, UNIFORM),  # the within-1-ULP share is taken on these
        rng.uniform(0, 40, 8_000),
        np.arange(below, above, dtype=np.uint32).view(np.float32),  # every float near x0
        rng.uniform(*REGIONS.window, 4_000),
        rng.uniform(-100, -80, 4_000),  # the overflow band of e^-x, and d's subnormal edge
        rng.uniform(-200, -100, 500),
        rng.choice([-1.0, 1.0], 5_000) * 2.0 ** rng.uniform(-149, 127.9, 5_000),  # any exponent
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4e38, -3.4e38],
    ]
    x = np.concatenate([np.asarray(part, np.float32) for part in parts])
    return x if x.size % 2 else x[:-1]  # an odd length: a tail in the last core's last tile


@functools.cache
def judged_inputs(dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The checker's (grad, x, truth) for ``dtype``: grads ±1, 2, 1/2, -1/4 scale d exactly."""
    kind = dtypes.as_dtype(dtype)
    rng = np.random.default_rng(1414)
    if dtype == "float32":
        x = _float32_sample(rng)
    else:
        specials = np.array([np.inf, -np.inf, np.nan], kind)
        x = np.concatenate([dtypes.all_values(kind), specials])
    grad = rng.choice(np.array([1.0, -1.0, 2.0, 0.5, -0.25], kind), x.size)
    with np.errstate(invalid="ignore"):  # ml_dtypes warns as it widens a bfloat16 NaN
        return grad, x, silu_backward_oracle(grad, x)


#: What the kernel is held to, stated before the learner writes it: each target's dtypes and
#: words, in the order they are checked (:func:`_misses`), keyed by the hint a miss gets.
_F32, _F16 = dtypes.TABLE["float32"], dtypes.TABLE["float16"]  # bfloat16's targets are float16's
_SHARES = ", ".join(
    f"{pct:g}% ({model})" for model, pct in errors.FLOAT32_WITHIN_1ULP_UNIFORM_PCT.items()
)
TARGET_LABELS: Final = {
    "overflow": ("all", "no NaN or ±inf where d is finite"),
    "limits": ("all", "NaN for NaN; grad · 1 at x = +inf, grad · 0 at x = -inf"),
    "sign": ("all", "no wrong sign"),
    "round once": ("float16, bfloat16", f"≤ {_F16.max_ulp:g} ULP, and ≥ "
                   f"{_F16.correctly_rounded_pct:g}% correctly rounded"),
    "one minus sigma": ("float32", f"x ≥ 0: ≤ {_F32.max_ulp:g} ULP"),
    "accuracy": ("float32", f"where d is normal: relative error ≤ {_F32.max_rel_error:g}"),
    "zero": ("float32", f"x in {list(REGIONS.window)}: absolute error ≤ "
             f"{REGIONS.window_abs_error:g}"),
    "far": ("float32", "where d is subnormal: absolute error ≤ 2^-126"),
    "share": ("float32", f"uniform[-20, 20]: within 1 ULP ≥ {_SHARES}"),
}  # fmt: skip
#: What a miss of each target points at (a miss near x0 at "zero", below x = -80 at "far"),
#: without the answer.
HINTS: Final = {
    "overflow": "an exponential overflows beyond |x| = 88.7, its square beyond 44.4, and then "
    "inf / inf or inf · 0 is NaN: build d on one exponential that never exceeds 1",
    "limits": "at x = ±inf some product is inf · 0 = NaN: d's limits are 1 and 0, so make x "
    "finite where it only multiplies a zero",
    "sign": "x_grad has the sign of grad times d, and d < 0 exactly where x < x0: is grad "
    "multiplied in, and is d's sign right on both sides of x0?",
    "round once": "compute d and grad · d in float32 and round to the tensor's dtype once, at "
    "the end (Cast with CAST_RINT)",
    "one minus sigma": "for large x, sigma rounds towards 1 and 1 - sigma keeps little more than "
    "that rounding: form 1 - sigma from e^-x itself, without a subtraction",
    "accuracy": "your form loses accuracy here: compare its terms with the oracle's near this x",
    "zero": "near x0 your terms cancel and keep the rounding of e^x: there d needs a form "
    "without the cancellation (notebook 05's RootWindow)",
    "far": "below x = -87.3, e^-x is infinite (sigma = 1 / (1 + inf) = 0) and e^x subnormal (the "
    "vector unit may flush it to 0), while d is still normal: build on e^-|x|, and where x is "
    "that low take e^(x/2) and multiply it in twice, the second time after every Exp and Div (they "
    "flush a subnormal result to 0)",
    "share": "too few results within 1 ULP: count the roundings your form makes, and let a "
    "leading term carry the value (notebook 03)",
}
#: Hints for the twin's errors, by the words of the message.
KERNEL_HINTS: Final = {
    r"FreeTensor missing": "every tensor Compute dequeues must go back with FreeTensor after its "
    "last use, or a later tile finds no free buffer",
    r"holds \d+ bytes but the call uses": "a vector instruction's count may not exceed what its "
    "buffers hold: one tile, tileLength elements",
    r"256-byte repeats": "CompareScalar compares whole 256-byte repeats: round the count up "
    "(notebook 05)",
    r"remain in the GlobalTensor|32-byte blocks": "a tail that ends inside a 32-byte block moves "
    "with DataCopyPad, and no copy may reach past the tensor's end",
    r"already holds its depth": "a queue's depth is how many EnQue may come before a DeQue: one "
    "queue per tensor, or a deeper queue",
    r"EnQue missing": "CopyOut found no tile in the output queue: Compute must AllocTensor, fill "
    "and EnQue it",
}


def _on_copy(scratch: ScratchKernel, grad: np.ndarray, x: np.ndarray, **options: object):
    """:func:`run` on the learner's copy; a failure's verdict gets the hint its words call for."""
    try:
        return call_on_copy(scratch, run, scratch, grad, x, **options)
    except EarlyVerdict as early:
        message = early.verdict.message
        hints = [hint for pattern, hint in KERNEL_HINTS.items() if re.search(pattern, message)]
        hinted = wrong(f"{message}\nhint: {hints[0]}") if hints else early.verdict
        raise EarlyVerdict(hinted) from None


def _hint(key: str, x: float) -> str:
    """The hint for a miss of the target ``key`` at ``x``: near x0 or far below, that place's."""
    if key in ("overflow", "limits", "sign", "share"):  # share: of a sample, not of one place
        return key
    return "zero" if REGIONS.in_window(x) else "far" if x < -80 else key


def _share(ulps: np.ndarray) -> float:
    """The percentage of the uniform[-20, 20] inputs (the sample's first) within 1 ULP."""
    return 100 * float(np.mean(ulps[:UNIFORM] <= 1))


def _misses(x: np.ndarray, out: np.ndarray, truth: np.ndarray, model: str | None):
    """Each target of :data:`TARGET_LABELS` in turn: (its key, where missed, how far).

    ``model`` None leaves out the share within 1 ULP (a NumPy form, not the kernel).
    """
    r, t = out.astype(np.float64), truth.astype(np.float64)
    finite = np.isfinite(x) & np.isfinite(t)
    ulps = np.where(finite, errors.ulp_distance(out, truth), 0.0)
    with np.errstate(all="ignore"):
        error = np.where(finite, np.abs(r - t), 0.0)
        relative = np.where(finite & (t != 0), error / np.abs(t), 0.0)
    same = (r == t) | (np.isnan(r) & np.isnan(t))
    yield "overflow", finite & ~np.isfinite(r), error
    yield "limits", ~np.isfinite(x) & ~same, error
    yield "sign", r * t < 0, error
    record = dtypes.record(out.dtype)
    if record.exhaustive:
        few = 100 * np.mean(ulps[finite] == 0) < record.correctly_rounded_pct
        yield "round once", (ulps > record.max_ulp) | (few & (ulps > 0)), ulps
        return
    yield "one minus sigma", (x >= 0) & (ulps > record.max_ulp), ulps
    yield "accuracy", REGIONS.normal(x) & finite & (relative > record.max_rel_error), relative
    yield "zero", REGIONS.in_window(x) & (error > REGIONS.window_abs_error), error
    yield "far", REGIONS.subnormal(x) & (error > errors.FLOAT32_TINY), error
    if model is not None:
        uniform = np.arange(x.size) < UNIFORM
        few = _share(ulps) < errors.FLOAT32_WITHIN_1ULP_UNIFORM_PCT[model]
        yield "share", uniform & (ulps > 1) & few, ulps


def _first_miss(
    x: np.ndarray, out: np.ndarray, truth: np.ndarray, model: str | None
) -> tuple[str, str, int] | None:
    """The first target missed (its words), the hint for it, and its worst input's index."""
    for key, missed, size in _misses(x, out, truth, model):
        if missed.any():
            i = int(np.flatnonzero(missed)[np.argmax(size[missed])])
            target = TARGET_LABELS[key][1]
            if key == "share":  # how far the sample's share falls short
                target = f"{target} (yours: {_share(size):.1f}%)"
            return target, HINTS[_hint(key, float(x[i]))], i
    return None


@learner_function("write a function d(x) of a float32 array that returns a float32 array")
def check_stable_form(function: Callable[[np.ndarray], np.ndarray] | None) -> Verdict:
    """Exercise 1: d in NumPy float32, held to the float32 targets away from x0 and x < -85."""
    x = judged_inputs("float32")[1]
    x = x[~REGIONS.in_window(x) & ~(x < -85)]
    result = learner_result(function, x)  # type: ignore[arg-type]
    truth = dsilu_oracle(x)
    miss = _first_miss(x, result, truth, None)
    if miss is None:
        return correct(f"every float32 target met on {x.size} inputs")
    target, hint, i = miss
    return wrong(
        f"{target}: at x = {x[i]!s} your function returns {result[i]!s}, the truth is "
        f"{truth[i]!s}\nhint: {hint}"
    )


def _judge(scratch: ScratchKernel, models: tuple[str, ...]) -> Verdict | None:
    """The kernel built from ``scratch`` on every dtype and model: the first miss, or None."""
    for dtype in DTYPES:  # a build error first, whatever the dtype
        call_on_copy(
            scratch, build, kernel_spec(root=scratch.path, dtype=dtype, operator=SILU_GRAD)
        )
    for dtype in DTYPES:
        grad, x, truth = judged_inputs(dtype)
        for model in models:
            out = _on_copy(scratch, grad, x, numerics=model).outputs["x_grad"]
            miss = _first_miss(x, out, truth, model)
            if miss is not None:
                target, hint, i = miss
                return wrong(
                    f"{dtype}, {model} model, {target}: at x = {x[i]!s}, grad = {grad[i]!s} "
                    f"your kernel gives {out[i]!s}, the truth is {truth[i]!s}\nhint: {hint}"
                )
    return None


@checker
def check_silu_grad(
    answer: object, scratch: ScratchKernel, models: tuple[str, ...] = NUMERICS_MODELS
) -> Verdict:
    """Exercise 2: the learner's SiluGrad, judged on :data:`TARGET_LABELS` under ``models``.

    ``answer`` is the vector instructions per element it runs for float16, read from its trace.
    """
    count = None if answer is None else learner_whole_number(answer, usage=COUNT_USAGE)
    if KERNEL_FILE not in scratch.edited():
        status = "unanswered" if answer is None else "wrong"
        return Verdict(
            status, message=f"write Compute in {KERNEL_FILE} of your copy ({scratch}) first"
        )
    judged = _judge(scratch, models)
    if judged is not None:
        return judged
    met = ", ".join(models)
    if count is None:
        return Verdict(
            "unanswered", message=f"every target met under {met}: now count its instructions"
        )
    counts = trace.instruction_counts(
        _on_copy(scratch, *judged_inputs("float16")[:2], trace=True).trace
    )
    if count != counts.total:
        return wrong(
            f"every target met under {met}, but not this count: count the vector instructions of "
            "one float16 tile in its trace (trace.instruction_counts), its Casts included"
        )
    cost = roofline.operator_cost(SILU_GRAD, counts, "float16")
    line = roofline.Roofline.for_chip()
    rate = min(line.vector_elements_per_second(cost), line.memory_elements_per_second(cost))
    return correct(
        f"every target met under {met}; at {count} instructions per element it is "
        f"{line.bound(cost)}-bound on the roofline: {rate:.3g} elements per second"
    )
