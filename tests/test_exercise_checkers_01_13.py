"""Notebooks 01 and 13: a checker answers garbage with a wrong verdict, never an exception."""

from __future__ import annotations

import numpy as np
import pytest

from mishgrad.book.exercises import nb01, nb13


def _raises(*_: object) -> None:
    raise RuntimeError("a learner's bug")


def _array(*_: object) -> np.ndarray:
    return np.array([1.0, 2.0])  # compared with an expected value, it would raise


CHECKERS = [
    nb01.check_t_at_ln3,
    nb01.check_sign_only,
    nb01.check_crossing,
    nb01.check_dmish,
    nb13.check_resolver,
    nb13.check_which_resolve,
]
GARBAGE = ["abc", object(), [1, 2], (1,), 3.5, _raises, _array]


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: f"{c.__module__[-4:]}.{c.__name__}")
# Ids by type: a repr with an address would differ between pytest-xdist's workers.
@pytest.mark.parametrize("answer", GARBAGE, ids=lambda a: getattr(a, "__name__", type(a).__name__))
def test_garbage_is_wrong(checker: object, answer: object) -> None:
    assert checker(answer).status == "wrong"


def test_a_resolver_that_returns_an_array_is_told_to_return_a_path() -> None:
    verdict = nb13.check_resolver(_array)
    assert verdict.status == "wrong" and "returned a ndarray" in verdict.message


def test_a_learner_function_that_raises_is_reported() -> None:
    verdict = nb01.check_dmish(_raises)
    assert verdict.status == "wrong" and "RuntimeError" in verdict.message
