"""Reading a learner's answer: a function called on an array, or a number, checked for its kind."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Final

import numpy as np

from . import Verdict, correct, expect, is_number, is_whole_number, learner_answer, wrong


def learner_result(
    function: Callable[[np.ndarray], object],
    x: np.ndarray,
    dtype: np.dtype | None = None,
) -> tuple[np.ndarray | None, Verdict | None]:
    """Call ``function`` on a copy of ``x``; return its array, or the verdict that ends the check.

    For checkers decorated with :func:`~mishgrad.book.exercises.learner_function`. Besides
    :func:`~mishgrad.book.exercises.learner_answer`'s verdicts, ``wrong_kind`` for a result
    whose shape differs from ``x``'s or whose dtype is not ``dtype`` (default: ``x``'s).
    """
    dtype = x.dtype if dtype is None else dtype

    def fits(result: object) -> bool:
        array = np.asarray(result)
        return array.dtype == dtype and array.shape == x.shape

    with np.errstate(all="ignore"):  # the learner's arithmetic may overflow on purpose
        result, verdict = learner_answer(
            function,
            x.copy(),
            shape=fits,
            usage=f"for a {x.dtype.name} array of shape {x.shape}, return a {dtype.name} one",
        )
    return (None, verdict) if verdict is not None else (np.asarray(result), None)


def _numbers(result: object, shape: tuple[int, ...]) -> np.ndarray | None:
    """``result`` as float64 numbers of ``shape``, or None when it is no such numbers."""
    try:
        got = np.asarray(result, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return got if got.shape == shape else None


def learner_numbers(
    function: Callable[..., object], *args: object, shape: tuple[int, ...], usage: str
) -> tuple[np.ndarray | None, Verdict | None]:
    """Call ``function(*args)`` (arrays copied); return its numbers in float64, or the verdict.

    Like :func:`learner_result`, for a function of several arguments whose result is compared
    as numbers of any float dtype: ``wrong_kind(usage)`` when it is not numbers of ``shape``.
    """
    copies = [arg.copy() if isinstance(arg, np.ndarray) else arg for arg in args]
    with np.errstate(all="ignore"):  # the learner's arithmetic may overflow on purpose
        result, verdict = learner_answer(
            function, *copies, shape=lambda got: _numbers(got, shape) is not None, usage=usage
        )
    return (None, verdict) if verdict is not None else (_numbers(result, shape), None)


#: What :func:`learner_float` and :func:`learner_whole_number` say by default to an answer of
#: another kind.
NUMBER_USAGE: Final = "answer with a number"
WHOLE_NUMBER_USAGE: Final = "answer with a whole number"


def learner_float(answer: object, usage: str = NUMBER_USAGE) -> tuple[float | None, Verdict | None]:
    """The learner's number as a Python float, or the verdict that ends the check.

    ``None`` is ``UNANSWERED``; anything but one real number is ``wrong_kind(usage)``.
    Numbers go through Python's ``float`` first: ml_dtypes' constructors are not safe on
    arbitrary objects.
    """
    verdict = expect(answer, is_number, usage=usage)
    return (None, verdict) if verdict is not None else (float(answer), None)  # type: ignore[arg-type]


def learner_whole_number(
    answer: object, usage: str = WHOLE_NUMBER_USAGE
) -> tuple[int | None, Verdict | None]:
    """The learner's whole number as a Python int (``1274.0`` is 1274), or the ending verdict."""
    verdict = expect(answer, is_whole_number, usage=usage)
    if verdict is not None:
        return None, verdict
    if isinstance(answer, numbers.Integral):
        return int(answer), None
    return int(float(answer)), None  # type: ignore[arg-type]


def in_dtype(value: float, dtype: np.dtype) -> bool:
    """Whether ``value`` is a number of ``dtype`` exactly (it survives the round trip; NaN not)."""
    with np.errstate(all="ignore"):
        return float(np.array(value).astype(dtype)) == value


def number_verdict(
    answer: object, dtype: np.dtype, expected: float, *, hint: str, off_grid: str
) -> Verdict:
    """Compare the learner's number with ``expected``, a value of ``dtype``, exactly.

    ``hint`` is for a value of ``dtype`` other than ``expected``; ``off_grid`` for a number
    between two values of ``dtype`` (such as an analytic threshold not rounded into the grid).
    """
    value, verdict = learner_float(answer)
    if verdict is not None:
        return verdict
    if not in_dtype(value, dtype):  # type: ignore[arg-type]
        return wrong(off_grid)
    return correct() if value == expected else wrong(hint)


def close_or_hint(
    answer: object,
    expected: float,
    hint: str,
    *,
    rel_tol: float = 1e-6,
    abs_tol: float = 0.0,
    remark: str = "",
) -> Verdict:
    """``correct(remark)`` when ``answer`` is a number close to ``expected``, else ``wrong(hint)``.

    Close as :func:`math.isclose` says with ``rel_tol`` and ``abs_tol``; ``hint`` must not
    give the answer away.
    """
    value, verdict = learner_float(answer)
    if verdict is not None:
        return verdict
    ok = math.isclose(value, expected, rel_tol=rel_tol, abs_tol=abs_tol)  # type: ignore[arg-type]
    return correct(remark) if ok else wrong(hint)
