"""Right and wrong answers to notebook 14's exercises, and the planted mistakes of its kernel.

The kernel's worked solution is ``nb14_compute.h``: SiluGradKernel's Compute and the methods it
calls, which :func:`write_compute` puts in place of the skeleton's empty Compute. Each of
:data:`MISTAKES` changes that solution (or the skeleton around it) the way a learner typically
goes wrong; ``tests/test_nb14.py`` holds each to its hint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import numpy as np

from exercise_answers import Case
from mishgrad.book.exercises import nb14
from mishgrad.kernel.operators import SILU_GRAD
from mishgrad.kernel.scratch import ScratchKernel

#: The skeleton's Compute, which the learner replaces.
EMPTY_COMPUTE: Final = """\
    __aicore__ inline void Compute([[maybe_unused]] uint32_t length)
    {
    }
"""
#: The worked solution, without the file's own header comment.
COMPUTE: Final = "".join(
    line
    for line in (Path(__file__).parent / "nb14_compute.h").read_text().splitlines(keepends=True)
    if not line.startswith("//")
)


def write_compute(scratch: ScratchKernel) -> None:
    """Write the worked solution into a copy of the skeleton, as a learner would."""
    scratch.replace(nb14.KERNEL_FILE, EMPTY_COMPUTE, COMPUTE)


def stable(x: np.ndarray) -> np.ndarray:
    """Exercise 1: d on one exponential e = e^-|x| <= 1, 1 carrying the value for x >= 0."""
    with np.errstate(all="ignore"):
        e = np.exp(-np.abs(x))
        xc = np.clip(x, np.float32(-(2.0**20)), np.float32(2.0**20))
        square = (e + np.float32(1)) * (e + np.float32(1))
        negative = e * (xc + np.float32(1) + e) / square
        positive = np.float32(1) + e * (xc - np.float32(1) - e) / square
        return np.where(x < 0, negative, positive).astype(np.float32)


def sympy_naive(x: np.ndarray) -> np.ndarray:
    """The typical mistake: SymPy's form, sigma + x e^-x / (1 + e^-x)^2, as it prints."""
    with np.errstate(all="ignore"):
        e = np.exp(-x)
        return (np.float32(1) / (np.float32(1) + e) + x * e / (np.float32(1) + e) ** 2).astype(
            np.float32
        )


def one_minus_sigma(x: np.ndarray) -> np.ndarray:
    """A near miss: sigma (1 + x (1 - sigma)) with a stable sigma but 1 - sigma subtracted."""
    with np.errstate(all="ignore"):
        e = np.exp(-np.abs(x))
        sigma = np.where(x < 0, e, np.float32(1)) / (np.float32(1) + e)
        xc = np.clip(x, np.float32(-(2.0**20)), np.float32(2.0**20))
        return (sigma * (np.float32(1) + xc * (np.float32(1) - sigma))).astype(np.float32)


#: The worked solution's vector instructions per element for float16: Derivative's 32 (its
#: root window 10 of them), three Casts and the Mul by grad.
INSTRUCTIONS: Final = 36

