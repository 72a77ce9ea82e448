"""What ops-nn's MishGrad kernels do, step by step, in this project's own words.

ops-nn carries two experimental MishGrad kernels: **v1** (:data:`V1_KERNEL`) and **MishGradV2**
(:data:`V2_KERNEL`). Each float32 path is described here as the sequence of AscendC vector API
calls it makes on a tile — which call, what it computes, and the line of the file (at the ops-nn
commit of :data:`mishgrad.citations.OPS_NN`) where it stands. No upstream code is reproduced:
the descriptions are ours, the line numbers let a reader check every one of them.

Instruction counts are *computed* from these lists (:meth:`OperationOrder.counts`), never typed
in. Every call listed processes the whole tile (``processDataNum`` or ``alignedLength``
elements), so calls per tile are calls per element. V2 calls ``Ln`` and the high-level ``Tanh``
API, which AscendC documents among its high-level (高阶) math APIs and which expands into several
vector instructions of its own: counted as one call each here, they make V2's count a lower
bound.
"""

from collections import Counter
from dataclasses import dataclass
from typing import Final

from mishgrad.citations import OPS_NN, permalink

V1_KERNEL: Final = "experimental/activation/mish_grad/op_kernel/mish_grad.h"
V2_KERNEL: Final = "experimental/activation/mish_grad_v2/op_kernel/mish_grad_v2.h"


@dataclass(frozen=True)
class Step:
    """One vector API call of an upstream kernel on a tile."""

    op: str  # the AscendC API called: Exp, Div, Select …
    computes: str  # what it computes, in this project's words
    line: int  # its line in the upstream file at the pinned commit


@dataclass(frozen=True)
class OperationOrder:
    """One path of an upstream kernel: the calls it makes on a tile, in order."""

    label: str  # its name in tables ("v1, float32, no tanhx")
    path: str  # the upstream file
    lines: tuple[int, int]  # the first and the last line of the path in it
    steps: tuple[Step, ...]  # its calls, in program order

    @property
    def link(self) -> str:
        """Permalink to the lines at the pinned ops-nn commit."""
        return permalink(OPS_NN, self.path, self.lines)

    @property
    def total(self) -> int:
        """Vector API calls per tile (= per element)."""
        return len(self.steps)

    def counts(self) -> dict[str, int]:
        """Calls per tile by op, in order of first use."""
        return dict(Counter(step.op for step in self.steps))


def _steps(*rows: tuple[int, str, str]) -> tuple[Step, ...]:
    return tuple(Step(op, computes, line) for line, op, computes in rows)


#: v1, float32, without tanhx: both sign halves computed in full and merged with masks.
V1_FLOAT32_NO_TANHX: Final = OperationOrder(
    "v1, float32, no tanhx",
    V1_KERNEL,
    (239, 285),
    _steps(
        (239, "CompareScalar", "bit mask of x > 0"),
        (241, "Muls", "−x"),
        (242, "Muls", "−2x"),
        (243, "Exp", "e^−x"),
        (244, "Exp", "e^−2x"),
        (245, "Muls", "2e^−x"),
        (246, "Muls", "2e^−2x"),
        (247, "Adds", "numerator of t for x > 0: 1 + 2e^−x"),
        (248, "Add", "2e^−x + 2e^−2x"),
        (249, "Adds", "denominator of t for x > 0: 1 + 2e^−x + 2e^−2x"),
        (250, "Div", "t for x > 0"),
        (251, "Adds", "1 + e^−x"),
        (252, "Div", "x·s = x / (1 + e^−x)"),
        (253, "Mul", "t²"),
        (254, "Duplicate", "a tile of ones"),
        (255, "Sub", "1 − t²"),
        (256, "Mul", "x·s·(1 − t²)"),
        (257, "Add", "d for x > 0"),
        (258, "Select", "keep it where x > 0, else 0"),
        (260, "CompareScalar", "bit mask of x ≤ 0"),
        (262, "Muls", "2x"),
        (263, "Exp", "e^x"),
        (264, "Muls", "2e^x"),
        (265, "Exp", "e^2x"),
        (266, "Add", "numerator of t for x ≤ 0: 2e^x + e^2x"),
        (267, "Adds", "denominator of t for x ≤ 0: 2 + 2e^x + e^2x"),
        (268, "Div", "t for x ≤ 0"),
        (269, "Mul", "x·e^x"),
        (270, "Adds", "1 + e^x"),
        (271, "Div", "x·s = x·e^x / (1 + e^x)"),
        (272, "Mul", "t²"),
        (273, "Sub", "1 − t²"),
        (274, "Mul", "x·s·(1 − t²)"),
        (275, "Add", "d for x ≤ 0"),
        (276, "Select", "keep it where x ≤ 0, else 0"),
        (278, "Add", "the two halves merged"),
        (279, "Cast", "first mask's bytes as half"),
        (280, "Cast", "second mask's bytes as half"),
        (281, "Add", "the two masks added as half numbers (an OR)"),
        (282, "Cast", "back to mask bytes"),
        (283, "Select", "x itself where neither mask is set (x is NaN)"),
        (285, "Mul", "times grad"),
    ),
)

