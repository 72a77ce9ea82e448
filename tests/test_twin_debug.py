"""AscendC's printf and DumpTensor on the twin: the NPU's text format, per core, captured.

The formats follow asc-devkit's documentation (printf.md: the conversions and the
"[AIV Block i/n]" prefix; DumpTensor.md: the header line and the values). The cases live in
``tests/twin/debug_kernels.cpp``; ``test_kernel_log_*`` runs the real kernel with a printf.
"""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import numpy as np
import pytest

from mishgrad.kernel import twin, twin_build
from mishgrad.kernel.scratch import scratch_kernel

SOURCE = Path(__file__).parent / "twin" / "debug_kernels.cpp"


@pytest.fixture(scope="module")
def debug() -> ctypes.CDLL:
    library = twin_build.build_extra("mishgrad_debug", [SOURCE])
    library.debug_run.argtypes = [
        ctypes.c_char_p,
        ctypes.c_uint32,
        ctypes.c_uint32,
        ctypes.c_char_p,
        ctypes.c_uint64,
        ctypes.c_char_p,
        ctypes.c_uint64,
    ]
    return library


def run(library: ctypes.CDLL, name: str, cores: int = 1, threads: int = 1) -> tuple[int, str, str]:
    log = ctypes.create_string_buffer(1 << 16)
    message = ctypes.create_string_buffer(1024)
    status = library.debug_run(name.encode(), cores, threads, log, len(log), message, len(message))
    return status, log.value.decode(), message.value.decode()


def test_printf_prints_every_documented_conversion(debug):
    status, log, message = run(debug, "formats")
    assert (status, message) == (0, "")
    assert log.splitlines() == [
        "[AIV Block 0/1] d=42 i=-7 ld=123456789 lld=-1234567890123",
        "[AIV Block 0/1] u=7 lu=4000000000 llu=18446744073709551615",
        "[AIV Block 0/1] x=ff lx=abcdef llx=123456789abc neg=ffffffff",
        "[AIV Block 0/1] f=3.140000 F=2.500000 half=1.500000 bf16=-0.750000",
        "[AIV Block 0/1] s=AscendC width=[   42] left=[7   ] prec=[0.33] pct=100%",
        "[AIV Block 0/1] upper-case PRINTF 1",
    ]


def test_printf_prints_a_pointer(debug):
    status, log, _ = run(debug, "pointer")
    assert status == 0
    assert re.fullmatch(r"\[AIV Block 0/1\] p=0x[0-9a-f]+\n", log), log


def test_each_core_prints_in_core_order_whatever_the_threads(debug):
    expected = "".join(f"[AIV Block {i}/16] core {i} of 16\n" for i in range(16))
    for threads in (1, 4, 16):
        assert run(debug, "per_core", cores=16, threads=threads) == (0, expected, "")


def test_dump_tensor_of_a_local_tensor(debug):
    status, log, _ = run(debug, "dump_local")
    assert status == 0
    assert log == (
        "DumpTensor: desc=5, addr=0x40, data_type=float32, position=UB, dump_size=8\n"
        "[-1.000000, -0.500000, 0.000000, 0.500000, 1.000000, 1.500000, 2.000000, 2.500000]\n"
    )


def test_dump_tensor_names_each_data_type(debug):
    status, log, _ = run(debug, "dump_half_and_int")
    assert status == 0
    assert log.splitlines() == [
        "DumpTensor: desc=1, addr=0x0, data_type=float16, position=UB, dump_size=4",
        "[0.250000, 0.250000, 0.250000, 0.250000]",
        "DumpTensor: desc=2, addr=0x20, data_type=int32, position=UB, dump_size=3",
        "[-3, -3, -3]",
    ]


