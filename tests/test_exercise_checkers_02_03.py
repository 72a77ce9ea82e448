"""Notebook 02's and 03's checkers answer garbage with a verdict, never an exception."""

from __future__ import annotations

import numpy as np
import pytest

from mishgrad.book.exercises import nb02, nb03

WRITE_CODE = [nb02.check_to_bfloat16_bits, nb03.check_b1_float16]
NUMBERS = [nb02.check_exp_power, nb02.check_bfloat16_count, nb03.check_one_plus_e]


def _raises(x: np.ndarray) -> np.ndarray:
    raise ZeroDivisionError("learner's bug")


@pytest.mark.parametrize("checker", WRITE_CODE, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    "garbage",
    [42, "to_bfloat16_bits", _raises, lambda x: x.astype(np.float64), lambda x: x[:-1]],
    ids=["number", "string", "raises", "wrong dtype", "wrong shape"],
)
def test_write_code_checkers_reject_garbage(checker, garbage) -> None:
    assert checker(garbage).status == "wrong"


@pytest.mark.parametrize("checker", WRITE_CODE, ids=lambda c: c.__name__)
def test_a_scaffold_returning_none_is_unanswered(checker) -> None:
    assert checker(lambda x: None).status == "unanswered"


@pytest.mark.parametrize("checker", NUMBERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("garbage", ["many", [1, 2], {}], ids=["string", "list", "dict"])
def test_number_checkers_reject_garbage(checker, garbage) -> None:
    assert checker(garbage).status == "wrong"


def test_a_whole_number_may_be_a_float() -> None:
    assert nb02.check_bfloat16_count(1274.0).status == "correct"
    assert nb02.check_bfloat16_count(1273.5).status == "wrong"
