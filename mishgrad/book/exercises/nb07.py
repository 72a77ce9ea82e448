"""Checkers for notebook 07 (debugging a kernel)."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np

from mishgrad.kernel.scratch import ScratchKernel

from . import Verdict, call_on_copy, checker, correct, learner_answer, learner_function, wrong
from .learner import learner_whole_number

#: The seed of these exercises' cases (notebook 06's, where they were exercises 3 and 4).
_RNG_SEED = 606


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
    """The text one ``DumpTensor`` call prints, as the twin's ``LogDump`` writes it."""
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
    """Exercise 1: the text of one DumpTensor record for a tensor, desc, addr and dump_size."""
    rng = np.random.default_rng(_RNG_SEED + 2)
    for _ in range(30):
        tensor, desc, addr, position, dump_size = _encode_case(rng)
        got = learner_answer(
            function,
            *(tensor.copy(), desc, addr, position, dump_size),
            shape=lambda got: isinstance(got, str),
            usage="return the record as a str: the header line, then the values",
        )
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


@checker
def check_dump_edit(answer: object, scratch: ScratchKernel) -> Verdict:
    """Exercise 2 (kernel edit): a DumpTensor of x's tile in Compute, with desc = answer."""
    desc = learner_whole_number(
        answer, usage="answer with the desc number (an int) your DumpTensor call passes"
    )
    if not scratch.edited():
        return wrong(f"edit op_kernel/mish_grad.h in {scratch} first, then run this cell again")
    rng = np.random.default_rng(_RNG_SEED + 3)
    x = rng.uniform(-6, 6, 7777).astype(np.float32)
    run = call_on_copy(scratch, scratch.run_kernel, np.ones_like(x), x, cores=2, host_threads=2)
    try:
        dumps = [d for d in parse_dumps(run.log) if d.desc == desc]
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
