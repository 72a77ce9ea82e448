"""Reading a learner's answer: a function called on an array, or a number, checked for its kind.

Each reader returns the answer, or raises the :class:`~mishgrad.book.exercises.EarlyVerdict`
that ends the check (a decorated checker returns it).
"""

import math
import numbers
from collections.abc import Callable
from typing import Final

import numpy as np

from . import Verdict, correct, expect, is_number, is_whole_number, learner_answer, wrong


def learner_result(
    function: Callable[[np.ndarray], object], x: np.ndarray, dtype: np.dtype | None = None
) -> np.ndarray:
    """Call ``function`` on a copy of ``x``; return its array.

    Besides :func:`~mishgrad.book.exercises.learner_answer`'s verdicts, ``wrong_kind`` for a
    result whose shape differs from ``x``'s or whose dtype is not ``dtype`` (default: ``x``'s).
    """
    dtype = x.dtype if dtype is None else dtype

    def of_kind(result: object) -> bool:
        array = np.asarray(result)
        return array.dtype == dtype and array.shape == x.shape

    with np.errstate(all="ignore"):  # the learner's arithmetic may overflow on purpose
        result = learner_answer(
            function,
            x.copy(),
            shape=of_kind,
            usage=f"for a {x.dtype.name} array of shape {x.shape}, return a {dtype.name} one",
        )
    return np.asarray(result)


def _numbers(result: object, shape: tuple[int, ...]) -> np.ndarray | None:
    """``result`` as float64 numbers of ``shape``, or None when it is no such numbers."""
    try:
        got = np.asarray(result, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return got if got.shape == shape else None


def learner_numbers(
    function: Callable[..., object], *args: object, shape: tuple[int, ...], usage: str
) -> np.ndarray:
    """Call ``function(*args)`` (arrays copied); return its numbers in float64.

    Like :func:`learner_result`, for a function of several arguments whose result is compared
    as numbers of any float dtype: ``wrong_kind(usage)`` when it is not numbers of ``shape``.
    """
    copies = [arg.copy() if isinstance(arg, np.ndarray) else arg for arg in args]
    with np.errstate(all="ignore"):  # the learner's arithmetic may overflow on purpose
        result = learner_answer(
            function, *copies, shape=lambda got: _numbers(got, shape) is not None, usage=usage
        )
    return _numbers(result, shape)  # type: ignore[return-value]


#: What :func:`learner_float` and :func:`learner_whole_number` say by default to an answer of
#: another kind.
NUMBER_USAGE: Final = "answer with a number"
WHOLE_NUMBER_USAGE: Final = "answer with a whole number"


def learner_float(answer: object, usage: str = NUMBER_USAGE) -> float:
    """The learner's number as a Python float; anything but one real number is the wrong kind.

    Numbers go through Python's ``float`` first: ml_dtypes' constructors are not safe on
    arbitrary objects.
    """
    expect(answer, is_number, usage=usage)
    return float(answer)  # type: ignore[arg-type]


def learner_whole_number(answer: object, usage: str = WHOLE_NUMBER_USAGE) -> int:
    """The learner's whole number as a Python int (``1274.0`` is 1274)."""
    expect(answer, is_whole_number, usage=usage)
    return int(answer if isinstance(answer, numbers.Integral) else float(answer))  # type: ignore[arg-type]


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
    value = learner_float(answer)
    if not in_dtype(value, dtype):
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
    """Whether ``answer`` is close to ``expected`` (:func:`math.isclose`), as a verdict."""
    ok = math.isclose(learner_float(answer), expected, rel_tol=rel_tol, abs_tol=abs_tol)
    return correct(remark) if ok else wrong(hint)
