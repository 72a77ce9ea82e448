"""Checkers for notebook 13's exercises: how ops-nn resolves a quoted ``#include``.

The checkers lay out an operator of their own (``gelu_quant_grad``, which no cell shows) in a
temporary folder and compare the learner's answers with
:func:`mishgrad.kernel.opsnn.resolve_include` on it.
"""

import tempfile
from pathlib import Path
from typing import Final

from mishgrad.kernel import opsnn

from . import (
    UNANSWERED,
    Verdict,
    call_learner,
    checker,
    correct,
    equal_or_hint,
    expect,
    is_boolean,
    learner_function,
    wrong,
)

#: The files of the checkers' operator, and a header of a neighbouring operator.
OPERATOR_FILES: Final = (
    "gelu_quant_grad/op_host/gelu_quant_grad_def.cpp",
    "gelu_quant_grad/op_host/gelu_quant_grad_tiling.cpp",
    "gelu_quant_grad/op_host/gelu_quant_grad_tiling.h",
    "gelu_quant_grad/op_host/op_api/aclnn_gelu_quant_grad.cpp",
    "gelu_quant_grad/op_host/op_api/aclnn_gelu_quant_grad.h",
    "gelu_quant_grad/op_host/op_api/gelu_quant_grad_l0.h",
    "gelu_quant_grad/common/gelu_quant_grad_util.h",
    "gelu_quant_grad/examples/test_aclnn_gelu_quant_grad.cpp",
    "gelu_quant_grad/op_kernel/gelu_quant_grad.cpp",
    "gelu_quant_grad/op_kernel/gelu_quant_grad_tiling_data.h",
    "softplus_grad/common/softplus_grad_util.h",
)
_TILING = "op_host/gelu_quant_grad_tiling.cpp"
_ACLNN = "op_host/op_api/aclnn_gelu_quant_grad.cpp"
_UTIL = "common/gelu_quant_grad_util.h"
_DATA = "gelu_quant_grad_tiling_data.h"
#: (including file, include, ops-nn target) on which a learner's resolver is tested.
RESOLVER_CASES: Final = (
    (_TILING, "gelu_quant_grad_tiling.h", "tiling"),
    (_TILING, f"op_kernel/{_DATA}", "tiling"),
    (_TILING, f"gelu_quant_grad/op_kernel/{_DATA}", "tiling"),
    (_TILING, "softplus_grad/common/softplus_grad_util.h", "tiling"),
    ("op_host/gelu_quant_grad_def.cpp", "gelu_quant_grad_tiling.h", "op_def"),
    (_ACLNN, "gelu_quant_grad_l0.h", "op_api"),
    (_ACLNN, "gelu_quant_grad_tiling.h", "op_api"),
    (_ACLNN, "../../common/gelu_quant_grad_util.h", "op_api"),
    (_UTIL, _DATA, "tiling"),
    (_UTIL, "gelu_quant_grad_tiling.h", "tiling"),
    ("examples/test_aclnn_gelu_quant_grad.cpp", "aclnn_gelu_quant_grad.h", "example"),
)
#: The three includes of exercise 2: does each resolve to a file of the operator?
QUESTION_CASES: Final = (
    (_ACLNN, "../gelu_quant_grad_tiling.h", "op_api"),
    (_UTIL, f"op_kernel/{_DATA}", "tiling"),
    (_UTIL, "gelu_quant_grad_tiling.h", "tiling"),
)


def _operator(folder: Path) -> Path:
    """Lay the checkers' operator out in ``folder``; return its directory."""
    for relative in OPERATOR_FILES:
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("// placeholder: only the file's existence matters here\n")
    return folder / "gelu_quant_grad"


def _expected(op_dir: Path, source: str, name: str, target: str) -> str | None:
    found = opsnn.resolve_include(op_dir / source, name, target, op_dir)
    return None if found is None else found.relative_to(op_dir.resolve()).as_posix()


@learner_function("pass the function itself: check_resolver(resolves_to)")
def check_resolver(resolves_to: object) -> Verdict:
    """Exercise 1 (write code): ``resolves_to(op_dir, source, name, target)``.

    The learner's function returns the operator-relative path (``"op_host/x.h"``) that
    ``#include "name"`` in ``source`` resolves to when ops-nn compiles it as ``target``, or
    None when no file of the operator answers (CANN's headers, or nothing).
    """
    with tempfile.TemporaryDirectory() as folder:
        op_dir = _operator(Path(folder))
        got_all = (call_learner(resolves_to, op_dir, *case) for case in RESOLVER_CASES)
        answers = [got.as_posix() if isinstance(got, Path) else got for got in got_all]
        expected = [_expected(op_dir, *case) for case in RESOLVER_CASES]
    if all(got is None for got in answers):  # the scaffold, not yet written
        return UNANSWERED
    odd = next((got for got in answers if got is not None and not isinstance(got, str)), None)
    if odd is not None:  # an array or a number: compared with a path, it would raise
        return wrong(
            f"resolves_to returned a {type(odd).__name__}: return the operator-relative path "
            'as a string (such as "op_host/x.h"), or None'
        )
    for (source, name, target), got, want in zip(RESOLVER_CASES, answers, expected, strict=True):
        if got != want:
            return wrong(
                f'#include "{name}" in {source} (target {target}): you return {got!r}. '
                "Where is a quoted include searched first, which folders does this target "
                "add, and may a file outside the operator count?"
            )
    return correct()


@checker
def check_which_resolve(answer: object) -> Verdict:
    """Exercise 2: for each include of :data:`QUESTION_CASES`, True if it resolves."""
    expect(
        answer,
        (is_boolean,) * len(QUESTION_CASES),
        usage="answer with a tuple of three booleans, True or False for each include in order",
    )
    with tempfile.TemporaryDirectory() as folder:
        op_dir = _operator(Path(folder))
        expected = tuple(_expected(op_dir, *case) is not None for case in QUESTION_CASES)
    return equal_or_hint(
        tuple(bool(value) for value in answer),  # type: ignore[union-attr]
        expected,
        "for each include: the folder of the including file first, then the target's folders "
        "of section 3 — is the named file in one of them?",
    )
