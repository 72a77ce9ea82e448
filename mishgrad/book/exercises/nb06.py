"""Checkers for notebook 06 (the pipeline and the Unified Buffer)."""

from collections.abc import Callable
from typing import Final

import numpy as np

from . import (
    UNANSWERED,
    Verdict,
    call_learner,
    correct,
    fits,
    is_number,
    is_whole_number,
    learner_answer,
    learner_function,
    wrong,
    wrong_kind,
)

_RNG_SEED = 606


def _measured_period(stages: tuple[int, int, int], buffers: int) -> float:
    """Steady-state cycles per tile of equal tiles: the slope of the pipeline's makespan.

    The recurrence of notebook 06: a stage starts when the tile's previous stage, the same
    stage of the tile before, and (for CopyIn and Compute) the stage after it of the tile
    ``buffers`` back, which frees its buffer, have ended.
    """

    def span(tiles: int) -> float:
        ends = np.zeros((3, tiles + buffers))  # column i + buffers: tile i; before it, zeros
        for j in range(buffers, tiles + buffers):
            ends[0, j] = max(ends[0, j - 1], ends[1, j - buffers]) + stages[0]
            ends[1, j] = max(ends[0, j], ends[1, j - 1], ends[2, j - buffers]) + stages[1]
            ends[2, j] = max(ends[1, j], ends[2, j - 1]) + stages[2]
        return float(ends[2, -1])

    return (span(64) - span(32)) / 32


_PERIOD_USAGE: Final = "return the period, a number of cycles"


@learner_function("write a function period(copy_in, compute, copy_out, buffers)")
def check_steady_state_period(function: Callable[[int, int, int, int], float] | None) -> Verdict:
    """Exercise 1: cycles per tile of a long run of equal tiles, for any number of buffers."""
    rng = np.random.default_rng(_RNG_SEED)
    for _ in range(40):
        stages = tuple(int(v) for v in rng.integers(1, 200, 3))
        buffers = int(rng.integers(1, 6))
        got = learner_answer(function, *stages, buffers, shape=is_number, usage=_PERIOD_USAGE)
        expected = _measured_period(stages, buffers)  # type: ignore[arg-type]
        if abs(float(got) - expected) > 1e-6:  # type: ignore[arg-type]
            return wrong(
                f"for copy_in, compute, copy_out = {stages} and {buffers} buffer(s) your function "
                f"returns {got}; hint: an engine is busy for its own stage once per tile, and one "
                "buffer of the input queue goes round CopyIn → Compute before it is free again, "
                "while the queue's buffers take turns"
            )
    return correct(
        "the bound of the busiest engine, or of a buffer's round trip shared by all buffers"
    )


@learner_function("write a function needs(ops) for a string of 'A', 'E', 'D' and 'F'")
def check_queue_needs(function: Callable[[str], tuple[int, int] | None] | None) -> Verdict:
    """Exercise 2: the smallest depth and buffer count that run an A/E/D/F sequence, or None."""
    rng = np.random.default_rng(_RNG_SEED + 1)
    cases = [_queue_calls(rng) for _ in range(80)]
    got_all = (call_learner(function, ops) for ops in cases)
    answers = [tuple(got) if isinstance(got, list | tuple) else got for got in got_all]
    if all(got is None for got in answers):  # the scaffold, not yet written
        return UNANSWERED
    for got in answers:
        if got is not None and not fits(got, (is_whole_number, is_whole_number)):
            return wrong_kind("return a pair (depth, buffers) of whole numbers, or None")
    for ops, got in zip(cases, answers, strict=True):
        expected = queue_needs(ops)
        if got == expected:
            continue
        if expected is None:
            return wrong(
                f"needs({ops!r}) returned {got!r}, but no declaration runs this sequence; "
                f"{_NEEDS_HINT}"
            )
        if got is None:
            return wrong(
                f"needs({ops!r}) returned None, but a queue runs this sequence; {_NEEDS_HINT}"
            )
        return wrong(
            f"needs({ops!r}) returned {got!r}: the "
            f"{'depth' if got[0] != expected[0] else 'number of buffers'} is off; {_NEEDS_HINT}"
        )
    return correct("depth and buffers are counted apart: what waits, and what is held")


#: What every hint of the queue exercise ends with.
_NEEDS_HINT: Final = (
    "hint: play the calls by hand, one at a time, and ask of each what it needs in order to "
    "succeed and what it leaves behind"
)


def _queue_calls(rng: np.random.Generator) -> str:
    """A random A/E/D/F sequence: mostly calls a queue can serve, now and then one it cannot."""
    allocated = queued = dequeued = 0
    ops = []
    for _ in range(int(rng.integers(3, 16))):
        possible = ["A"] + ["E"] * (allocated > 0) + ["D"] * (queued > 0) + ["F"] * (dequeued > 0)
        op = str(rng.choice(possible if rng.random() < 0.93 else ["A", "E", "D", "F"]))
        ops.append(op)
        allocated += (op == "A") - (op == "E")
        queued += (op == "E") - (op == "D")
        dequeued += (op == "D") - (op == "F")
    return "".join(ops)


def queue_needs(ops: str) -> tuple[int, int] | None:
    """The smallest (depth, InitBuffer num) that run ``ops`` on one TQue, or None.

    A tensor is allocated (``A``), enqueued (``E``), dequeued (``D``) and freed (``F``), in
    that order; a call with no tensor in the state it needs makes the sequence invalid. The
    depth bounds the tensors enqueued and not yet dequeued; the buffers, those allocated and
    not yet freed. A sequence need not end with every tensor freed.
    """
    held = {"A": 0, "E": 0, "D": 0}  # tensors allocated, enqueued, dequeued (not yet moved on)
    before = {"E": "A", "D": "E", "F": "D"}
    depth = buffers = 0
    for op in ops:
        if op in before:
            if held[before[op]] == 0:
                return None
            held[before[op]] -= 1
        if op in held:
            held[op] += 1
        depth = max(depth, held["E"])
        buffers = max(buffers, sum(held.values()))
    return depth, buffers
