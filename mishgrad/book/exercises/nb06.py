"""Checkers for notebook 06 (pipeline and debugging).

Each checker draws its own cases (tile timings, buffer counts, sequences of AllocTensor,
EnQue, DeQue and FreeTensor calls, tensors to dump, kernel inputs) with a fixed seed, none
of them printed by the notebook.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np

from mishgrad.kernel import pipeline
from mishgrad.kernel.scratch import ScratchKernel

from . import (
    UNANSWERED,
    Verdict,
    call_learner,
    call_on_copy,
    correct,
    fits,
    is_number,
    is_whole_number,
    learner_function,
    wrong,
    wrong_kind,
)
from .learner import learner_whole_number

_RNG_SEED = 606


def _unit_model() -> pipeline.PipelineModel:
    # One byte per cycle and one cycle per repeat: a tile's stage cycles are its numbers.
    return pipeline.PipelineModel(hbm_bytes_per_second=1.0, vector_cores=1, clock_hz=1.0)


def _measured_period(stages: tuple[int, int, int], buffers: int) -> float:
    """Steady-state cycles per tile of the modelled pipeline: the slope of its makespan."""
    copy_in, compute, copy_out = stages

    def span(tiles: int) -> float:
        work = [pipeline.TileWork(i, copy_in, (compute,), copy_out) for i in range(tiles)]
        return pipeline.makespan(pipeline.schedule(work, _unit_model(), buffers=buffers))

    return (span(64) - span(32)) / 32


@learner_function("write a function period(copy_in, compute, copy_out, buffers)")
def check_steady_state_period(function: Callable[[int, int, int, int], float] | None) -> Verdict:
    """Exercise 1: cycles per tile of a long run of equal tiles, for any number of buffers."""
    rng = np.random.default_rng(_RNG_SEED)
    for _ in range(40):
        stages = tuple(int(v) for v in rng.integers(1, 200, 3))
        buffers = int(rng.integers(1, 6))
        got, failed = call_learner(function, *stages, buffers)
        if failed is not None:
            return failed
        if got is None:  # the scaffold, not yet written
            return UNANSWERED
        if not is_number(got):
            return wrong_kind("return the period, a number of cycles")
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
    answers = []
    for ops in cases:
        got, failed = call_learner(function, ops)
        if failed is not None:
            return failed
        answers.append(tuple(got) if isinstance(got, list | tuple) else got)
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


#: The dtypes the encoding exercise draws from: DumpTensor's data_type names (the twin's
#: ``DumpTypeName``), floating and integer alike.
_ENCODE_DTYPES = ("float32", "float16", "int32", "int16", "uint8")


def encode_dump(tensor: np.ndarray, desc: int, addr: int, position: str, dump_size: int) -> str:
    """The text one ``DumpTensor`` call prints, as the twin's ``LogDump`` writes it.

    The header names the dtype, the address in hexadecimal and the count; the first
    ``dump_size`` elements follow in brackets, integers as integers, floating values as C's
    ``%f`` prints them (six decimals).
    """
    values = np.asarray(tensor)[:dump_size]
    if values.dtype.kind in "iub":
        body = ", ".join(str(int(v)) for v in values)
    else:
        body = ", ".join(f"{float(v):f}" for v in values)
    return (
        f"DumpTensor: desc={desc}, addr={addr:#x}, data_type={values.dtype.name}, "
        f"position={position}, dump_size={dump_size}\n[{body}]\n"
    )


def _encode_case(rng: np.random.Generator) -> tuple[np.ndarray, int, int, str, int]:
    name = _ENCODE_DTYPES[int(rng.integers(len(_ENCODE_DTYPES)))]
    size = int(rng.integers(2, 12))
    if name.startswith("float"):
        tensor = (rng.normal(size=size) * 10.0 ** rng.integers(-2, 3)).astype(name)
    else:
        info = np.iinfo(name)
        tensor = rng.integers(max(info.min, -999), min(info.max, 999), size).astype(name)
    desc = int(rng.integers(0, 1000))
    addr = int(rng.integers(0, 6000)) * 32
    position = "UB" if rng.random() < 0.5 else "GM"
    return tensor, desc, addr, position, int(rng.integers(1, size + 1))


@learner_function("write a function encode(tensor, desc, addr, position, dump_size)")
def check_encode_dump(function: Callable[..., str] | None) -> Verdict:
    """Exercise 3: the text of one DumpTensor record for a tensor, desc, addr and dump_size."""
    rng = np.random.default_rng(_RNG_SEED + 2)
    for _ in range(30):
        tensor, desc, addr, position, dump_size = _encode_case(rng)
        got, failed = call_learner(function, tensor.copy(), desc, addr, position, dump_size)
        if failed is not None:
            return failed
        if got is None:  # the scaffold, not yet written
            return UNANSWERED
        if not isinstance(got, str):
            return wrong_kind("return the record as a str: the header line, then the values")
        expected = encode_dump(tensor, desc, addr, position, dump_size)
        if got.rstrip("\n") != expected.rstrip("\n"):
            return wrong(
                f"for a {tensor.dtype.name} tensor of {tensor.size} elements, desc={desc}, "
                f"addr={addr}, position={position!r} and dump_size={dump_size} your function "
                f"returns\n{got!r}\n{_RECORD_HINT[_first_difference(got, expected)]}"
            )
    return correct("your records are the twin's, byte for byte, for floating and integer tensors")


#: Where a learner's record differs from the twin's: its lines, its header, its values.
_RECORD_HINT: Final = (
    "hint: a record is two lines, each ending in a newline: the header, then the values in "
    "brackets",
    "hint: your header line differs from the twin's; compare it field by field (how is addr "
    "written?)",
    "hint: your header is the twin's, your values line is not; count the values, and mind how "
    "an integer tensor's values print",
)


def _first_difference(got: str, expected: str) -> int:
    """Which of :data:`_RECORD_HINT` fits: 0 (the lines), 1 (the header) or 2 (the values)."""
    mine, theirs = got.rstrip("\n").split("\n"), expected.rstrip("\n").split("\n")
    if len(mine) != len(theirs):
        return 0
    return 1 if mine[0] != theirs[0] else 2


def check_dump_edit(answer: object, scratch: ScratchKernel) -> Verdict:
    """Exercise 4 (kernel edit): a DumpTensor of x's tile in Compute, with desc = answer."""
    desc, verdict = learner_whole_number(
        answer, usage="answer with the desc number (an int) your DumpTensor call passes"
    )
    if verdict is not None:
        return verdict
    if not scratch.edited():
        return wrong(f"edit op_kernel/mish_grad.h in {scratch} first, then run this cell again")
    rng = np.random.default_rng(_RNG_SEED + 3)
    x = rng.uniform(-6, 6, 7777).astype(np.float32)
    run, failed = call_on_copy(
        scratch, scratch.run_kernel, np.ones_like(x), x, cores=2, host_threads=2
    )
    if failed is not None:
        return failed
    try:
        dumps = [d for d in parse_dumps(run.log) if d.desc == desc]  # type: ignore[union-attr]
    except ValueError as error:
        return wrong(f"your log does not parse: {error}")
    if not dumps:
        return wrong(
            f"no DumpTensor with desc={desc} in the log: is {desc} the desc your call passes "
            "(DumpTensor's second argument)?"
        )
    first = dumps[0]
    size = first.values.size
    if first.position != "UB" or first.data_type != "float32" or size == 0:
        return wrong("dump the UB tensor x that Compute dequeues (float32 here), not another one")
    # %f prints six decimals: the values agree with x to half a millionth.
    if not np.allclose(first.values, x[:size], rtol=0, atol=1e-6):
        return wrong("the first dump should hold the first elements of core 0's first tile of x")
    return correct(f"{len(dumps)} dumps, one per tile of each core, core 0 first")
