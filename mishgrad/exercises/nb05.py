"""Checkers for notebook 05's exercises (the AscendC kernel).

Each checker computes its expected answer here, from inputs no cell of the notebook prints:
the float32 limits of a scratch copy of the kernel whose clamp the learner deleted, a
learner's NumPy transcription of ``DerivativeFromTanhx`` run on inputs of the checker's
choosing beside the kernel's tanhx branch, and a learner's rule for moving and computing a
tile's tail, called at lengths of the checker's choosing.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mishgrad import oracle, twin
from mishgrad.exercises import UNANSWERED, Verdict, call_learner, correct, wrong
from mishgrad.scratch import ScratchKernel

#: The file of the scratch copy that the kernel-edit exercise changes.
KERNEL_FILE = "op_kernel/mish_grad.h"
#: Finite inputs on which the edited copy is compared with ``kernel/`` (besides +-inf).
FINITE_PROBES = np.array([-150.0, -30.0, -1.19, -0.2, 0.0, 0.3, 4.0, 95.0], dtype=np.float32)
#: Numerics models under which a transcription must match the kernel bit for bit.
MODELS = ("ieee", "hardware")
#: 32-byte blocks (DataCopy) and 256-byte spans of float32 (CompareScalar's count).
BLOCK_BYTES, SPAN_FLOATS = 32, 256 // 4


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise: identical float32 bit patterns, or NaN on both sides."""
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))


def check_clamp(answer: object, scratch: ScratchKernel) -> Verdict:
    """Exercise 1: float32 (d(+inf), d(-inf)) once the clamp is deleted from the copy."""
    if answer is None:
        return UNANSWERED
    if KERNEL_FILE not in scratch.edited():
        return wrong(f"edit {KERNEL_FILE} of your copy ({scratch}) first, then run this cell")
    x = np.concatenate([np.array([np.inf, -np.inf], dtype=np.float32), FINITE_PROBES])
    try:
        edited = scratch.run_kernel(np.ones_like(x), x).out
    except Exception as error:  # a learner's edit that does not build is a verdict
        return wrong(f"your copy does not build or run: {type(error).__name__}: {error}")
    original = twin.run_kernel(np.ones_like(x), x).out
    if _same_bits(edited[:2], original[:2]).all():
        return wrong("your copy still returns the limits: is the Maxs line of Derivative gone?")
    try:
        guess = np.asarray(answer, dtype=np.float32)
    except (TypeError, ValueError):
        return wrong("answer with a pair of numbers, e.g. (0.5, np.nan)")
    if guess.shape != (2,):
        return wrong("answer with a pair: (d(+inf), d(-inf))")
    if not _same_bits(guess, edited[:2]).all():
        return wrong(
            "without the clamp, a = min(-x, x/2) is -inf at x = +-inf; follow it through "
            "Derivative: which factor does it meet, and is that factor exactly 0 there?"
        )
    unchanged = bool(_same_bits(edited[2:], original[2:]).all())
    return correct(
        f"your copy returns d(+inf) = {edited[0]}, d(-inf) = {edited[1]}; on "
        f"{FINITE_PROBES.size} finite inputs it agrees with kernel/ bit for bit: {unchanged}"
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


def check_tanhx_model(function: Callable[..., object] | None) -> Verdict:
    """Exercise 2: a NumPy transcription ``f(x, t, exp, div)`` of ``DerivativeFromTanhx``."""
    if function is None:
        return UNANSWERED
    if not callable(function):
        return wrong("pass your function itself (its name, without parentheses)")
    x, t = _tanhx_inputs()
    for model in MODELS:
        exp = lambda a, model=model: twin.native_exp(a, model)  # noqa: E731
        div = lambda a, b, model=model: twin.native_div(a, b, model)  # noqa: E731
        result, failure = call_learner(function, x.copy(), t.copy(), exp, div)
        if failure is not None:
            return failure
        if result is None:
            return UNANSWERED
        mine = np.asarray(result)
        if mine.shape != x.shape or mine.dtype != np.float32:
            return wrong(
                f"return a float32 array of x's shape (got {mine.dtype}, {mine.shape}): "
                "the vector unit computes in float32"
            )
        kernel = twin.run_kernel(np.ones_like(x), x, t, numerics=model).out
        differ = np.flatnonzero(~_same_bits(mine, kernel))
        if differ.size:
            i = differ[0]
            return wrong(
                f"{differ.size} of {x.size} results differ from the kernel under the {model} "
                f"numerics model, e.g. x = {x[i]!r}: kernel {kernel[i]!r}, yours {mine[i]!r}. "
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


def check_tail(function: Callable[..., object] | None) -> Verdict:
    """Exercise 3: ``f(length, itemsize) -> (copy op, bytes it moves, Compute's count)``."""
    if function is None:
        return UNANSWERED
    if not callable(function):
        return wrong("pass your function itself (its name, without parentheses)")
    for length, itemsize in TAIL_CASES:
        result, failure = call_learner(function, length, itemsize)
        if failure is not None:
            return failure
        if result is None:
            return UNANSWERED
        expected = _expected_tail(length, itemsize)
        if not isinstance(result, tuple | list) or tuple(result) != expected:
            return wrong(
                f"for a tail of {length} elements of {itemsize} bytes your function returns "
                f"{result!r}. Which length must be a multiple of 32: elements or bytes? "
                "And in which dtype does Compute run CompareScalar?"
            )
    return correct(f"right at all {len(TAIL_CASES)} lengths the checker tried")
