"""A readable Python model of MishGrad's host tiling (``common/mish_grad_tiling.h``).

The C++ function is what runs, on the NPU host and in the CPU twin; this model lets notebook 04
explain it, and ``tests/test_tiling.py`` checks on thousands of inputs that both plan alike:

1. **UB budget.** The tile is the largest multiple of 256 elements whose buffers (the table of
   :func:`budget`) fit the UB, below Select's scratch area where the platform's Select needs one.
2. **Cores.** Work is dealt out in units of one 256-byte vector repeat: with ``U`` units and
   ``C`` cores, every core gets ``U // C`` units, the first ``U % C`` ("big") cores one more, and
   the last core stops exactly at ``n``.
3. **Tiles.** Each core cuts its slice into full tiles and one tail.
"""

from dataclasses import dataclass

from .platforms import SELECT_SCRATCH_BYTES, UB_RESERVED_BYTES, Platform, platform

BLOCK_BYTES = 32  #: UB addresses and DataCopy lengths come in whole 32-byte blocks
REPEAT_BYTES = 256  #: bytes one vector instruction repeat processes
BUFFER_NUM = 2  #: double buffering of the in/out queues
TILE_ALIGN = 256  #: tiles are multiples of 256 elements (256 mask bits = one block)


@dataclass(frozen=True)
class Buffer:
    """One UB buffer of the kernel: a name, how many copies, and bits per tile element."""

    name: str
    copies: int
    bits_per_element: int

    def bytes_for(self, tile_length: int) -> int:
        """UB bytes of all copies for a tile of ``tile_length`` elements (32-byte aligned)."""
        one = -(-tile_length * self.bits_per_element // 8)
        return self.copies * (-(-one // BLOCK_BYTES) * BLOCK_BYTES)


def buffer_kind(name: str) -> str:
    """What a buffer of :func:`budget` holds: "queue", "float32 copy", "temp" or "mask"."""
    if name.endswith("queue"):
        return "queue"
    if "float32" in name:
        return "float32 copy"
    if name.startswith("temp"):
        return "temp"
    return "mask"


def budget(dtype_size: int, has_tanhx: bool) -> list[Buffer]:
    """The buffers the kernel allocates (in the order of ``MishGradKernel::Init``)."""
    queues = ["grad", "x", "tanhx", "x_grad"] if has_tanhx else ["grad", "x", "x_grad"]
    buffers = [Buffer(f"{name} queue", BUFFER_NUM, 8 * dtype_size) for name in queues]
    if dtype_size != 4:  # 16-bit inputs are widened to float32 copies
        widened = ["x", "result", "tanhx"] if has_tanhx else ["x", "result"]
        buffers += [Buffer(f"{name} (float32)", 1, 32) for name in widened]
    selecting = selects(dtype_size, has_tanhx)
    buffers += [Buffer(f"temp {i}", 1, 32) for i in range(5 if selecting else 2)]
    if selecting:
        buffers += [Buffer("x > 0 mask (bits)", 1, 1), Buffer("x <= 0 mask (bits)", 1, 1)]
    return buffers


def selects(dtype_size: int, has_tanhx: bool) -> bool:
    """Whether the kernel runs Select: float32 without tanhx only (its masks and five temps).

    The 16-bit path without tanhx computes one fraction with two temps and no mask
    (``NarrowDerivative``).
    """
    return dtype_size == 4 and not has_tanhx


def ub_limit(
    ub_reported: int, dtype_size: int, has_tanhx: bool, select_scratch: bool = True
) -> int:
    """UB bytes the kernel's buffers may occupy.

    A kernel that runs Select (:func:`selects`) on a platform where Select needs a scratch area
    (``select_scratch``: Atlas A2) must end its buffers below it, 8 KB below the top of the
    *physical* UB: the reported one plus :data:`~mishgrad.kernel.platforms.UB_RESERVED_BYTES`,
    as in the C++ ``kAscend910BUb``.
    """
    if not selects(dtype_size, has_tanhx) or not select_scratch:
        return ub_reported
    return max(ub_reported + UB_RESERVED_BYTES - SELECT_SCRATCH_BYTES, 0)


def max_tile_length(
    dtype_size: int, has_tanhx: bool, ub_reported: int, select_scratch: bool = True
) -> int:
    """The largest multiple of 256 elements whose buffers fit (0 if none does)."""
    bits = sum(b.copies * b.bits_per_element for b in budget(dtype_size, has_tanhx))
    elements = ub_limit(ub_reported, dtype_size, has_tanhx, select_scratch) * 8 // bits
    return elements // TILE_ALIGN * TILE_ALIGN


@dataclass(frozen=True)
class TilingPlan:
    """The fields of ``MishGradTilingData``, named as in the C++ struct."""

    totalLength: int
    blockDim: int
    bigCoreNum: int
    bigCoreLength: int
    smallCoreLength: int
    lastCoreLength: int
    tileLength: int
    hasTanhx: int
    bigTileNum: int
    bigTailLength: int
    smallTileNum: int
    smallTailLength: int
    lastTileNum: int
    lastTailLength: int

    def core_kind(self, core: int) -> str:
        """``"big"``, ``"small"`` or ``"last"``: the kind of core ``core`` (the big ones first)."""
        if core < self.bigCoreNum:
            return "big"
        return "last" if core == self.blockDim - 1 else "small"

    def core_slices(self) -> list[tuple[int, int]]:
        """(start, length) of every core's slice, in core order."""
        slices, start = [], 0
        for core in range(self.blockDim):
            length = getattr(self, f"{self.core_kind(core)}CoreLength")
            slices.append((start, length))
            start += length
        return slices


@dataclass(frozen=True)
class CoreKind:
    """One kind of core in a plan: how many there are and what each one processes."""

    kind: str  # "big", "small" or "last"
    cores: int
    length: int
    tiles: int
    tail: int


def core_kinds(plan: TilingPlan) -> list[CoreKind]:
    """The big, small and last cores of ``plan`` (kinds with no core are left out)."""
    small = plan.blockDim - plan.bigCoreNum - 1
    kinds = [
        CoreKind("big", plan.bigCoreNum, plan.bigCoreLength, plan.bigTileNum, plan.bigTailLength),
        CoreKind("small", small, plan.smallCoreLength, plan.smallTileNum, plan.smallTailLength),
        CoreKind("last", 1, plan.lastCoreLength, plan.lastTileNum, plan.lastTailLength),
    ]
    return [kind for kind in kinds if kind.cores > 0]


class TilingError(ValueError):
    """The inputs admit no plan (the C++ function returns the same status)."""


def _tiles(length: int, tile_length: int) -> tuple[int, int]:
    count = -(-length // tile_length)
    return count, length - (count - 1) * tile_length


def plan(
    total_length: int,
    dtype_size: int,
    has_tanhx: bool,
    ub_reported: int,
    core_count: int,
    select_scratch: bool = True,
) -> TilingPlan:
    """Plan a launch: cores, the big/small split, tile length, tiles and tails.

    Parameters
    ----------
    total_length, dtype_size, has_tanhx
        Elements n (>= 1); bytes per element, 4 (float32) or 2 (float16, bfloat16); whether
        the forward pass supplied tanhx.
    ub_reported, core_count, select_scratch
        UB bytes as the tiling API reports them (physical minus 256 on Atlas A2); vector cores
        available; whether Select's tensor modes need the 8 KB scratch area at the top of UB
        (:attr:`mishgrad.kernel.platforms.Platform.select_uses_scratch`).

    Raises
    ------
    TilingError
        For n = 0, an unsupported element size, no cores, or a UB too small for one tile.
    """
    if total_length == 0:
        raise TilingError("n = 0: nothing to launch")
    if dtype_size not in (2, 4):
        raise TilingError(f"element size {dtype_size} is neither 2 nor 4 bytes")
    if core_count == 0:
        raise TilingError("no vector core")
    tile = max_tile_length(dtype_size, has_tanhx, ub_reported, select_scratch)
    if tile == 0:
        raise TilingError(f"{ub_reported} bytes of UB do not hold one 256-element tile")
    unit = REPEAT_BYTES // dtype_size
    units = -(-total_length // unit)
    cores = min(units, core_count)
    big = units % cores
    small_length = units // cores * unit
    big_length = small_length + unit
    last_start = big * big_length + (cores - 1 - big) * small_length
    last_length = total_length - last_start
    lengths = (big_length, small_length, last_length)
    tiles = [field for length in lengths for field in _tiles(length, tile)]  # count, tail each
    return TilingPlan(total_length, cores, big, *lengths, tile, int(has_tanhx), *tiles)


def plan_for(
    total_length: int, dtype_size: int, has_tanhx: bool, on: str | Platform = "910B2"
) -> TilingPlan:
    """:func:`plan` for a named platform (see :mod:`mishgrad.kernel.platforms`)."""
    chip = platform(on)
    ub_and_cores = (chip.ub_reported, chip.vector_cores, chip.select_uses_scratch)
    return plan(total_length, dtype_size, has_tanhx, *ub_and_cores)


#: ops-nn v1's UB part counts: (element size, has tanhx) -> parts; one part is one tile
#: (ops-nn ``experimental/activation/mish_grad/op_host/mish_grad_tiling.cpp``, lines 31-34).
V1_PARTS = {(4, False): 12, (2, False): 22, (4, True): 10, (2, True): 16}


def v1_block_bytes(has_tanhx: bool) -> int:
    """The block v1's tiling counts in: 256 bytes without tanhx, 32 with it."""
    return 32 if has_tanhx else 256


def v1_tile_length(ub_reported: int, dtype_size: int, has_tanhx: bool) -> int:
    """v1's tile: whole blocks of UB shared equally among the parts, in elements."""
    block = v1_block_bytes(has_tanhx)
    blocks_per_tile = ub_reported // block // V1_PARTS[dtype_size, has_tanhx]
    return blocks_per_tile * block // dtype_size


def v1_split(
    total_length: int, dtype_size: int, has_tanhx: bool, ub_reported: int, core_count: int
) -> tuple[int, int, int, int]:
    """v1's core split: (cores, big cores, small core's elements, big core's elements).

    v1 rounds the byte length up to whole blocks and deals the blocks out: every core gets
    the same number and the first ``blocks % cores`` one more. It launches one core when a
    single tile holds the whole tensor (ops-nn ``mish_grad_tiling.cpp``, lines 111-139 and
    168-173).
    """
    block = v1_block_bytes(has_tanhx)
    blocks = -(-total_length * dtype_size // block)
    one_tile = v1_tile_length(ub_reported, dtype_size, has_tanhx) >= total_length
    cores = 1 if one_tile else min(core_count, blocks)
    per_core = blocks // cores
    small, big = per_core * block // dtype_size, (per_core + 1) * block // dtype_size
    return cores, blocks % cores, small, big
