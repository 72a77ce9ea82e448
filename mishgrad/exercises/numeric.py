"""A verdict on a numeric answer, shared by the checkers whose answer is one number."""

from __future__ import annotations

import math

from . import UNANSWERED, Verdict, correct, wrong


def close_or_hint(
    answer: object,
    expected: float,
    hint: str,
    *,
    rel_tol: float = 1e-6,
    abs_tol: float = 0.0,
    remark: str = "",
) -> Verdict:
    """``correct(remark)`` when ``answer`` is a number close to ``expected``, else ``wrong``.

    Parameters
    ----------
    answer
        The learner's answer: ``None`` (unanswered), a number, or anything else (wrong).
    expected
        The checker's own value.
    hint
        What to say when the number is not close enough (it must not give the answer away).
    rel_tol, abs_tol
        As in :func:`math.isclose`.
    remark
        What to say when it is.

    """
    if answer is None:
        return UNANSWERED
    try:
        value = float(answer)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return wrong("answer with a number")
    ok = math.isclose(value, expected, rel_tol=rel_tol, abs_tol=abs_tol)
    return correct(remark) if ok else wrong(hint)
