"""Right and wrong answers to notebook 06's checkers."""

from __future__ import annotations

from exercise_answers import Case
from mishgrad.book.exercises import nb06


def period(copy_in: int, compute: int, copy_out: int, buffers: int) -> float:
    return max(
        copy_in, compute, copy_out, (copy_in + compute) / buffers, (compute + copy_out) / buffers
    )


def period_of_the_busiest_engine(copy_in: int, compute: int, copy_out: int, buffers: int) -> float:
    # Forgets that a buffer is busy from its CopyIn to the end of its Compute.
    return max(copy_in, compute, copy_out)


def needs(ops: str) -> tuple[int, int] | None:
    # Each tensor walks A -> E -> D -> F; count how many stand at each step.
    stage = {"A": 0, "E": 0, "D": 0}
    source = {"A": None, "E": "A", "D": "E", "F": "D"}
    depth = buffers = 0
    for op in ops:
        src = source[op]
        if src is not None:
            if stage[src] == 0:
                return None
            stage[src] -= 1
        if op != "F":
            stage[op] += 1
        depth, buffers = max(depth, stage["E"]), max(buffers, sum(stage.values()))
    return depth, buffers


def needs_forgetting_the_consumer(ops: str) -> tuple[int, int] | None:
    # Counts a buffer free again at DeQue, though Compute holds it until FreeTensor.
    result = needs(ops)
    if result is None:
        return None
    held = most = 0
    for op in ops:
        held += {"A": 1, "D": -1}.get(op, 0)
        most = max(most, held)
    return result[0], most


CASES = [
    Case(nb06.check_steady_state_period, right=period, plausible=period_of_the_busiest_engine),
    Case(nb06.check_queue_needs, right=needs, plausible=needs_forgetting_the_consumer),
]
