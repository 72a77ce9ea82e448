"""Checkers for notebook 05's exercises (the AscendC kernel)."""

from collections.abc import Callable
from functools import partial

import numpy as np

from mishgrad.kernel import twin
from mishgrad.kernel.scratch import ScratchKernel
from mishgrad.math import oracle

from . import (
    UNANSWERED,
    Verdict,
    call_learner,
    call_on_copy,
    checker,
    correct,
    learner_answer,
    learner_function,
    wrong,
    wrong_kind,
)
from .learner import learner_whole_number

#: The file of the scratch copy that the kernel-edit exercise changes.
KERNEL_FILE = "op_kernel/mish_grad.h"
#: The kernel-edit exercise: every float32 in this interval around the zero of d, the
#: numerics model it runs under, and the relative error it counts.
WINDOW_BOUNDS = (-1.21, -1.17)
WINDOW_MODEL = "hardware"
WINDOW_TOLERANCE = 1e-5
#: Numerics models under which a transcription must match the kernel bit for bit.
MODELS = ("ieee", "hardware")
#: 32-byte blocks (DataCopy) and 256-byte spans of float32 (CompareScalar's count).
BLOCK_BYTES, SPAN_FLOATS = 32, 256 // 4


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise: identical float32 bit patterns, or NaN on both sides."""
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))


def window_inputs() -> np.ndarray:
    """Every float32 in :data:`WINDOW_BOUNDS` (negative: bit patterns grow as values fall)."""
    first, last = (np.float32(bound).view(np.uint32) for bound in reversed(WINDOW_BOUNDS))
    return np.arange(first, last + 1, dtype=np.uint32).view(np.float32)


def _above_tolerance(d: np.ndarray, truth: np.ndarray) -> int:
    """How many outputs have a relative error above :data:`WINDOW_TOLERANCE`."""
    wide = truth.astype(np.float64)
    return int(np.sum(np.abs(d.astype(np.float64) - wide) > WINDOW_TOLERANCE * np.abs(wide)))


@checker
def check_root_window(answer: object, scratch: ScratchKernel) -> Verdict:
    """Exercise 1: inputs near the root with relative error > 1e-5 once RootWindow is gone."""
    guess = learner_whole_number(answer, usage="answer with a whole number: how many inputs")
    if KERNEL_FILE not in scratch.edited():
        return wrong(f"edit {KERNEL_FILE} of your copy ({scratch}) first, then run this cell")
    x = window_inputs()
    run = call_on_copy(scratch, scratch.run_kernel, np.ones_like(x), x, numerics=WINDOW_MODEL)
    edited = run.out
    original = twin.run_kernel(np.ones_like(x), x, numerics=WINDOW_MODEL).out
    if _same_bits(edited, original).all():
        return wrong("your copy computes what kernel/ computes: is the RootWindow call gone?")
    truth = oracle.dmish_oracle(x)
    expected = _above_tolerance(edited, truth)
    # Relative errors computed in float32 instead of float64 may move a borderline case.
    if abs(guess - expected) > 0.005 * expected:
        return wrong(
            "run your copy on every float32 between the bounds (enumerate their bit patterns), "
            "under the hardware model, and compare with oracle.dmish_oracle: count where "
            "|d - d_true| > 1e-5 |d_true|"
        )
    return correct(
        f"{expected} of {x.size} inputs beyond the tolerance without the window; "
        f"kernel/, with it: {_above_tolerance(original, truth)}"
    )


def _tanhx_inputs() -> tuple[np.ndarray, np.ndarray]:
    """Inputs of every kind (ordinary, subnormal products, huge, +-inf, NaN) and the saved t."""
    rng = np.random.default_rng(20_505)
    special = [np.inf, -np.inf, np.nan, 0.0, -0.0, 3.0e38, -3.0e38, 1.0e-40, -1.0e-40]
    x = np.concatenate(
        [
            rng.uniform(-12.0, 12.0, 3000),
            rng.uniform(-105.0, -85.0, 1000),  # x s is subnormal there
            rng.uniform(20.0, 2000.0, 200),
            special,
        ]
    ).astype(np.float32)
    return x, oracle.tanh_softplus_oracle(x).astype(np.float32)


@learner_function("pass your function itself (its name, without parentheses)")
def check_tanhx_model(function: Callable[..., object] | None) -> Verdict:
    """Exercise 2: a NumPy transcription ``f(x, t, exp, div)`` of ``DerivativeFromTanhx``."""
    x, t = _tanhx_inputs()
    for model in MODELS:
        exp = partial(twin.native_exp, numerics=model)
        div = partial(twin.native_div, numerics=model)
        result = call_learner(function, x.copy(), t.copy(), exp, div)
        if result is None:
            return UNANSWERED
        mine = np.asarray(result)
        if mine.shape != x.shape or mine.dtype != np.float32:
            return wrong_kind(
                f"return a float32 array of x's shape (got {mine.dtype}, {mine.shape}): "
                "the vector unit computes in float32"
            )
        kernel = twin.run_kernel(np.ones_like(x), x, t, numerics=model).out
        differ = np.flatnonzero(~_same_bits(mine, kernel))
        if differ.size:
            i = differ[0]
            return wrong(
                f"{differ.size} of {x.size} results differ from the kernel under the {model} "
                f"numerics model, e.g. at x = {x[i]!r}, where yours is {mine[i]!r}. "
                "One NumPy operation per vector instruction, in the kernel's order, in float32; "
                "exp and div for every Exp and Div"
            )
    return correct(f"bit for bit the kernel's tanhx branch on {x.size} inputs, under {MODELS}")


def _expected_tail(length: int, itemsize: int) -> tuple[str, int, int]:
    nbytes = length * itemsize
    copy = "DataCopy" if nbytes % BLOCK_BYTES == 0 else "DataCopyPad"
    return copy, nbytes, -(-length // SPAN_FLOATS) * SPAN_FLOATS


#: (length, itemsize) at which the learner's rule is called.
TAIL_CASES = tuple(
    (length, itemsize)
    for itemsize in (2, 4)
    for length in (1, 7, 8, 16, 63, 64, 65, 100, 255, 256, 513, 1000, 1017, 2048, 3001)
)


@learner_function("pass your function itself (its name, without parentheses)")
def check_tail(function: Callable[..., object] | None) -> Verdict:
    """Exercise 3: ``f(length, itemsize) -> (copy op, bytes it moves, Compute's count)``."""
    for length, itemsize in TAIL_CASES:
        result = learner_answer(
            function,
            length,
            itemsize,
            shape=lambda got: isinstance(got, tuple | list) and len(got) == 3,
            usage="return a tuple (copy, bytes moved, Compute's count)",
        )
        if tuple(result) != _expected_tail(length, itemsize):  # type: ignore[arg-type]
            return wrong(
                f"for a tail of length {length}, in {itemsize}-byte elements, your function "
                f"returns {result!r}. Which length must be a multiple of 32: elements or bytes? "
                "And in which dtype does Compute run CompareScalar?"
            )
    return correct(f"right at all {len(TAIL_CASES)} lengths the checker tried")
