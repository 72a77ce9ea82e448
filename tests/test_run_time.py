"""mishgrad.book.run_time: how durations are stated, rewritten and reported.

That every run-time statement of the book is the measured figure is a rule of the repository
(tests/rules/run_time.py).
"""

from __future__ import annotations

import pytest

from mishgrad.book import run_time
from tools.production import run_time as statements

STEM = "01_mish_and_its_gradient"


def test_durations_are_rounded_without_false_precision():
    assert [run_time.rounded(s) for s in (0.46, 3.6, 15.4, 19.6, 22.4, 143.0)] == [
        "0.5",
        "4",
        "15",
        "20",
        "20",
        "145",
    ]


def test_a_paragraph_is_replaced_up_to_the_blank_line():
    text = "# Title\n\n**Run time**: old,\nwrapped.\n\nNext paragraph."
    new = statements._replace_paragraph(text, "**Run time**", "**Run time**: new.")
    assert new == "# Title\n\n**Run time**: new.\n\nNext paragraph."
    with pytest.raises(ValueError, match="no paragraph"):
        statements._replace_paragraph("nothing here", "**Run time**", "x")


def test_the_report_prints_this_run_beside_the_measurement(capsys):
    run_time.report(0.0, STEM)
    printed = capsys.readouterr().out
    warm = run_time.rounded(run_time.load().notebooks[STEM].warm)
    assert printed.startswith("This run: ") and f"Measured for the book: {warm} s" in printed
