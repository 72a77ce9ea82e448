"""Each fidelity rule of the twin, provoked by a kernel that breaks it (mishgrad.kernel.misuse)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from mishgrad.kernel import misuse as misuse_programs
from mishgrad.math import dtypes


@pytest.fixture(scope="module")
def misuse() -> ctypes.CDLL:
    library = misuse_programs.library()
    library.misuse_outside_launch.argtypes = [ctypes.c_char_p, ctypes.c_uint64]
    library.twin_cast.argtypes = [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int32,
        ctypes.c_int32,
        ctypes.c_char_p,
        ctypes.c_uint64,
    ]
    return library


def test_a_clean_kernel_passes():
    assert misuse_programs.run("clean") == (0, "")


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        (
            "ub_over_capacity",
            "TPipe::InitBuffer: needs 100000 bytes at UB offset 100000 but the UB holds 196608",
        ),
        ("partial_block_datacopy", "DataCopy: 7 elements are 28 bytes, not whole 32-byte blocks"),
        ("misaligned_ub", "DataCopy: dst starts at UB offset 12, not a multiple of 32 bytes"),
        (
            "queue_alloc_full",
            "TQue::AllocTensor: all 2 buffers of the VECIN queue at UB offset 0 are in use",
        ),
        ("queue_deque_empty", "TQue::DeQue: the VECOUT queue at UB offset 0 is empty"),
        (
            "queue_enque_beyond_depth",
            "TQue::EnQue: the VECIN queue at UB offset 0 already holds its depth of 1 enqueued "
            "tensor(s): EnQue 2 times without a DeQue needs depth 2",
        ),
        ("use_after_free", "Adds: dst is a queue buffer used after FreeTensor"),
        (
            "free_twice",
            "TQue::FreeTensor: buffer 0 of the VECIN queue at UB offset 0 is already free",
        ),
        ("ub_buffer_overrun", "Duplicate: dst holds 256 bytes but the call uses 512"),
        ("dump_past_tensor", "DumpTensor: tensor holds 32 bytes but the call uses 64"),
        ("select_scratch_overlap", "Select: tensor modes use UB [188416, 196608) as scratch"),
        ("gm_read_past_end", "DataCopy: accesses 64 bytes but only 32 remain in the GlobalTensor"),
        (
            "gm_buffer_outside_tensor",
            "GlobalTensor::SetGlobalBuffer: 64 elements from this address",
        ),
        ("compare_partial_repeat", "CompareScalar: 32 elements are not whole 256-byte repeats"),
        ("cast_odd_to_bfloat16", "Cast: CAST_ODD is defined for float -> half only"),
    ],
)
def test_each_violation_is_an_error_naming_the_call(case, expected):
    status, message = misuse_programs.run(case)
    assert status == 1
    assert message.startswith(expected), message
    assert message.endswith("(core 0)")


def test_data_copy_pad_follows_its_parameters(misuse):
    misuse.misuse_input_ramp()
    assert misuse_programs.run("padded_rows") == (0, "")
    out = np.empty(64, np.float32)
    misuse.misuse_output(out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
    # Row 0: pad, GM 0..4, pad, pad; row 1 (the next 32-byte row): pad, GM 6..10, pad, pad.
    assert out[:16].tolist() == [7, 0, 1, 2, 3, 4, 7, 7, 7, 6, 7, 8, 9, 10, 7, 7]
    assert np.all(out[16:] == -1)


def test_every_misuse_of_the_table_is_stopped_by_the_twin():
    for entry in misuse_programs.MISUSES:
        status, message = misuse_programs.run(entry.case)
        assert status == 1 and message.endswith("(core 0)"), (entry.case, message)
        assert entry.source.startswith("https://"), entry


def test_unknown_case_and_calls_outside_a_launch(misuse):
    with pytest.raises(KeyError):
        misuse_programs.run("no such case")
    message = ctypes.create_string_buffer(256)
    assert misuse.misuse_outside_launch(message, len(message)) == 1
    assert message.value == b"AscendC API called outside a kernel launch"


def reference_cast(values: np.ndarray, target: np.dtype, mode: str) -> np.ndarray:
    """Round float32 values to a 16-bit format in `mode`, by exact comparison with neighbours."""
    with np.errstate(over="ignore"):  # beyond float16's range: inf, as round-to-nearest says
        nearest = values.astype(target)  # float32 -> 16-bit casts round to nearest even directly
    keys = dtypes.ordered(nearest)
    exact = values.astype(np.float64)
    back = nearest.astype(np.float64)
    below = np.where(back > exact, dtypes.from_ordered(keys - 1, target), nearest)
    above = np.where(back < exact, dtypes.from_ordered(keys + 1, target), nearest)
    lo, hi = below.astype(np.float64), above.astype(np.float64)
    if mode == "CAST_RINT":
        return nearest
    if mode == "CAST_FLOOR":
        return below
    if mode == "CAST_CEIL":
        return above
    if mode == "CAST_TRUNC":
        return np.where(exact >= 0, below, above)
    if mode == "CAST_ROUND":
        tie = (exact - lo) == (hi - exact)
        away = np.where(exact >= 0, above, below)
        return np.where(tie & (lo != hi), away, nearest)
    # CAST_ODD: exact values stay; others take whichever neighbour has an odd last bit.
    odd = np.where(dtypes.ordered(below) % 2 != 0, below, above)
    return np.where(lo == hi, nearest, odd)


MODES = {
    "CAST_RINT": 1,
    "CAST_FLOOR": 2,
    "CAST_CEIL": 3,
    "CAST_ROUND": 4,
    "CAST_TRUNC": 5,
    "CAST_ODD": 6,
}


CAST_CASES = [
    (m, t) for m in MODES for t in ("float16", "bfloat16") if (m, t) != ("CAST_ODD", "bfloat16")
]


@pytest.mark.parametrize(("mode", "target"), CAST_CASES)
def test_cast_implements_every_round_mode(misuse, mode, target):
    # (CAST_ODD to bfloat16 is an error, tested above.)
    rng = np.random.default_rng(11)
    bits = rng.integers(0, 2**32, 1 << 16, dtype=np.uint64).astype(np.uint32)
    values = bits.view(np.float32)
    # Midpoints and exact values matter most: add float32 numbers on and between the 16-bit grid.
    grid = dtypes.all_values(target).astype(np.float32)
    between = ((grid[:-1].astype(np.float64) + grid[1:]) / 2).astype(np.float32)
    values = np.concatenate([values, grid, between])
    values = values[np.isfinite(values)]
    values = values[: values.size // 64 * 64]
    out = np.empty(values.size, np.uint16)
    message = ctypes.create_string_buffer(256)
    chunk = 1 << 14  # what one core's UB holds comfortably
    for start in range(0, values.size, chunk):
        part = np.ascontiguousarray(values[start : start + chunk])
        piece = np.empty(part.size, np.uint16)
        bf16 = int(target == "bfloat16")
        status = misuse.twin_cast(
            part.ctypes.data, piece.ctypes.data, part.size, MODES[mode], bf16, message, 256
        )
        assert status == 0, message.value
        out[start : start + part.size] = piece
    target_dtype = dtypes.as_dtype(target)
    expected = reference_cast(values, target_dtype, mode)
    got = out.view(target_dtype).astype(np.float64)
    want = expected.astype(np.float64)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    assert same.all(), (values[~same][:5], got[~same][:5], want[~same][:5])
