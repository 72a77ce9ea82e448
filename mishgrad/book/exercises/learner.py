"""Reading a learner's answer: a function called on an array, or a number, checked for garbage."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from . import UNANSWERED, Verdict, call_learner, correct, equal_or_hint, wrong


def learner_result(
    function: Callable[[np.ndarray], object],
    x: np.ndarray,
    dtype: np.dtype | None = None,
) -> tuple[np.ndarray | None, Verdict | None]:
    """Call ``function`` on a copy of ``x``; return its array, or the verdict that ends the check.

    For checkers decorated with :func:`~mishgrad.book.exercises.learner_function`, which has already
    turned away ``None`` and non-functions. The verdict is ``UNANSWERED`` for a function still
    returning ``None``, and ``wrong`` for a function that raises or a result whose shape
    differs from ``x``'s or whose dtype is not ``dtype`` (default: ``x``'s).
    """
    with np.errstate(all="ignore"):  # the learner's arithmetic may overflow on purpose
        result, failure = call_learner(function, x.copy())
    if failure is not None:
        return None, failure
    if result is None:
        return None, UNANSWERED
    result = np.asarray(result)
    dtype = x.dtype if dtype is None else dtype
    if result.dtype != dtype or result.shape != x.shape:
        return None, wrong(
            f"for a {x.dtype.name} array of shape {x.shape}, return a {dtype.name} one"
        )
    return result, None


def learner_float(answer: object) -> tuple[float | None, Verdict | None]:
    """The learner's number as a Python float, or the verdict that ends the check.

    ``None`` is ``UNANSWERED``; anything ``float()`` rejects is ``wrong``. Numbers go through
    Python's ``float`` first: ml_dtypes' constructors are not safe on arbitrary objects.
    """
    if answer is None:
        return None, UNANSWERED
    try:
        return float(answer), None  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None, wrong("answer with a number")


def learner_number(answer: object, dtype: np.dtype) -> tuple[float | None, Verdict | None]:
    """The learner's number rounded to ``dtype`` (as a float), or the verdict ending the check."""
    value, verdict = learner_float(answer)
    if verdict is not None:
        return None, verdict
    return float(np.array(value).astype(dtype)), None


def number_verdict(answer: object, dtype: np.dtype, expected: float, hint: str) -> Verdict:
    """Compare the learner's number, rounded to ``dtype``, with ``expected`` (a ``dtype`` value)."""
    value, verdict = learner_number(answer, dtype)
    return verdict if verdict is not None else equal_or_hint(value, expected, hint)


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
    value, verdict = learner_float(answer)
    if verdict is not None:
        return verdict
    ok = math.isclose(value, expected, rel_tol=rel_tol, abs_tol=abs_tol)  # type: ignore[arg-type]
    return correct(remark) if ok else wrong(hint)
