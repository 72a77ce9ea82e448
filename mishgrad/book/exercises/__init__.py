"""Checkers for the notebooks' exercises, one module per notebook (``nb01`` … ``nb13``).

A checker takes the learner's answer (a number, a tuple, or a function the learner wrote)
and returns a :class:`Verdict`: ``unanswered`` while the answer is still ``None``, else
``correct`` or ``wrong`` with a hint. A checker computes the expected answer itself, from
parameters that no cell prints, so an answer cannot be copied from an output on screen.
An answer of the wrong kind is turned away before any comparison, and never gets a hint about
its content: :func:`expect` (a function's result: :func:`learner_answer`) raises the verdict
as an :class:`EarlyVerdict`, which the checker's decorator (:func:`checker`) returns.

``tests/test_exercises.py`` feeds every checker a right answer, a wrong one, the typical
mistake, and answers of the wrong kind.
"""

import functools
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, TypeVar

import numpy as np

from mishgrad.kernel.twin_build import TwinBuildError

from ..i18n import colon, translate

if TYPE_CHECKING:
    from mishgrad.kernel.scratch import ScratchKernel

Status = Literal["unanswered", "correct", "wrong"]
Checker = TypeVar("Checker", bound=Callable[..., "Verdict"])
Result = TypeVar("Result")
#: What an answer must be: a test of one value, or a tuple of tests, one per element.
Shape = Callable[[object], bool] | tuple[Callable[[object], bool], ...]
#: The compiler's lines shown for an edit that does not build: the first error, its source
#: line and the marker under it.
COMPILER_LINES: Final = 3


@dataclass(frozen=True)
class Verdict:
    """A checker's answer: its status and a message for the learner."""

    status: Status
    message: str
    usage: bool = False  # an answer of another kind than asked: the message says which, no hint

    def __bool__(self) -> bool:
        return self.status == "correct"

    def __repr__(self) -> str:
        # Shown in the notebook's language; the status word too ("correct" -> "正确"), and
        # the colon after it (Chinese: "：").
        status = translate(self.status)
        return f"{status}{colon()}{translate(self.message)}" if self.message else status


UNANSWERED = Verdict("unanswered", "replace None with your answer and run the cell again")


def correct(message: str = "") -> Verdict:
    """A right answer, with an optional remark."""
    return Verdict("correct", message)


def wrong(hint: str) -> Verdict:
    """A wrong answer, with a hint that does not give the answer away."""
    return Verdict("wrong", hint)


def wrong_kind(usage: str) -> Verdict:
    """An answer of the wrong kind; ``usage`` says what kind the exercise asks for."""
    return Verdict("wrong", usage, usage=True)


def is_number(answer: object) -> bool:
    """A real number: a Python, NumPy, SymPy or mpmath one; not a bool, a string or an array."""
    if isinstance(answer, bool | np.bool_ | str | bytes):
        return False
    if isinstance(answer, np.ndarray) and answer.ndim:  # one number, not an array of them
        return False
    try:
        float(answer)  # type: ignore[arg-type]
    except Exception:  # whatever the learner passed, it is no number
        return False
    return True


def is_whole_number(answer: object) -> bool:
    """An integer, or a number with no fractional part (``1274.0``); not a bool."""
    if isinstance(answer, numbers.Integral) and not isinstance(answer, bool | np.bool_):
        return True
    return is_number(answer) and float(answer).is_integer()  # type: ignore[arg-type]


def is_boolean(answer: object) -> bool:
    """``True`` or ``False`` (NumPy's too), not a number standing for one."""
    return isinstance(answer, bool | np.bool_)


def fits(answer: object, shape: Shape) -> bool:
    """Whether ``answer`` is of ``shape``: one test, or a tuple (list, 1-D array) of them."""
    if not isinstance(shape, tuple):
        return shape(answer)
    if isinstance(answer, np.ndarray) and answer.ndim == 1:
        answer = answer.tolist()
    if not isinstance(answer, tuple | list) or len(answer) != len(shape):
        return False
    return all(test(value) for test, value in zip(shape, answer, strict=True))


