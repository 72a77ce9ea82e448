"""The Python tiling model equals the C++ ComputeTiling, and every plan is a valid one."""

import dataclasses
import itertools
import re

import numpy as np
import pytest
import trace_checks

from mishgrad.kernel import platforms, tiling, twin
from mishgrad.kernel.source import OPERATOR_DIR

CHIPS = list(platforms.PLATFORMS.values())


def edge_lengths(dtype_size: int, has_tanhx: bool, chip: platforms.Platform) -> set[int]:
    tile = tiling.max_tile_length(dtype_size, has_tanhx, chip.ub_reported, chip.select_uses_scratch)
    unit = tiling.REPEAT_BYTES // dtype_size
    cores = chip.vector_cores
    around = [
        1,
        2,
        7,
        8,
        15,
        16,
        31,
        32,
        33,
        unit,
        tile,
        cores * unit,
        cores * tile,
        2 * cores * tile,
    ]
    return {n + d for n in around for d in (-1, 0, 1) if n + d >= 1}


def cases():
    rng = np.random.default_rng(2026)
    for chip in CHIPS:
        for size in (2, 4):
            for has_tanhx in (False, True):
                for n in edge_lengths(size, has_tanhx, chip):
                    yield (
                        n,
                        size,
                        has_tanhx,
                        chip.ub_reported,
                        chip.vector_cores,
                        chip.select_uses_scratch,
                    )
    for _ in range(10_000):
        size = int(rng.choice([2, 4]))
        ub = int(rng.choice([c.ub_reported for c in CHIPS] + [int(rng.integers(16_000, 300_000))]))
        cores = int(rng.integers(1, 80))
        n = int(10 ** rng.uniform(0, 9))
        yield n, size, bool(rng.integers(2)), ub, cores, bool(rng.integers(2))


def test_model_equals_cpp_on_edge_and_random_inputs():
    checked = 0
    for args in cases():
        try:
            expected = tiling.plan(*args)
        except tiling.TilingError:
            with pytest.raises(tiling.TilingError):
                twin.native_tiling(*args)
        else:
            assert twin.native_tiling(*args) == expected, args
        checked += 1
    assert checked > 10_000


@pytest.mark.parametrize("chip", CHIPS, ids=lambda c: c.name)
@pytest.mark.parametrize("size", [2, 4])
@pytest.mark.parametrize("has_tanhx", [False, True])
def test_tile_is_the_largest_that_fits(chip, size, has_tanhx):
    tile = tiling.max_tile_length(size, has_tanhx, chip.ub_reported, chip.select_uses_scratch)
    limit = tiling.ub_limit(chip.ub_reported, size, has_tanhx, chip.select_uses_scratch)
    used = sum(b.bytes_for(tile) for b in tiling.budget(size, has_tanhx))
    bigger = sum(b.bytes_for(tile + tiling.TILE_ALIGN) for b in tiling.budget(size, has_tanhx))
    assert tile % tiling.TILE_ALIGN == 0 and used <= limit < bigger
    if tiling.selects(size, has_tanhx):  # below Select's scratch area
        assert used <= chip.select_scratch_begin


def test_plans_partition_the_tensor():
    for n, size, has_tanhx, ub, cores, scratch in list(cases())[::7]:
        if tiling.max_tile_length(size, has_tanhx, ub, scratch) == 0:
            continue
        plan = tiling.plan(n, size, has_tanhx, ub, cores, scratch)
        slices = plan.core_slices()
        assert slices[0][0] == 0 and sum(length for _, length in slices) == n
        assert all(a + la == b for (a, la), (b, _) in itertools.pairwise(slices))
        unit = tiling.REPEAT_BYTES // size
        assert all(start % unit == 0 for start, _ in slices)
        assert 1 <= plan.blockDim <= cores and plan.bigCoreNum < plan.blockDim
        assert 1 <= plan.lastCoreLength <= plan.smallCoreLength
        for count, tail, length in [
            (plan.smallTileNum, plan.smallTailLength, plan.smallCoreLength),
            (plan.lastTileNum, plan.lastTailLength, plan.lastCoreLength),
        ]:
            assert (count - 1) * plan.tileLength + tail == length and 1 <= tail <= plan.tileLength


