"""Checkers for notebook 07, the aclnn two-phase call.

Each checker asks the CPU twin itself (phase 1, phase 2, ``aclrtSynchronizeStream``) for the
expected answer, on tensors no cell of the notebook prints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from .. import acl
from ..dtypes import DTYPES
from ..scratch import ScratchKernel
from . import UNANSWERED, Verdict, call_learner, correct, equal_or_hint, wrong

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


def _twin_status(session: acl.Session, specs: tuple[Spec, Spec, Spec]) -> int:
    tensors = [
        None if spec is None else session.tensor(np.zeros(spec[0], DTYPES.get(spec[1], spec[1])))
        for spec in specs
    ]
    phase1 = acl.get_workspace_size(session, *tensors, check=False)
    if phase1.status == 0:  # planned, never run: free the executor
        session.check(
            session.lib.aclDestroyAclOpExecutor(phase1.executor), "aclDestroyAclOpExecutor"
        )
    return phase1.status


def check_phase1_status(learner: Callable[[Spec, Spec, Spec], int] | None) -> Verdict:
    """The learner's ``phase1_status(grad, self, out)`` against the twin's phase 1.

    Each argument is ``None`` (a null pointer) or ``(shape, dtype name)``; the function
    returns the status code phase 1 returns.
    """
    if learner is None:
        return UNANSWERED
    if not callable(learner):
        return wrong("answer with a function phase1_status(grad, self, out)")
    with acl.Session("twin") as session:
        for specs in STATUS_CASES:
            expected = _twin_status(session, specs)
            got, failed = call_learner(learner, *specs)
            if failed is not None:
                return failed
            if got != expected:
                return wrong(
                    f"for gradOutput={specs[0]}, self={specs[1]}, gradInput={specs[2]} your "
                    f"function returned {got!r}, phase 1 returns a different status; hint: "
                    "check in the contract's order — null pointers, the dtypes (and whether the "
                    "result can be cast), the dimensions, broadcasting, gradInput's shape"
                )
    return correct(f"all {len(STATUS_CASES)} cases agree with the twin's phase 1")


def _workspace(specs: list[tuple[tuple[int, ...], str]]) -> int:
    with acl.Session("twin") as session:
        tensors = [session.tensor(np.zeros(shape, DTYPES[name])) for shape, name in specs]
        phase1 = acl.get_workspace_size(session, *tensors)
        session.check(
            session.lib.aclDestroyAclOpExecutor(phase1.executor), "aclDestroyAclOpExecutor"
        )
        return phase1.workspace_size


def check_workspace_bytes(answer: object) -> Verdict:
    """Workspace bytes on the twin for bfloat16 [6, 1], float16 [1, 10] into float32 [6, 10]."""
    if answer is None:
        return UNANSWERED
    expected = _workspace([((6, 1), "bfloat16"), ((1, 10), "float16"), ((6, 10), "float32")])
    return equal_or_hint(
        answer,
        expected,
        "which dtype does the kernel compute in, which inputs must be gathered (cast, "
        "broadcast or strided), how many bytes is each gathered buffer, and what does "
        "Reserve round each buffer up to?",
    )


def _freed_output_status() -> int:
    """The twin's status when gradInput's memory is freed after phase 1 and allocated again."""
    with acl.Session("twin") as session:
        tensors = [session.tensor(np.ones(16, np.float32)) for _ in range(3)]
        phase1 = acl.get_workspace_size(session, *tensors)
        session.free(tensors[2].address)
        tensors[2].address = None  # freed: the session must not free it again
        again = session.malloc(16 * 4)  # what a caching allocator might hand out next
        session.lib.aclnnMishBackward(None, phase1.workspace_size, phase1.executor, session.stream)
        status = session.lib.aclrtSynchronizeStream(session.stream)
        session.lib.aclGetRecentErrMsg()  # read, so the message does not linger
        session.free(again)
        return status


def check_freed_output(answer: object) -> Verdict:
    """(the twin's status at synchronize, whether an NPU most likely reports an error)."""
    if answer is None:
        return UNANSWERED
    if not isinstance(answer, tuple | list) or len(answer) != 2:
        return wrong("answer with a pair: (a status number, True or False)")
    status, npu_reports = answer
    if status != _freed_output_status():
        return wrong(
            "the twin: does allocating the same number of bytes again make the old tensor "
            "live again? Read the twin's message for the freed-input row"
        )
    if npu_reports is not False:
        return wrong(
            "the NPU: where does freed memory go when a framework's caching allocator owns "
            "it, and does a kernel's read or write of it fault?"
        )
    return correct("the twin refuses (a twin-only check); an NPU most likely writes silently")


def check_max_dims_edit(answer: object, scratch: ScratchKernel) -> Verdict:
    """Statuses for 9 and 10 dimensions after the learner raised kMaxDims to 9 in the copy."""
    if answer is None:
        return UNANSWERED
    if "common/mish_grad_contract.h" not in scratch.edited():
        return wrong(f"edit common/mish_grad_contract.h in {scratch} first, then run the cell")
    with acl.Session(acl.twin_backend(scratch.path)) as session:
        statuses = tuple(_twin_status(session, tuple([((1,) * n, "float32")] * 3)) for n in (9, 10))
    if statuses[0] != 0:
        return wrong("phase 1 of your copy still refuses 9 dimensions: set the limit to 9")
    return equal_or_hint(
        answer,
        statuses,
        "read the dimension check in CheckMishBackward: which numbers of dimensions does it "
        "refuse now?",
    )
