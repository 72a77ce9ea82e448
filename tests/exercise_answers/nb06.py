"""Right and wrong answers to notebook 06's checkers."""

from __future__ import annotations

import re
from itertools import accumulate

import numpy as np

from exercise_answers import Case, replace_in
from mishgrad.exercises import nb06


def period(copy_in: int, compute: int, copy_out: int, buffers: int) -> float:
    return max(
        copy_in, compute, copy_out, (copy_in + compute) / buffers, (compute + copy_out) / buffers
    )


def period_of_the_busiest_engine(copy_in: int, compute: int, copy_out: int, buffers: int) -> float:
    # Forgets that a buffer is busy from its CopyIn to the end of its Compute.
    return max(copy_in, compute, copy_out)


def needed_depth(ops: str) -> int | None:
    waiting = list(accumulate(1 if op == "E" else -1 for op in ops))
    return None if min(waiting) < 0 else max(0, *waiting)


def count_of_enqueues(ops: str) -> int | None:
    # Confuses the depth with the number of EnQue calls.
    return ops.count("E")


def decode(text: str) -> tuple:
    header, body = text.strip().split("\n")
    fields = dict(part.split("=") for part in header.removeprefix("DumpTensor: ").split(", "))
    values = np.array([float(v) for v in body.strip("[]").split(",")])
    return (
        int(fields["desc"]),
        int(fields["addr"], 16),
        fields["data_type"],
        fields["position"],
        values,
    )


def decode_addr_as_decimal(text: str) -> tuple:
    desc, _, data_type, position, values = decode(text)
    addr = int(re.search(r"addr=0x([0-9a-f]+)", text).group(1))
    return desc, addr, data_type, position, values


DUMP_LINE = "        LocalTensor<T> x = xQueue_.template DeQue<T>();\n"

CASES = [
    Case(nb06.check_steady_state_period, right=period, wrong=period_of_the_busiest_engine),
    Case(nb06.check_needed_depth, right=needed_depth, wrong=count_of_enqueues),
    Case(nb06.check_decode_dump, right=decode, wrong=decode_addr_as_decimal),
    Case(
        nb06.check_dump_edit,
        right=17,
        wrong=18,
        edit=lambda s: replace_in(
            s, "op_kernel/mish_grad.h", DUMP_LINE, DUMP_LINE + "        DumpTensor(x, 17, 8);\n"
        ),
    ),
]
