"""Every run-time statement of the book is the measured figure (mishgrad.book.run_time)."""

from __future__ import annotations

import ast
import json
import re

import pytest
from census_tool import cell_census

from mishgrad.book import i18n, run_time
from mishgrad.book.notebook_translation import join_cjk_lines
from mishgrad.book.translation_files import language_dir, parse
from mishgrad.kernel.source import REPOSITORY

NOTEBOOKS = sorted(run_time.NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
STEMS = [path.stem for path in NOTEBOOKS]
LANGUAGE = "zh-CN"


def flat(text: str) -> str:
    """Text with its line breaks joined as Markdown renders them."""
    return " ".join(join_cjk_lines(text).split())


def test_every_notebook_is_measured():
    assert list(run_time.load().notebooks) == STEMS


@pytest.mark.parametrize("stem", STEMS)
def test_the_opening_states_the_measured_time(stem):
    cells = json.loads((run_time.NOTEBOOKS / f"{stem}.ipynb").read_text())["cells"]
    assert flat(run_time.opening(stem)) in flat("".join(cells[0]["source"]))
    translated = parse(language_dir(LANGUAGE) / f"{stem}.md").cells[cells[0]["id"]].text
    assert flat(run_time.opening(stem, LANGUAGE)) in flat(translated)


@pytest.mark.parametrize("stem", STEMS)
def test_the_lesson_ends_with_the_timed_run(stem):
    # The last code cell before the Reference section (or the notebook's end) reports this
    # run beside the book's measurement of the same notebook.
    cells = json.loads((run_time.NOTEBOOKS / f"{stem}.ipynb").read_text())["cells"]
    lesson = cell_census.lesson(cells)
    last = "".join([c for c in lesson if c["cell_type"] == "code"][-1]["source"])
    calls = [n for n in ast.walk(ast.parse(last)) if isinstance(n, ast.Call)]
    reports = [c for c in calls if ast.unparse(c.func) == "run_time.report"]
    assert [ast.literal_eval(c.args[1]) for c in reports] == [stem], last


@pytest.mark.parametrize("language", [i18n.ENGLISH, LANGUAGE])
def test_the_readme_states_the_measured_times(language):
    readme = REPOSITORY / ("README.md" if language == i18n.ENGLISH else f"README.{language}.md")
    assert flat(run_time.readme_line(language)) in flat(readme.read_text(encoding="utf-8"))


@pytest.mark.parametrize("stem", STEMS)
def test_the_chinese_statements_are_chinese(stem):
    for text in (run_time.opening(stem, LANGUAGE), run_time.readme_line(LANGUAGE)):
        prose = re.sub(r"`[^`]*`|\*\*|\d+(\.\d)?|CPU|notebook", "", text)
        assert not re.search(r"[A-Za-z]{3,}", prose), text


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
    new = run_time._replace_paragraph(text, "**Run time**", "**Run time**: new.")
    assert new == "# Title\n\n**Run time**: new.\n\nNext paragraph."
    with pytest.raises(ValueError, match="no paragraph"):
        run_time._replace_paragraph("nothing here", "**Run time**", "x")


def test_the_report_prints_this_run_beside_the_measurement(capsys):
    run_time.report(0.0, STEMS[1])
    printed = capsys.readouterr().out
    warm = run_time.rounded(run_time.load().notebooks[STEMS[1]].warm)
    assert printed.startswith("This run: ") and f"Measured for the book: {warm} s" in printed