def test_small_inputs_use_fewer_cores():
    chip = platforms.platform("910B2")
    assert tiling.plan_for(1, 4, False).blockDim == 1
    assert tiling.plan_for(64 * 5, 4, False).blockDim == 5
    assert tiling.plan_for(10**7, 4, False).blockDim == chip.vector_cores


@pytest.mark.parametrize(
    ("args", "status"),
    [
        ((0, 4, False, 196352, 48), 1),
        ((10, 8, False, 196352, 48), 2),
        ((10, 4, False, 196352, 0), 3),
        ((10, 4, False, 4000, 48), 4),
    ],
)
def test_invalid_inputs_fail_the_same_way(args, status):
    with pytest.raises(tiling.TilingError):
        tiling.plan(*args)
    with pytest.raises(tiling.TilingError, match=f"status {status}"):
        twin.native_tiling(*args)


def test_select_scratch_only_where_the_platform_needs_it():
    # Atlas A2: the no-tanhx buffers end below Select's 8 KB scratch area; Ascend 950's
    # count-based Select has none, so its no-tanhx branch may use all the reported UB.
    a2, a950 = platforms.platform("910B2"), platforms.platform("950")
    assert tiling.ub_limit(a2.ub_reported, 4, False, a2.select_uses_scratch) == 184 * 1024
    assert tiling.ub_limit(a950.ub_reported, 4, False, a950.select_uses_scratch) == a950.ub_reported
    assert a950.select_scratch_begin == a950.ub_bytes
    with_scratch = twin.native_tiling(10**6, 4, False, a950.ub_reported, 64, True)
    without = twin.native_tiling(10**6, 4, False, a950.ub_reported, 64, False)
    assert without == tiling.plan_for(10**6, 4, False, "950")
    assert without.tileLength > with_scratch.tileLength
    assert twin.run_kernel(
        np.ones(10**5, np.float32), np.ones(10**5, np.float32), on="950"
    ).plan == (tiling.plan_for(10**5, 4, False, "950"))


def test_ub_reserve_is_the_cpp_tiling_s_per_soc():
    # The C++ header states each SoC family's reserve and Select scratch once (kAscend910BUb,
    # kAscend950Ub); the Python platforms agree: 256 bytes on Atlas A2, none on Ascend 950.
    header = (OPERATOR_DIR / "common" / "mish_grad_tiling.h").read_text()
    socs = re.findall(r"constexpr SocUb (k\w+Ub) = \{(\d+), (true|false)\};", header)
    assert socs == [
        ("kAscend910BUb", str(platforms.UB_RESERVED_BYTES), "true"),
        ("kAscend950Ub", "0", "false"),
    ]
    for chip in CHIPS:
        assert chip.ub_reserved == (platforms.UB_RESERVED_BYTES if chip.select_uses_scratch else 0)
    a2, a950 = platforms.platform("910B2"), platforms.platform("950")
    assert a2.ub_reported == 196_352 and a2.ub_reported in platforms.UB_SIZE_FIXTURES
    assert a950.ub_reported == a950.ub_bytes == 253_952  # ops-nn's arch35 tests: UB_SIZE 253952


def test_v1_tiling_model():
    # ops-nn's kernel test of v1 uses a tile of 4032 float32 elements: v1's rule on 196,352 B.
    assert tiling.v1_tile_length(196_352, 4, False) == 4032
    assert tiling.v1_tile_length(196_608, 4, False) == 4096
    assert tiling.v1_split(100, 4, False, 196_352, 48) == (1, 0, 128, 192)  # one tile: one core
    cores, big, small, large = tiling.v1_split(10**6, 2, True, 196_352, 40)
    assert cores == 40 and large - small == 32 // 2
    assert (
        big * large + (cores - big) * small
        == 10**6 + trace_checks.v1_overrun_bytes(10**6, 2, True) // 2
    )


