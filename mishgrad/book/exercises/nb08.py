"""Checkers for notebook 08, the aclnn two-phase call: the CPU twin gives every expected answer."""

from collections.abc import Callable
from pathlib import Path
from typing import Final

import numpy as np

from mishgrad import aclnn
from mishgrad.kernel.scratch import ScratchKernel
from mishgrad.math.dtypes import DTYPES

from . import (
    Verdict,
    call_on_copy,
    checker,
    correct,
    equal_or_hint,
    expect,
    is_boolean,
    is_whole_number,
    learner_answer,
    learner_function,
    wrong,
)

#: A tensor for the status exercise: ``None`` (a null pointer) or ``(shape, dtype name)``.
Spec = tuple[tuple[int, ...], str] | None

#: The checker's own cases: (gradOutput, self, gradInput). None of them is printed in the notebook.
STATUS_CASES: Final[list[tuple[Spec, Spec, Spec]]] = [
    (((2, 5), "float16"), ((5,), "bfloat16"), ((2, 5), "float32")),
    (((2, 5), "float16"), ((5,), "bfloat16"), ((2, 5), "float16")),
    (((3, 1, 4), "float32"), ((2, 1), "float32"), ((3, 2, 4), "float32")),
    (((3, 1, 4), "float32"), ((2, 1), "float32"), ((2, 4), "float32")),
    (((6,), "float32"), ((4,), "float32"), ((6,), "float32")),
    (((1,) * 8, "bfloat16"), ((1,) * 8, "bfloat16"), ((1,) * 8, "bfloat16")),
    (((1,) * 10, "float16"), ((1,), "float16"), ((1,) * 10, "float16")),
    (((7,), "int8"), ((7,), "float32"), ((7,), "float32")),
    (((7,), "float32"), ((7,), "float32"), ((7,), "bool")),
    (None, ((7,), "int32"), ((7,), "float32")),
    (((7,), "float64"), None, ((7,), "float32")),
    (((), "float16"), ((), "float16"), ((), "float16")),
    (((0, 3), "float32"), ((3,), "float16"), ((0, 3), "float32")),
    (((5, 1), "float16"), ((1, 5), "float16"), ((5, 5), "float64")),
]


def _twin_status(session: aclnn.Session, specs: tuple[Spec, Spec, Spec]) -> int:
    tensors = [
        None if spec is None else session.tensor(np.zeros(spec[0], DTYPES.get(spec[1], spec[1])))
        for spec in specs
    ]
    phase1 = aclnn.get_workspace_size(session, *tensors, check=False)
    phase1.close()  # planned, never run: free the executor
    return phase1.status


_STATUS_USAGE: Final = "return the status code, a whole number"


@learner_function("answer with a function phase1_status(grad, self, out)")
def check_phase1_status(learner: Callable[[Spec, Spec, Spec], int] | None) -> Verdict:
    """The learner's ``phase1_status(grad, self, out)`` (each a :data:`Spec`) against phase 1."""
    with aclnn.Session("twin") as session:
        for specs in STATUS_CASES:
            expected = _twin_status(session, specs)
            got = learner_answer(learner, *specs, shape=is_whole_number, usage=_STATUS_USAGE)
            if got != expected:
                return wrong(
                    f"for gradOutput={specs[0]}, self={specs[1]}, gradInput={specs[2]} your "
                    f"function returned {got!r}, phase 1 returns a different status; hint: "
                    "check in the contract's order — null pointers, the dtypes (and whether the "
                    "result can be cast), the dimensions, broadcasting, gradInput's shape"
                )
    return correct(f"all {len(STATUS_CASES)} cases agree with the twin's phase 1")


def _workspace(session: aclnn.Session, n: int, dtypes: tuple[str, str, str]) -> int:
    """Phase 1's workspace on the twin for contiguous 1-D tensors of ``n`` elements."""
    tensors = [session.tensor(np.zeros(n, DTYPES[name])) for name in dtypes]
    phase1 = aclnn.get_workspace_size(session, *tensors)
    phase1.close()
    session.release(*tensors)  # a checker makes many tensors in one session: free them now
    return phase1.workspace_size


#: The checker's own cases for ``max_elements``: (budget in bytes, gradOutput, self, gradInput
#: dtypes). Each needs at least one workspace buffer; none is printed in the notebook.
BUDGET_CASES: Final[list[tuple[int, tuple[str, str, str]]]] = [
    (1000, ("float16", "float32", "float32")),
    (4096, ("bfloat16", "bfloat16", "float32")),
    (5000, ("float16", "bfloat16", "float16")),
    (777, ("float32", "float32", "float16")),
    (100_000, ("float16", "float16", "bfloat16")),
    (31, ("float16", "float32", "float32")),
    (65_535, ("bfloat16", "float16", "bfloat16")),
]


