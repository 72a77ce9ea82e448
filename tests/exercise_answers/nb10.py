"""Right and wrong answers for notebook 10's checkers."""

from __future__ import annotations

from exercise_answers import Case, replace_in
from mishgrad.exercises import nb10


def roofline_seconds(n, bytes_per_element, instructions, cores, clock_hz, bandwidth, cycles):
    memory = n * bytes_per_element / bandwidth
    vector = n * instructions * cycles / (64 * cores * clock_hz)
    return max(memory, vector)


def roofline_seconds_one_core(
    n, bytes_per_element, instructions, cores, clock_hz, bandwidth, cycles
):
    # A plausible mistake: the vector work is not shared among the cores.
    return max(n * bytes_per_element / bandwidth, n * instructions * cycles / (64 * clock_hz))


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
    Case(nb10.check_roofline_time, right=roofline_seconds, wrong=roofline_seconds_one_core),
    Case(
        nb10.check_added_instruction_cost,
        right=3 / 64,
        wrong=1 / 64,
        edit=_add_one_instruction,
    ),
    Case(nb10.check_v1_ridge, right=1.10, wrong=1.58),
]