def test_dump_tensor_of_a_global_tensor(debug):
    status, log, _ = run(debug, "dump_global")
    assert status == 0
    assert log == (
        "DumpTensor: desc=7, addr=0x20, data_type=float32, position=GM, dump_size=4\n"
        "[8.000000, 9.000000, 10.000000, 11.000000]\n"
    )


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        (
            "dump_global_past_end",
            "DumpTensor: accesses 32 bytes but only 16 remain in the GlobalTensor",
        ),
        ("dump_over_limit", "DumpTensor: dump_size 8192 is 32768 bytes, more than the 30720"),
        ("count_mismatch", "printf: the format has 2 conversions but 1 arguments were passed"),
        ("unknown_conversion", "printf: conversion '%q' is not one AscendC documents"),
        ("kind_mismatch", "printf: argument 1 does not fit %d (it prints an integer)"),
    ],
)
def test_bad_debug_calls_are_clear_errors(debug, case, expected):
    status, log, message = run(debug, case)
    assert status == 1
    assert message.startswith(expected), message
    assert message.endswith("(core 0)")
    assert log == ""


def test_a_failed_core_keeps_what_it_printed(debug):
    status, log, message = run(debug, "print_then_fail", cores=3, threads=3)
    assert status == 1
    assert message.startswith("GlobalTensor::SetGlobalBuffer") and message.endswith("(core 1)")
    assert log.splitlines() == [
        f"[AIV Block {i}/3] before the failure on core {i}" for i in range(3)
    ]


@pytest.mark.slow
def test_kernel_log_from_a_scratch_copy(tmp_path):
    # printf in a copy of the real kernel: every core prints its slice, in core order.
    scratch = scratch_kernel("debug", root=tmp_path)
    header = scratch.file("op_kernel/mish_grad.h")
    text = header.read_text()
    anchor = "        gradGm_.SetGlobalBuffer("
    assert anchor in text
    header.write_text(
        text.replace(
            anchor,
            '        AscendC::printf("slice %d\\n", static_cast<int32_t>(GetBlockIdx()));\n'
            + anchor,
            1,
        )
    )
    x = np.linspace(-3, 3, 5000, dtype=np.float32)
    run_ = scratch.run_kernel(np.ones_like(x), x, cores=4, host_threads=4)
    assert run_.log == "".join(f"[AIV Block {i}/4] slice {i}\n" for i in range(4))
    plain = twin.run_kernel(np.ones_like(x), x, cores=4)
    assert plain.log == ""
    np.testing.assert_array_equal(run_.out, plain.out)


def test_the_encoding_exercise_prints_what_the_twin_prints(debug):
    # Notebook 07's exercise 1 checks learners against nb07.encode_dump: it must be the twin's
    # format, for a float32, a float16 and an int32 tensor alike.
    from mishgrad.book.exercises.nb07 import encode_dump

    expected = "".join(
        run(debug, case)[1] for case in ("dump_local", "dump_half_and_int", "dump_global")
    )
    encoded = [
        encode_dump(np.arange(-2, 14, dtype=np.float32) / 2, 5, 0x40, "UB", 8),
        encode_dump(np.full(4, 0.25, np.float16), 1, 0, "UB", 4),
        encode_dump(np.full(3, -3, np.int32), 2, 0x20, "UB", 3),
        encode_dump(np.arange(8, 12, dtype=np.float32), 7, 0x20, "GM", 4),
    ]
    assert "".join(encoded) == expected


def test_notebook_07s_reading_of_a_dump_is_parse_dumps(debug):
    # Notebook 07 reads its demonstration's dumps back with a regular expression of its own: it
    # finds what nb07.parse_dumps finds, field for field, and the values the twin dumped.
    from mishgrad.book.exercises.nb07 import parse_dumps

    log = "".join(run(debug, case)[1] for case in ("dump_local", "dump_half_and_int"))
    header = (
        r"DumpTensor: desc=(\d+), addr=(0x[0-9a-f]+), data_type=(\w+), position=(\w+), "
        r"dump_size=(\d+)"
    )
    mine = re.findall(header + r"\n\[([^\]]*)\]", log)
    parsed = parse_dumps(log)
    assert len(mine) == len(parsed) == 3
    for (desc, addr, data_type, position, size, body), dump in zip(mine, parsed, strict=True):
        values = np.array(body.split(", "), dtype=np.float64)
        assert (int(desc), int(addr, 16), data_type, position) == (
            dump.desc,
            dump.addr,
            dump.data_type,
            dump.position,
        )
        assert int(size) == values.size
        np.testing.assert_array_equal(values, dump.values)
    np.testing.assert_array_equal(parsed[0].values, np.arange(-2, 6) / 2)