@learner_function("answer with a function max_elements(budget, grad, self, out dtypes)")
def check_max_elements(learner: Callable[[int, str, str, str], int] | None) -> Verdict:
    """The learner's ``max_elements(budget, grad, self, out)`` against the twin's phase 1.

    The answer is the largest ``n`` whose workspace, for contiguous 1-D tensors of ``n``
    elements of the three dtypes, fits in ``budget`` bytes: the twin's phase 1 must ask for at
    most ``budget`` bytes at ``n`` and for more at ``n + 1``.
    """
    with aclnn.Session("twin") as session:
        for budget, dtypes in BUDGET_CASES:
            got = learner_answer(
                learner,
                *(budget, *dtypes),
                shape=lambda got: is_whole_number(got) and got >= 0,  # type: ignore[operator]
                usage="return a whole number of elements (0 or more)",
            )
            n = int(got)
            fits = _workspace(session, n, dtypes) <= budget
            if not fits or _workspace(session, n + 1, dtypes) <= budget:
                return wrong(
                    f"for {budget} bytes with gradOutput {dtypes[0]}, self {dtypes[1]} and "
                    f"gradInput {dtypes[2]} your function returns {n}; the twin's phase 1 "
                    "disagrees. Hint: which buffers does the plan hold for these dtypes, in which "
                    "dtype, and what does each one's rounding do to the budget?"
                )
    return correct(f"all {len(BUDGET_CASES)} budgets agree with the twin's phase 1")


#: The pool exercise: one aclrtMalloc of POOL_BYTES; the workspace is a slice at some offset.
POOL_BYTES: Final = 1024
#: Its tensors (shape, dtype name): gradOutput, self, gradInput, all contiguous.
POOL_TENSORS: Final = (((3, 7), "bfloat16"), ((7,), "float32"), ((3, 7), "float32"))


def _slice_accepted(session: aclnn.Session, offset: int) -> bool:
    """Whether phase 2 and the stream succeed with the workspace at pool + offset."""
    tensors = [session.tensor(np.ones(shape, DTYPES[name])) for shape, name in POOL_TENSORS]
    phase1 = aclnn.get_workspace_size(session, *tensors)
    pool = session.malloc(POOL_BYTES)
    status = session.lib.aclnnMishBackward(
        pool + offset, POOL_BYTES - offset, phase1.executor, session.stream
    )
    if status == 0:
        phase1.taken()
        status = session.lib.aclrtSynchronizeStream(session.stream)
    else:  # refused: the executor never ran
        phase1.close()
    session.lib.aclGetRecentErrMsg()  # read, so the message does not linger
    session.free(pool)
    session.release(*tensors)
    return status == 0


def largest_pool_offset() -> int:
    """The largest byte offset into the pool at which the twin runs the call."""
    with aclnn.Session("twin") as session:
        return next(o for o in range(POOL_BYTES, -1, -1) if _slice_accepted(session, o))


@checker
def check_pool_offset(answer: object) -> Verdict:
    """(the largest offset the twin accepts, whether an NPU most likely reports an error there)."""
    expect(
        answer,
        (is_whole_number, is_boolean),
        usage="answer with a pair: (an offset in bytes, True or False)",
    )
    offset, npu_reports = answer  # type: ignore[misc]
    if offset != largest_pool_offset():
        return wrong(
            "the offset: how many bytes does phase 1 ask for with these tensors, how many does "
            "the slice offer at that offset, and which of the twin's checks of phase 2 (size, "
            "alignment) can still fail?"
        )
    if npu_reports:
        return wrong(
            "the NPU: is a workspace carved out of memory allocated ahead a mistake, or what "
            "CANN recommends?"
        )
    return correct("a slice of a pool is a workspace like any other, as long as it is large enough")


def _statuses_of_copy(kernel_dir: Path) -> tuple[int, int]:
    """Phase 1's statuses for 9 and 10 dimensions on the twin built from a copy of kernel/."""
    with aclnn.Session(aclnn.twin_backend(kernel_dir)) as session:
        return tuple(_twin_status(session, tuple([((1,) * n, "float32")] * 3)) for n in (9, 10))


@checker
def check_max_dims_edit(answer: object, scratch: ScratchKernel) -> Verdict:
    """Statuses for 9 and 10 dimensions after the learner raised kMaxDims to 9 in the copy."""
    expect(
        answer,
        (is_whole_number, is_whole_number),
        usage="answer with a pair of status codes: (9 dimensions, 10 dimensions)",
    )
    if "common/mish_grad_contract.h" not in scratch.edited():
        return wrong(f"edit common/mish_grad_contract.h in {scratch} first, then run the cell")
    # The copy's library is loaded in a worker process: an edit that crashes or hangs cannot
    # take the notebook down (aclnn.twin_backend).
    statuses = call_on_copy(scratch, _statuses_of_copy, scratch.path)
    if statuses[0] != 0:
        return wrong("phase 1 of your copy still refuses 9 dimensions: set the limit to 9")
    return equal_or_hint(
        tuple(int(status) for status in answer),  # type: ignore[union-attr]
        statuses,
        "read the dimension check in CheckMishBackward: which numbers of dimensions does it "
        "refuse now?",
    )
