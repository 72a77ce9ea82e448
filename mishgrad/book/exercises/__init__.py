"""Checkers for the notebooks' exercises, one module per notebook (``nb01`` … ``nb11``).

A checker takes the learner's answer (a number, a tuple, or a function the learner wrote)
and returns a :class:`Verdict`: ``unanswered`` while the answer is still ``None``, else
``correct`` or ``wrong`` with a hint. A checker computes the expected answer itself, from
parameters that no cell prints, so an answer cannot be copied from an output on screen.
``tests/test_exercises.py`` feeds every checker a right and a wrong answer.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from ..i18n import translate

Status = Literal["unanswered", "correct", "wrong"]
Checker = TypeVar("Checker", bound=Callable[..., "Verdict"])


@dataclass(frozen=True)
class Verdict:
    """A checker's answer: its status and a message for the learner."""

    status: Status
    message: str

    def __bool__(self) -> bool:
        return self.status == "correct"

    def __repr__(self) -> str:
        # Shown in the notebook's language; the status word too ("correct" -> "正确").
        status = translate(self.status)
        return f"{status}: {translate(self.message)}" if self.message else status


UNANSWERED = Verdict("unanswered", "replace None with your answer and run the cell again")


def correct(message: str = "") -> Verdict:
    """A right answer, with an optional remark."""
    return Verdict("correct", message)


def wrong(hint: str) -> Verdict:
    """A wrong answer, with a hint that does not give the answer away."""
    return Verdict("wrong", hint)


def equal_or_hint(answer: object, expected: object, hint: str) -> Verdict:
    """The common case: ``answer == expected`` (tuples and lists compare alike)."""
    if answer is None:
        return UNANSWERED
    if isinstance(answer, list):
        answer = tuple(answer)
    return correct() if answer == expected else wrong(hint)


def call_learner(function: Callable[..., object], *args: object) -> tuple[object, Verdict | None]:
    """Call a function the learner wrote; an exception becomes a wrong verdict, not a crash.

    Returns ``(result, None)``, or ``(None, verdict)`` when the function raised. Test the
    verdict with ``is not None``: a ``wrong`` verdict is falsy.
    """
    try:
        return function(*args), None
    except Exception as error:  # any mistake in learner code is a verdict, not a crash
        return None, wrong(f"your function raised {type(error).__name__}: {error}")


def learner_function(usage: str) -> Callable[[Checker], Checker]:
    """Decorate a checker whose answer is a function the learner writes.

    The checker then only sees a callable: ``None`` (the scaffold, untouched) is
    ``UNANSWERED`` and anything else that is not callable is ``wrong(usage)``.
    """

    def decorate(checker: Checker) -> Checker:
        @functools.wraps(checker)
        def checked(function: object, *args: object) -> Verdict:
            if function is None:
                return UNANSWERED
            if not callable(function):
                return wrong(usage)
            return checker(function, *args)

        return checked  # type: ignore[return-value]

    return decorate
