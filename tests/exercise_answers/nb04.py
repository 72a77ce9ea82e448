"""Right and wrong answers to notebook 04's exercises."""

from __future__ import annotations

from exercise_answers import Case, replace_in
from mishgrad.book.exercises import nb04
from mishgrad.kernel import tiling

V1_TILE = {  # v1's tile on 910B2, for each (element size, has tanhx)
    (size, has_tanhx): tiling.v1_tile_length(196_352, size, has_tanhx)
    for size in (2, 4)
    for has_tanhx in (False, True)
}


def v1_split(n: int, size: int, has_tanhx: bool, cores: int) -> tuple[int, int, int, int]:
    """v1's split, written from the notebook's description."""
    block = 32 if has_tanhx else 256
    blocks = -(-n * size // block)
    used = 1 if V1_TILE[size, has_tanhx] >= n else min(cores, blocks)
    return used, blocks % used, blocks // used * block // size, (blocks // used + 1) * block // size


def v1_split_without_the_one_core_rule(
    n: int, size: int, has_tanhx: bool, cores: int
) -> tuple[int, int, int, int]:
    """The typical mistake: our rule for small inputs (as many cores as blocks) instead of v1's."""
    block = 32 if has_tanhx else 256
    blocks = -(-n * size // block)
    used = min(cores, blocks)
    return used, blocks % used, blocks // used * block // size, (blocks // used + 1) * block // size


CASES = [
    Case(nb04.check_v1_split, right=v1_split, plausible=v1_split_without_the_one_core_rule),
    # 128 KiB less 8 KiB, at 44.25 bytes per element, rounded down to 256 elements. The
    # typical mistake: not rounded down (2776); the wrong one forgets the scratch area.
    Case(nb04.check_small_chip_tile, right=2560, plausible=2776, wrong=2816),
    Case(
        nb04.check_scratch_edit,
        right=4352,
        plausible=4443,  # the physical UB over 44.25 bytes per element, not rounded down
        wrong=4096,  # the unedited tile
        edit=lambda scratch: replace_in(
            scratch,
            "common/mish_grad_tiling.h",
            "kSelectScratchBytes = 8192",
            "kSelectScratchBytes = 0",
        ),
    ),
]
