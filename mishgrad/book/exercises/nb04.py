"""Checkers for notebook 04 (tiling): v1's core split, a tile length, a kernel edit."""

from collections.abc import Callable

import numpy as np

from mishgrad.kernel import platforms, tiling, twin
from mishgrad.kernel.scratch import ScratchKernel

from . import (
    UNANSWERED,
    Verdict,
    call_learner,
    call_on_copy,
    checker,
    correct,
    equal_or_hint,
    learner_function,
    wrong,
    wrong_kind,
)
from .learner import learner_whole_number

#: (n, element size, has tanhx, cores) the v1-split checker tries: edges no cell prints.
V1_SPLIT_CASES = (
    (1, 4, False, 48),
    (63, 2, True, 40),
    (4_096, 4, False, 40),
    (5_000, 4, False, 40),
    (40 * 128 + 1, 2, False, 40),
    (999_983, 2, True, 40),
    (48 * 64 * 7 + 13, 4, False, 48),
    (7_340_033, 4, True, 24),
    (130, 4, True, 3),
)
V1_SPLIT_FIELDS = ("cores", "big cores", "small core's elements", "big core's elements")
#: Exercise 1 plans for this platform's reported UB.
V1_SPLIT_UB = platforms.platform(platforms.DEFAULT_PLATFORM).ub_reported

#: The made-up chip of exercise 2: 128 KiB of UB, Select with a scratch area, float32 inputs.
SMALL_CHIP_UB = 128 * 1024

#: Exercise 3 asks for float32 without tanhx on this platform.
EDIT_PLATFORM = "910B3"
SCRATCH_HEADER = "common/mish_grad_tiling.h"


@learner_function("pass the function itself (its name, without calling it)")
def check_v1_split(function: Callable[[int, int, bool, int], object] | None) -> Verdict:
    """Exercise 1: ``function(n, dtype_size, has_tanhx, cores)`` returns v1's split."""
    for n, size, has_tanhx, cores in V1_SPLIT_CASES:
        got = call_learner(function, n, size, has_tanhx, cores)
        if got is None:  # the scaffold, not yet written
            return UNANSWERED
        expected = tiling.v1_split(n, size, has_tanhx, V1_SPLIT_UB, cores)
        if not isinstance(got, tuple | list) or len(got) != len(expected):
            return wrong_kind(f"return a tuple of four integers {V1_SPLIT_FIELDS}, not {got!r}")
        for field, mine, right in zip(V1_SPLIT_FIELDS, got, expected, strict=True):
            if mine != right:
                return wrong(
                    f"for n = {n}, {size}-byte elements, tanhx {has_tanhx} and {cores} cores "
                    f"your {field} is off: v1 counts blocks of the byte length rounded up, and "
                    "launches one core when one tile holds everything"
                )
    return correct(f"your split agrees with v1's on all {len(V1_SPLIT_CASES)} inputs tried")


@checker
def check_small_chip_tile(answer: object) -> Verdict:
    """Exercise 2: the tile length of float32 without tanhx on the 128 KiB chip."""
    value = learner_whole_number(answer, usage="answer with a whole number of elements")
    reported = SMALL_CHIP_UB - platforms.UB_RESERVED_BYTES
    expected = tiling.max_tile_length(4, False, reported, select_scratch=True)
    return equal_or_hint(
        value,
        expected,
        "the limit is the physical UB less Select's 8 KB scratch area; divide it by the "
        "bytes per element of the float32, no-tanhx column and round down to a multiple of 256",
    )


@checker
def check_scratch_edit(answer: object, scratch: ScratchKernel) -> Verdict:
    """Exercise 3: predict the tile after ``kSelectScratchBytes = 0``, and see what follows.

    The checker builds the twin from the learner's scratch copy, asks its C++ tiling, and
    runs the kernel with that plan; the twin's verdict is part of the message.
    """
    value = learner_whole_number(answer, usage="answer with a whole number of elements")
    if SCRATCH_HEADER not in scratch.edited():
        return wrong(f"first edit {SCRATCH_HEADER} in {scratch} (not in kernel/) and save it")
    chip = platforms.platform(EDIT_PLATFORM)
    planned = call_on_copy(
        scratch, scratch.native_tiling, 10_000, 4, False, chip.ub_reported, chip.vector_cores
    )
    tile = planned.tileLength
    if tile != tiling.max_tile_length(4, False, chip.ub_bytes, select_scratch=False):
        return wrong(
            f"your copy's C++ tiling plans {tile} elements: set "
            "kSelectScratchBytes to 0 (and nothing else) in the copy, save, and run again"
        )
    if value != tile:
        return wrong(
            "the copy now plans another tile: the limit is the whole physical UB; divide by the "
            "float32, no-tanhx bytes per element and round down to a multiple of 256"
        )
    return correct(f"the kernel on the twin with that plan: {_run_edited(scratch)}")


def _run_edited(scratch: ScratchKernel) -> str:
    x = np.linspace(-4, 4, 10_000, dtype=np.float32)
    try:
        scratch.run_kernel(x, x, on=EDIT_PLATFORM)
    except twin.KernelError as error:
        return f"KernelError: {error}"
    return "it ran (is Select's scratch check of the twin intact in your copy?)"
