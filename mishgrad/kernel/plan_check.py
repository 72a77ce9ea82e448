"""A tiling plan a caller passes to ``run_kernel``, checked against the arrays it is to run on.

Notebook 07 launches the kernel with plans broken on purpose. The twin's checks stop most with
a message that names the AscendC call, but they trust a few fields (the twin bounds-checks
accesses against tensors of ``totalLength`` elements and starts ``blockDim`` threads), and no
check sees a write that never happens: :func:`check_plan` refuses the plans those would make
unsafe or silently wrong, naming the field and why.
"""

import ctypes

import numpy as np

from . import tiling
from .messages import translate
from .platforms import Platform
from .twin_abi import TilingData


def plan_refused(why: str) -> ValueError:
    """The error that refuses a plan: a learner reads ``why``, in the notebook's language."""
    return ValueError(translate(why))


def check_plan(plan: object, x: np.ndarray, has_tanhx: bool, chip: Platform) -> None:
    """Refuse a supplied plan that the twin cannot check safely, or that leaves output unwritten.

    Every field must fit its C type, ``totalLength`` be x's size, ``blockDim`` within the
    platform's cores and each buffer within the UB, and the cores' slices and tiles must reach
    every element. A plan that reaches *past* a slice or the tensor is left to the twin's bounds
    checks, which name the AscendC call (notebook 07 shows them).

    Raises
    ------
    TypeError
        If ``plan`` is not a :class:`~mishgrad.kernel.tiling.TilingPlan`.
    ValueError
        Naming the first field that is wrong, and why.
    """
    if not isinstance(plan, tiling.TilingPlan):
        raise TypeError(translate(f"plan must be a TilingPlan, not {type(plan).__name__}"))
    for name, ctype in TilingData._fields_:
        _check_field(name, getattr(plan, name), 8 * ctypes.sizeof(ctype))
    n = x.size
    if plan.totalLength != n:
        raise plan_refused(
            f"plan.totalLength is {plan.totalLength}, but x has {n} elements: the twin would "
            f"check the kernel's accesses against tensors of {plan.totalLength}"
        )
    if not 1 <= plan.blockDim <= chip.vector_cores:
        raise plan_refused(
            f"plan.blockDim is {plan.blockDim}; a launch on the {chip.name} uses 1 to "
            f"{chip.vector_cores} vector cores"
        )
    if plan.bigCoreNum > plan.blockDim:
        raise plan_refused(
            f"plan.bigCoreNum is {plan.bigCoreNum}, more than its blockDim ({plan.blockDim})"
        )
    if plan.hasTanhx != int(has_tanhx):
        given = "tanhx was given" if has_tanhx else "no tanhx was given"
        raise plan_refused(f"plan.hasTanhx is {plan.hasTanhx}, but {given}")
    _check_tile_length(plan, x.dtype.itemsize, chip)
    _check_slices(plan, n)


def _check_field(name: str, value: object, bits: int) -> None:
    if not isinstance(value, (int, np.integer)):
        raise plan_refused(f"plan.{name} is {value!r}, not an integer")
    if not 0 <= value < 2**bits:
        raise plan_refused(f"plan.{name} is {value}, not a {bits}-bit unsigned integer")


def _check_tile_length(plan: tiling.TilingPlan, dtype_size: int, chip: Platform) -> None:
    """Each of the kernel's buffers alone must fit the UB (TPipe::InitBuffer checks them all)."""
    if plan.tileLength == 0:
        raise plan_refused("plan.tileLength is 0; a tile holds at least one element")
    buffers = tiling.budget(dtype_size, bool(plan.hasTanhx))
    largest = max(buffers, key=lambda buffer: buffer.bytes_for(plan.tileLength))
    needs = largest.bytes_for(plan.tileLength)
    if needs > chip.ub_bytes:
        raise plan_refused(
            f"plan.tileLength is {plan.tileLength}: the kernel's {largest.name} alone would "
            f"need {needs} bytes, more than the {chip.name}'s {chip.ub_bytes} bytes of UB"
        )


def _check_slices(plan: tiling.TilingPlan, n: int) -> None:
    """Every one of the n elements must lie in a core's slice, and in one of its tiles."""
    kinds = [plan.core_kind(core) for core in range(plan.blockDim)]  # as core_slices
    for kind in dict.fromkeys(kinds):
        length_field = f"{kind}CoreLength"
        length = getattr(plan, length_field)
        if length > n:
            raise plan_refused(f"plan.{length_field} is {length}, more than x's {n} elements")
        _check_tiles(plan, kind, length)
    start, length = plan.core_slices()[-1]
    if start + length < n:
        field = f"{kinds[-1]}CoreLength"
        raise plan_refused(
            f"plan.{field} is {length}: the cores' slices end at element {start + length}, so "
            f"the last {n - start - length} elements of x would never be written"
        )


def _check_tiles(plan: tiling.TilingPlan, kind: str, length: int) -> None:
    """A core's tiles must reach the end of its slice; else name the count or tail short of it."""
    count_field, tail_field = f"{kind}TileNum", f"{kind}TailLength"
    count, tail, tile = getattr(plan, count_field), getattr(plan, tail_field), plan.tileLength
    if tail > tile:
        raise plan_refused(f"plan.{tail_field} is {tail}, longer than its tileLength ({tile})")
    covered = (count - 1) * tile + tail if count else 0
    if covered >= length:
        return  # a tile that reaches past the slice is the twin's to stop
    wanted_count, wanted_tail = tiling._tiles(length, tile)
    field, wanted = (
        (count_field, wanted_count) if count < wanted_count else (tail_field, wanted_tail)
    )
    raise plan_refused(
        f"plan.{field} is {getattr(plan, field)}, not {wanted}: a {kind} core's tiles end at "
        f"element {covered} of its {length}, so {length - covered} elements would never be written"
    )