#: Each typical mistake: the hint key it must get (a word of nb14.HINTS, or the kernel error's
#: hint, matched by its first words), and its edits of the worked solution (old, new).
MISTAKES: Final[dict[str, tuple[str, list[tuple[str, str]]]]] = {
    "the SymPy form": (
        nb14.HINTS["overflow"],
        [
            (
                "        Abs(e, x, count);\n        Muls(e, e, -1.0f, count);\n",
                "        Muls(e, x, -1.0f, count);\n        Exp(e, e, count);\n"
                "        Adds(t, e, 1.0f, count);\n        Duplicate(v, 1.0f, count);\n"
                "        Div(d, v, t, count);\n        Mul(t, t, t, count);\n"
                "        Mul(w, x, e, count);\n        Div(w, w, t, count);\n"
                "        Add(d, d, w, count);\n        return;\n",
            )
        ],
    ),
    "1 - sigma subtracted": (
        nb14.HINTS["one minus sigma"],
        [
            (
                "        Div(w, w, t, count);\n        Adds(v, w, 1.0f, count);\n",
                "        Div(w, w, t, count);\n        Adds(t, e, 1.0f, count);\n"
                "        Duplicate(v, 1.0f, count);\n        Div(t, v, t, count);\n"
                "        Muls(v, t, -1.0f, count);\n        Adds(v, v, 1.0f, count);\n"
                "        Mins(d, x, kClamp, count);\n        Mul(v, v, d, count);\n"
                "        Adds(v, v, 1.0f, count);\n        Mul(v, v, t, count);\n",
            )
        ],
    ),
    "no root window": (nb14.HINTS["zero"], [("        RootWindow(d, x, e, t, far, count);\n", "")]),
    "no clamp at ±inf": (
        nb14.HINTS["limits"],
        [
            ("        constexpr float kClamp = 1048576.0f;\n", ""),
            (
                "        Mins(w, x, kClamp, count);\n        Maxs(w, w, -kClamp, count);\n",
                "        Adds(w, x, 0.0f, count);\n",
            ),
        ],
    ),
    "e^x flushed below x = -87.3": (
        nb14.HINTS["far"],
        [
            ("        Select(e, far, t, e, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);\n", ""),
            (
                "        Select(v, far, e, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);\n"
                "        Mul(d, d, v, count);\n",
                "",
            ),
        ],
    ),
    "e^(x/2)'s second factor before the division": (
        nb14.HINTS["far"],
        [
            (
                "        Mul(w, w, e, count);\n",
                "        Mul(w, w, e, count);\n"
                "        Select(v, far, e, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);\n"
                "        Mul(w, w, v, count);\n",
            ),
            (
                "        Select(v, far, e, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);\n"
                "        Mul(d, d, v, count);\n",
                "",
            ),
        ],
    ),
    "e as the square of e^(-|x|/2)": (
        nb14.HINTS["share"],
        [
            (
                "        Exp(e, e, count);\n",
                "        Muls(e, e, 0.5f, count);\n        Exp(e, e, count);\n"
                "        Mul(e, e, e, count);\n",
            )
        ],
    ),
    "x never freed": ("every tensor Compute dequeues", [("        xQueue_.FreeTensor(x);\n", "")]),
    "a count in bytes": (
        "a vector instruction's count",
        [("(length + 63) / 64 * 64;", "(length + 63) / 64 * 64 * sizeof(float);")],
    ),
    "bfloat16 arithmetic": (
        "Atlas A2's vector unit has no bfloat16 arithmetic",
        [
            (
                "            Cast(wide, x,",
                "            Exp(out, x, count);\n            Cast(wide, x,",
            )
        ],
    ),
    "a tail copied past the end": (
        "a tail that ends inside a 32-byte block",
        [
            (
                "DataCopyPad(xGradGm_[tile * tileLength_], local, "
                "DataCopyExtParams{1, bytes, 0, 0, 0});",
                "DataCopy(xGradGm_[tile * tileLength_], local, "
                "(bytes + kBytesPerBlock - 1) / kBytesPerBlock * kBytesPerBlock / sizeof(T));",
            )
        ],
    ),
    "one queue, depth 1, for two inputs": (
        "a queue's depth",
        [
            ("Load(gradQueue_, gradGm_", "Load(xQueue_, gradGm_"),
            ("LocalTensor<T> grad = gradQueue_", "LocalTensor<T> grad = xQueue_"),
            ("gradQueue_.FreeTensor(grad);", "xQueue_.FreeTensor(grad);"),
        ],
    ),
}


def plant(name: str):
    """An edit that writes the worked solution with the mistake ``name`` in it."""

    def edit(scratch: ScratchKernel) -> None:
        write_compute(scratch)
        for old, new in MISTAKES[name][1]:
            scratch.replace(nb14.KERNEL_FILE, old, new)

    return edit


CASES = [
    Case(nb14.check_stable_form, right=stable, plausible=sympy_naive, wrong=one_minus_sigma),
    Case(
        nb14.check_silu_grad,
        right=INSTRUCTIONS,
        # The typical mistake: float32's count, read from the wrong trace (no Casts).
        plausible=INSTRUCTIONS - 3,
        wrong=INSTRUCTIONS + 6,
        edit=write_compute,
        original=SILU_GRAD.directory,
    ),
]
