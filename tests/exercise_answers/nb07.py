"""Right and wrong answers to notebook 07's checkers."""

from __future__ import annotations

import numpy as np

from exercise_answers import Case, replace_in
from mishgrad.book.exercises import nb07


def encode(tensor: np.ndarray, desc: int, addr: int, position: str, dump_size: int) -> str:
    shown = tensor[:dump_size]
    if np.issubdtype(shown.dtype, np.integer):
        values = [str(v) for v in shown.tolist()]
    else:
        values = [format(v, "f") for v in shown.astype(np.float64).tolist()]
    header = (
        f"DumpTensor: desc={desc}, addr={hex(addr)}, data_type={shown.dtype}, "
        f"position={position}, dump_size={dump_size}"
    )
    return header + "\n[" + ", ".join(values) + "]\n"


def encode_every_value_as_float(
    tensor: np.ndarray, desc: int, addr: int, position: str, dump_size: int
) -> str:
    # Prints an integer tensor with %f too, as a float tensor would be.
    return encode(tensor.astype(np.float64), desc, addr, position, dump_size).replace(
        "data_type=float64", f"data_type={tensor.dtype}"
    )


DUMP_LINE = "        LocalTensor<T> x = xQueue_.template DeQue<T>();\n"

CASES = [
    Case(nb07.check_encode_dump, right=encode, plausible=encode_every_value_as_float),
    Case(
        nb07.check_dump_edit,
        right=17,
        plausible=8,  # the typical mistake: the dump size, DumpTensor's third argument
        wrong=18,
        edit=lambda s: replace_in(
            s, "op_kernel/mish_grad.h", DUMP_LINE, DUMP_LINE + "        DumpTensor(x, 17, 8);\n"
        ),
    ),
]
