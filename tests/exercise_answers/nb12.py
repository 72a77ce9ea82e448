"""Right and wrong answers for notebook 12's checkers."""

from __future__ import annotations

from exercise_answers import Case, replace_in
from mishgrad.book.exercises import nb12


def roofline_seconds(n, dtype_size, has_tanhx, counts, op_cycles, cores, clock_hz, bandwidth):
    bytes_per_element = (3 if has_tanhx else 2) * dtype_size + dtype_size
    cycles_per_repeat = sum(k * op_cycles.get(op, 1.0) for op, k in counts.items())
    memory = n * bytes_per_element / bandwidth
    vector = n * cycles_per_repeat / (64 * cores * clock_hz)  # float32 repeats: 64 elements
    return max(memory, vector)


def roofline_seconds_repeats_of_the_dtype(
    n, dtype_size, has_tanhx, counts, op_cycles, cores, clock_hz, bandwidth
):
    # A plausible mistake: 16-bit tensors counted as 128 elements per repeat, though the kernel
    # computes in float32.
    bytes_per_element = (3 if has_tanhx else 2) * dtype_size + dtype_size
    cycles_per_repeat = sum(k * op_cycles.get(op, 1.0) for op, k in counts.items())
    memory = n * bytes_per_element / bandwidth
    vector = n * cycles_per_repeat / (256 // dtype_size * cores * clock_hz)
    return max(memory, vector)


def _add_one_instruction(scratch):
    # One redundant vector instruction right after the exponential.
    text = scratch.file("op_kernel/mish_grad.h").read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if "Exp(" in line)
    indent = line[: len(line) - len(line.lstrip())]
    call = line.strip()
    target = call[call.index("(") + 1 : call.index(",")]
    count = call[call.rindex(",") + 1 : call.rindex(")")].strip()
    replace_in(
        scratch,
        "op_kernel/mish_grad.h",
        line,
        f"{line}\n{indent}Adds({target}, {target}, 0.0f, {count});",
    )


CASES = [
    Case(
        nb12.check_roofline_time,
        right=roofline_seconds,
        plausible=roofline_seconds_repeats_of_the_dtype,
    ),
    Case(
        nb12.check_added_instruction_cost,
        right=3 / 64,
        plausible=3 / 256,  # the typical mistake: cycles per byte of the repeat, not per element
        wrong=1 / 64,
        edit=_add_one_instruction,
    ),
    # The typical mistake: 8 bytes per element, the written gradInput forgotten.
    Case(nb12.check_v1_ridge, right=1.10, plausible=0.73, wrong=1.58),
]
