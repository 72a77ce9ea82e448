"""The notebooks' number formatting: compact, and never a rounded figure that looks exact."""

from __future__ import annotations

import numpy as np

from mishgrad.book.report import fmt, table


def test_integers_and_words_print_as_themselves() -> None:
    assert [fmt(3.0), fmt(np.int64(42)), fmt(True), fmt("ok")] == ["3", "42", "True", "ok"]


def test_reals_keep_the_significant_digits_asked_for() -> None:
    assert fmt(0.123456789) == "0.123457"
    assert fmt(1234567.8) == "1.23457e+06"
    assert fmt(2.5e-7, 3) == "2.5e-07"


def test_a_share_just_below_one_hundred_is_not_printed_as_one_hundred() -> None:
    assert fmt(99.9984, 4) == "99.998"
    assert fmt(99.99999, 3) == "99.99999"
    assert fmt(100.0, 3) == "100"
    assert "| 99.998 |" in table([[99.9984]], ["%"], digits=4).data