#: v1, float32, with tanhx: t is given; x·e^x is formed directly.
V1_FLOAT32_TANHX: Final = OperationOrder(
    "v1, float32, tanhx",
    V1_KERNEL,
    (288, 298),
    _steps(
        (288, "Exp", "e^x"),
        (289, "Duplicate", "a tile of ones"),
        (290, "Adds", "1 + e^x"),
        (291, "Div", "1 / (1 + e^x)"),
        (292, "Mul", "t²"),
        (293, "Adds", "t² − 1"),
        (294, "Mul", "x·e^x (overflows for large x)"),
        (295, "Mul", "x·e^x·(t² − 1)"),
        (296, "Mul", "… / (1 + e^x)"),
        (297, "Sub", "d = t − …"),
        (298, "Mul", "times grad"),
    ),
)

#: MishGradV2's common tail, shared by both branches (lines 46–57).
_V2_CORE: Final = _steps(
    (46, "Mul", "t²"),
    (47, "Muls", "−t²"),
    (48, "Adds", "1 − t²"),
    (50, "Muls", "−x"),
    (51, "Exp", "e^−x"),
    (52, "Adds", "1 + e^−x"),
    (54, "Div", "(1 − t²) / (1 + e^−x)"),
    (55, "Mul", "times x"),
    (56, "Add", "d = t + …"),
    (57, "Mul", "times grad"),
)

#: MishGradV2, float32, without tanhx: t from softplus and the high-level Tanh, then the tail.
V2_FLOAT32_NO_TANHX: Final = OperationOrder(
    "V2, float32, no tanhx",
    V2_KERNEL,
    (42, 71),
    _steps(
        (63, "Relu", "max(x, 0)"),
        (64, "Abs", "|x|"),
        (65, "Muls", "−|x|"),
        (66, "Exp", "e^−|x|"),
        (67, "Adds", "1 + e^−|x|"),
        (68, "Ln", "log(1 + e^−|x|)"),
        (69, "Add", "softplus(x) = max(x, 0) + log(1 + e^−|x|)"),
        (70, "Tanh", "t = tanh(softplus(x)) (high-level API)"),
    )
    + _V2_CORE,
)

#: MishGradV2, float32, with tanhx: the tail alone.
V2_FLOAT32_TANHX: Final = OperationOrder("V2, float32, tanhx", V2_KERNEL, (42, 58), _V2_CORE)

#: Every path described, by label.
ORDERS: Final[dict[str, OperationOrder]] = {
    order.label: order
    for order in (V1_FLOAT32_NO_TANHX, V1_FLOAT32_TANHX, V2_FLOAT32_NO_TANHX, V2_FLOAT32_TANHX)
}
