"""Checkers for notebook 06 (pipeline and debugging).

Each checker draws its own cases (tile timings, buffer counts, EnQue/DeQue sequences,
DumpTensor text, kernel inputs) with a fixed seed, none of them printed by the notebook.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import trace
from ..scratch import ScratchKernel
from . import UNANSWERED, Verdict, call_learner, correct, wrong

_RNG_SEED = 606


def _unit_model() -> trace.PipelineModel:
    # One byte per cycle and one cycle per repeat: a tile's stage cycles are its numbers.
    return trace.PipelineModel(hbm_bytes_per_second=1.0, vector_cores=1, clock_hz=1.0)


def _measured_period(stages: tuple[int, int, int], buffers: int) -> float:
    """Steady-state cycles per tile of the modelled pipeline: the slope of its makespan."""
    copy_in, compute, copy_out = stages

    def span(tiles: int) -> float:
        work = [trace.TileWork(i, copy_in, (compute,), copy_out) for i in range(tiles)]
        return trace.makespan(trace.schedule(work, _unit_model(), buffers=buffers))

    return (span(64) - span(32)) / 32


def check_steady_state_period(function: Callable[[int, int, int, int], float] | None) -> Verdict:
    """Exercise 1: cycles per tile of a long run of equal tiles, for any number of buffers."""
    if function is None:
        return UNANSWERED
    if not callable(function):
        return wrong("write a function period(copy_in, compute, copy_out, buffers)")
    rng = np.random.default_rng(_RNG_SEED)
    for _ in range(40):
        stages = tuple(int(v) for v in rng.integers(1, 200, 3))
        buffers = int(rng.integers(1, 6))
        got, failed = call_learner(function, *stages, buffers)
        if failed is not None:
            return failed
        if got is None:  # the scaffold, not yet written
            return UNANSWERED
        expected = _measured_period(stages, buffers)  # type: ignore[arg-type]
        if not isinstance(got, int | float | np.number) or abs(float(got) - expected) > 1e-6:
            return wrong(
                f"for copy_in, compute, copy_out = {stages} and {buffers} buffer(s) your function "
                f"returns {got}; hint: an engine is busy for its own stage once per tile, and one "
                "buffer of the input queue goes round CopyIn → Compute before it is free again, "
                "while the queue's buffers take turns"
            )
    return correct(
        "the bound of the busiest engine, or of a buffer's round trip shared by all buffers"
    )


def check_needed_depth(function: Callable[[str], int | None] | None) -> Verdict:
    """Exercise 2: the smallest TQue depth an EnQue/DeQue sequence needs (None: it is wrong)."""
    if function is None:
        return UNANSWERED
    if not callable(function):
        return wrong("write a function needed_depth(ops) for a string of 'E' and 'D'")
    rng = np.random.default_rng(_RNG_SEED + 1)
    cases = [
        "".join(rng.choice(["E", "D"], size=int(rng.integers(1, 14)), p=[0.6, 0.4]))
        for _ in range(60)
    ]
    answers = []
    for ops in cases:
        got, failed = call_learner(function, ops)
        if failed is not None:
            return failed
        answers.append(got)
    if all(got is None for got in answers):  # the scaffold, not yet written
        return UNANSWERED
    for ops, got in zip(cases, answers, strict=True):
        if got != _needed_depth(ops):
            return wrong(
                f"needed_depth({ops!r}) returned {got!r}; hint: the depth counts EnQue calls "
                "not yet matched by a DeQue, at their most; and a DeQue with nothing queued "
                "cannot be fixed by any depth"
            )
    return correct()


def _needed_depth(ops: str) -> int | None:
    queued, most = 0, 0
    for op in ops:
        queued += 1 if op == "E" else -1
        if queued < 0:
            return None
        most = max(most, queued)
    return most


@dataclass(frozen=True)
class Dump:
    """One DumpTensor record as the NPU prints it."""

    desc: int
    addr: int
    data_type: str
    position: str
    values: np.ndarray


_HEADER = re.compile(
    r"DumpTensor: desc=(\d+), addr=(0x[0-9a-fA-F]+|\d+), data_type=(\w+), position=(\w+), "
    r"dump_size=(\d+)\n\[([^\]]*)\]"
)


def parse_dumps(log: str) -> list[Dump]:
    """Every DumpTensor record of a log (header line, then the values in brackets)."""
    dumps = []
    for match in _HEADER.finditer(log):
        desc, addr, data_type, position, size, body = match.groups()
        values = np.array([float(v) for v in body.split(",") if v.strip()], dtype=np.float64)
        if values.size != int(size):
            raise ValueError(f"dump_size is {size} but {values.size} values follow")
        dumps.append(Dump(int(desc), int(addr, 0), data_type, position, values))
    return dumps


def _dump_text(rng: np.random.Generator) -> tuple[str, tuple[int, int, str, str, np.ndarray]]:
    desc = int(rng.integers(0, 1000))
    addr = int(rng.integers(0, 6000)) * 32
    data_type, position = ("float32", "UB") if rng.random() < 0.5 else ("float16", "GM")
    values = np.round(rng.normal(size=int(rng.integers(1, 12))), 6)
    body = ", ".join(f"{v:f}" for v in values)
    text = (
        f"DumpTensor: desc={desc}, addr={addr:#x}, data_type={data_type}, position={position}, "
        f"dump_size={values.size}\n[{body}]\n"
    )
    return text, (desc, addr, data_type, position, values)


def check_decode_dump(function: Callable[[str], tuple] | None) -> Verdict:
    """Exercise 3: decode one DumpTensor record into (desc, addr, data_type, position, values)."""
    if function is None:
        return UNANSWERED
    if not callable(function):
        return wrong("write a function decode(text) that returns a tuple of five items")
    rng = np.random.default_rng(_RNG_SEED + 2)
    for _ in range(20):
        text, expected = _dump_text(rng)
        got, failed = call_learner(function, text)
        if failed is not None:
            return failed
        if got is None:  # the scaffold, not yet written
            return UNANSWERED
        if not isinstance(got, tuple | list) or len(got) != 5:
            return wrong("return a tuple (desc, addr, data_type, position, values)")
        desc, addr, data_type, position, values = got
        same = (desc, addr, data_type, position) == expected[:4]
        try:
            same = same and np.array_equal(np.asarray(values, dtype=np.float64), expected[4])
        except (TypeError, ValueError):
            same = False
        if not same:
            return wrong(
                f"for\n{text}your function returns {got!r}; hint: addr is written in "
                "hexadecimal, and the values are the comma-separated numbers in brackets"
            )
    return correct()


def check_dump_edit(answer: int | None, scratch: ScratchKernel) -> Verdict:
    """Exercise 4 (kernel edit): a DumpTensor of x's tile in Compute, with desc = answer."""
    if answer is None:
        return UNANSWERED
    if not scratch.edited():
        return wrong(f"edit op_kernel/mish_grad.h in {scratch} first, then run this cell again")
    if not isinstance(answer, int) or isinstance(answer, bool):
        return wrong("answer with the desc number (an int) your DumpTensor call passes")
    rng = np.random.default_rng(_RNG_SEED + 3)
    x = rng.uniform(-6, 6, 7777).astype(np.float32)
    try:
        run = scratch.run_kernel(np.ones_like(x), x, cores=2, host_threads=2)
    except Exception as error:  # a learner's edit that breaks the build or the run
        return wrong(f"the twin built from your copy failed: {error}")
    try:
        dumps = [d for d in parse_dumps(run.log) if d.desc == answer]
    except ValueError as error:
        return wrong(f"your log does not parse: {error}")
    if not dumps:
        return wrong(f"no DumpTensor with desc={answer} in the log; did you pass {answer} as desc?")
    first = dumps[0]
    size = first.values.size
    if first.position != "UB" or first.data_type != "float32" or size == 0:
        return wrong("dump the UB tensor x that Compute dequeues (float32 here), not another one")
    # %f prints six decimals: the values agree with x to half a millionth.
    if not np.allclose(first.values, x[:size], rtol=0, atol=1e-6):
        return wrong("the first dump should hold the first elements of core 0's first tile of x")
    return correct(f"{len(dumps)} dumps, one per tile of each core, core 0 first")