class EarlyVerdict(Exception):  # noqa: N818 (it carries a verdict; it is no error)
    """The verdict that ends a check before any comparison, raised; :func:`checker` returns it."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.message)
        self.verdict = verdict


def checker(check: Checker) -> Checker:
    """Decorate a checker: an :class:`EarlyVerdict` raised while it runs is its verdict."""

    @functools.wraps(check)
    def checked(*args: object) -> Verdict:
        try:
            return check(*args)
        except EarlyVerdict as early:
            return early.verdict

    return checked  # type: ignore[return-value]


def expect(answer: object, shape: Shape, *, usage: str) -> None:
    """Raise (:class:`EarlyVerdict`) the verdict that ends the check before any comparison, if any.

    :data:`UNANSWERED` for ``None`` (the scaffold); ``wrong_kind(usage)`` for an answer not of
    ``shape`` (:func:`fits`); ``usage`` says what kind is asked for, never a hint.
    """
    if answer is None:
        raise EarlyVerdict(UNANSWERED)
    if not fits(answer, shape):
        raise EarlyVerdict(wrong_kind(usage))


def equal_or_hint(answer: object, expected: object, hint: str) -> Verdict:
    """The common case, once the answer is of the right kind: ``answer == expected``."""
    return correct() if answer == expected else wrong(hint)


def call_learner(function: Callable[..., object], *args: object) -> object:
    """Call a learner's function: an exception is a wrong verdict, an :class:`EarlyVerdict`."""
    try:
        return function(*args)
    except Exception as error:  # any mistake in learner code is a verdict, not a crash
        raise EarlyVerdict(wrong(f"your function raised {type(error).__name__}: {error}")) from None


def learner_answer(
    function: Callable[..., object], *args: object, shape: Shape, usage: str
) -> object:
    """The learner's function's result (:func:`call_learner`), :func:`expect`-ed of ``shape``."""
    result = call_learner(function, *args)
    expect(result, shape, usage=usage)
    return result


def compiler_excerpt(message: str, scratch: "ScratchKernel") -> str:
    """The first error of a failed build, short: at most :data:`COMPILER_LINES` lines.

    Paths inside the copy are shown relative to it (``op_kernel/mish_grad.h:235:9: error:
    …``). A message without an ``error:`` line (a failed link, no compiler) is shown from
    its first line.
    """
    lines = [line.replace(f"{scratch.path}/", "") for line in message.splitlines()]
    first = next(
        (i for i, line in enumerate(lines) if "error:" in line or "undefined reference" in line),
        None,
    )
    if first is None:
        return "\n".join(lines[:COMPILER_LINES])
    shown = [lines[first]]
    for line in lines[first + 1 : first + COMPILER_LINES]:
        if not re.match(r"\s*(\d+\s*)?\|", line):  # gcc's source line and marker: " 235 | …"
            break
        shown.append(line)
    return "\n".join(shown)


def call_on_copy(
    scratch: "ScratchKernel", function: Callable[..., Result], *args: object, **kwargs: object
) -> Result:
    """Call ``function(*args, **kwargs)``, which builds the learner's scratch copy and runs it.

    A failure is a wrong verdict, raised as an :class:`EarlyVerdict`: the compiler's first error
    (:func:`compiler_excerpt`), or any other exception (a crash, a stall, a refused plan) and the
    files in which the copy differs from ``kernel/`` (a copy older than ``kernel/`` fails too).
    """
    try:
        return function(*args, **kwargs)
    except TwinBuildError as error:
        excerpt = compiler_excerpt(str(error), scratch)
        raise EarlyVerdict(wrong(f"your copy does not build: {excerpt}")) from None
    except Exception as error:  # the learner's edit may break the run in any way
        name, edited = type(error).__name__, ", ".join(scratch.edited())
        if not edited:
            raise EarlyVerdict(wrong(f"running your copy failed: {name}: {error}")) from None
        raise EarlyVerdict(
            wrong(
                f"running your copy failed: {name}: {error}; it differs from kernel/ in {edited} "
                "(`scratch.diff()` shows how, `scratch.reset()` starts over)"
            )
        ) from None


def learner_function(usage: str) -> Callable[[Checker], Checker]:
    """Decorate a checker whose answer is a function the learner writes (a :func:`checker`).

    The checker then only sees a callable: ``None`` (the scaffold, untouched) is
    ``UNANSWERED`` and anything else that is not callable is ``wrong_kind(usage)``.
    """

    def decorate(check: Checker) -> Checker:
        @checker
        @functools.wraps(check)
        def checked(function: object, *args: object) -> Verdict:
            expect(function, callable, usage=usage)
            return check(function, *args)

        return checked  # type: ignore[return-value]

    return decorate