def test_v1_overrun_bytes():
    assert trace_checks.v1_overrun_bytes(64, 4, False) == 0
    assert trace_checks.v1_overrun_bytes(65, 4, False) == 252
    assert trace_checks.v1_overrun_bytes(9, 2, True) == 14


def test_plan_round_trips_through_the_c_struct():
    plan = tiling.plan_for(12345, 2, True, "950")
    assert twin.TilingData.from_plan(plan).as_plan() == plan
    assert dataclasses.astuple(plan)[0] == 12345


def test_notebook_05s_init_arithmetic_gives_the_plans_slices():
    """Notebook 05 does Init's arithmetic in NumPy, every core at once, for its tensor.

    n = 1,000,003 float32 on Atlas A2, planned by the C++ tiling: the starts and lengths must be
    the plan's own slices (contiguous, from 0, adding up to n), with the plan's tiles and tails.
    """
    a2 = platforms.platform("910B2")
    n = 1_000_003
    plan = twin.native_tiling(n, 4, False, a2.ub_reported, a2.vector_cores)
    core = np.arange(plan.blockDim)
    big = core < plan.bigCoreNum
    last = core == plan.blockDim - 1
    after_big = plan.bigCoreNum * plan.bigCoreLength
    start = np.where(
        big, core * plan.bigCoreLength, after_big + (core - plan.bigCoreNum) * plan.smallCoreLength
    )
    small = np.where(last, plan.lastCoreLength, plan.smallCoreLength)
    length = np.where(big, plan.bigCoreLength, small)
    slices = [(int(s), int(k)) for s, k in zip(start, length, strict=True)]
    assert slices == [tuple(s) for s in plan.core_slices()]
    assert start[0] == 0 and np.all(start[1:] == start[:-1] + length[:-1]) and length.sum() == n
    tiles = -(-length // plan.tileLength)
    tails = length - (tiles - 1) * plan.tileLength
    planned_tiles = np.where(last, plan.lastTileNum, plan.smallTileNum)
    planned_tails = np.where(last, plan.lastTailLength, plan.smallTailLength)
    assert np.array_equal(tiles, np.where(big, plan.bigTileNum, planned_tiles))
    assert np.array_equal(tails, np.where(big, plan.bigTailLength, planned_tails))


# Notebook 04 computes the tiling by hand in its cells; these are the checks it printed as
# "agrees: True" before issue 29, each against the package function the notebook then uses.


def _notebook_04_bytes_per_element(size: int, has_tanhx: bool) -> float:
    """Notebook 04, section 2: the kernel's buffers per tile element, counted by hand."""
    selects = size == 4 and not has_tanhx
    queues = (4 if has_tanhx else 3) * 2 * size
    copies = 0 if size == 4 else (3 if has_tanhx else 2) * 4
    temporaries = (5 if selects else 2) * 4
    masks = 2 / 8 if selects else 0
    return queues + copies + temporaries + masks


def _notebook_04_ub_limit(chip: platforms.Platform, size: int, has_tanhx: bool) -> int:
    if chip.select_uses_scratch and size == 4 and not has_tanhx:
        return chip.ub_bytes - platforms.SELECT_SCRATCH_BYTES
    return chip.ub_reported


def _notebook_04_tile_length(limit: int, bytes_per_element: float) -> int:
    return int(limit // bytes_per_element) // 256 * 256


def test_notebook_04s_budget_limit_and_tile_are_the_packages():
    for size in (2, 4):
        for has_tanhx in (False, True):
            bits = sum(b.copies * b.bits_per_element for b in tiling.budget(size, has_tanhx))
            per_element = _notebook_04_bytes_per_element(size, has_tanhx)
            assert per_element == bits / 8
            for chip in CHIPS:
                limit = _notebook_04_ub_limit(chip, size, has_tanhx)
                assert limit == tiling.ub_limit(
                    chip.ub_reported, size, has_tanhx, chip.select_uses_scratch
                )
                assert _notebook_04_tile_length(limit, per_element) == tiling.max_tile_length(
                    size, has_tanhx, chip.ub_reported, chip.select_uses_scratch
                )
    a2 = platforms.platform("910B2")  # without tanhx, the limit is where Select's scratch begins
    assert _notebook_04_ub_limit(a2, 4, False) == a2.select_scratch_begin


def test_notebook_04s_v1_tile_by_hand_is_the_packages():
    for ub in platforms.UB_SIZE_FIXTURES:
        for size in (2, 4):
            for has_tanhx in (False, True):
                block = 32 if has_tanhx else 256
                by_hand = ub // block // tiling.V1_PARTS[size, has_tanhx] * block // size
                assert by_hand == tiling.v1_tile_length(ub, size, has_tanhx)


def _notebook_04_split(n: int, size: int, cores: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Notebook 04, section 3: each core's start and length, and the number of big cores."""
    unit = tiling.REPEAT_BYTES // size
    units = -(-n // unit)
    used = min(units, cores)
    lengths = np.full(used, units // used * unit)
    lengths[: units % used] += unit
    starts = np.concatenate([[0], np.cumsum(lengths[:-1])])
    lengths[-1] = n - starts[-1]
    return starts, lengths, units % used


def test_notebook_04s_split_is_the_plans():
    rng = np.random.default_rng(3)
    edges = [1, 63, 64, 65, 1000, 3071, 3072, 3073, 3077, 300_001, 10**6, 10**7]
    for n in [*edges, *rng.integers(1, 10**8, 60).tolist()]:
        for size in (2, 4):
            for has_tanhx in (False, True):
                for chip in CHIPS:
                    args = (n, size, has_tanhx, chip.ub_reported, chip.vector_cores)
                    plan = tiling.plan(*args, chip.select_uses_scratch)
                    assert twin.native_tiling(*args, chip.select_uses_scratch) == plan
                    starts, lengths, big = _notebook_04_split(n, size, chip.vector_cores)
                    slices = [(int(s), int(k)) for s, k in zip(starts, lengths, strict=True)]
                    assert slices == plan.core_slices() and big == plan.bigCoreNum
                    assert starts[-1] + lengths[-1] == n


def test_notebook_04s_overrun_by_hand_is_v1_overrun_bytes():
    for size in (2, 4):
        n = np.arange(1, 100_001)
        nbytes = n * size
        for has_tanhx, block in ((False, 256), (True, 32)):
            by_hand = -(-nbytes // block) * block - nbytes
            expected = [trace_checks.v1_overrun_bytes(int(k), size, has_tanhx) for k in n[::997]]
            assert by_hand[::997].tolist() == expected
            assert by_hand.max() == block - size


def test_the_reserve_changes_no_tile_length():
    # Notebook 04's Reference: either of ops-nn's A2 figures taken as the one reported, the
    # physical UB staying the same, gives the same tile in every case.
    a2 = platforms.platform("910B2")
    low, high = sorted(platforms.UB_SIZE_FIXTURES)
    for size in (2, 4):
        for has_tanhx in (False, True):
            tiles = set()
            for reported in (low, high):
                selects = tiling.selects(size, has_tanhx)
                limit = a2.select_scratch_begin if selects else reported
                bits = sum(b.copies * b.bits_per_element for b in tiling.budget(size, has_tanhx))
                tiles.add(limit * 8 // bits // tiling.TILE_ALIGN * tiling.TILE_ALIGN)
            assert tiles == {tiling.max_tile_length(size, has_tanhx, a2.ub_reported)}
