"""Every run-time statement of the book is the measured figure (mishgrad.book.run_time).

Each notebook's opening, its translation's and both READMEs state what
``bench/results/notebook_times.json`` measured, as :func:`statements.opening` and
:func:`statements.readme_line` write it; the Chinese statements are Chinese; and each lesson
ends with the cell that times the learner's run beside the measurement.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

from census_tool import cell_census

from mishgrad.book import run_time
from mishgrad.book.translation_files import language_dir, parse
from rules.shared import (
    LANGUAGE,
    ROOT,
    Rule,
    code_cells,
    english_notebooks,
    in_each,
    notebook,
    source,
    text,
    where,
)
from tools.production import run_time as statements
from tools.production.translation_entries import join_cjk_lines

#: What a Chinese statement may keep in Latin letters: code, bold marks, figures, CPU, notebook.
#: (Stricter than tools/production/output_strings.py's English detector, which needs three
#: words in a row: a statement is one short sentence, and one untranslated word in it is
#: already wrong.)
NOT_ENGLISH = re.compile(r"`[^`]*`|\*\*|\d+(\.\d)?|CPU|notebook")
ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")
#: Where a statement is made, the statement, and the text that must make it.
Stated = list[tuple[str, str, str]]


def flat(text: str) -> str:
    """Text with its line breaks joined as Markdown renders them."""
    return " ".join(join_cjk_lines(text).split())


def english_statements(times: run_time.RunTimes) -> Stated:
    """Each English notebook's opening and README.md, with the statements they must make."""
    stated = [
        (
            where(path),
            statements.opening(path.stem, times=times),
            source(notebook(path)["cells"][0]),
        )
        for path in english_notebooks()
    ]
    readme = statements.readme_line(times=times)
    return [*stated, ("README.md", readme, text(ROOT / "README.md"))]


def chinese_statements(times: run_time.RunTimes) -> Stated:
    """Each opening's translation and README.zh-CN.md, with the statements they must make."""
    stated = []
    for path in english_notebooks():
        translation = language_dir(LANGUAGE) / f"{path.stem}.md"
        opening = parse(translation).cells[notebook(path)["cells"][0]["id"]].text
        statement = statements.opening(path.stem, LANGUAGE, times)
        stated.append((where(translation), statement, opening))
    readme = statements.readme_line(LANGUAGE, times)
    return [*stated, ("README.zh-CN.md", readme, text(ROOT / "README.zh-CN.md"))]


def unstated(stated: Stated) -> list[str]:
    """Texts that do not make their statement."""
    return [
        f"{place}: does not state {statement!r}"
        for place, statement, written in stated
        if flat(statement) not in flat(written)
    ]


def untranslated(stated: Stated) -> list[str]:
    """Chinese statements with English words left in them (a translation is missing)."""
    return [
        f"{place}: {statement!r} is not Chinese: {found}"
        for place, statement, _ in stated
        if (found := ENGLISH_WORD.findall(NOT_ENGLISH.sub("", statement)))
    ]


def unmeasured(stems: list[str], times: run_time.RunTimes) -> list[str]:
    """Notebooks without a measurement, or measurements of no notebook."""
    if list(times.notebooks) == stems:
        return []
    return [f"{run_time.RESULTS.name} measures {list(times.notebooks)}, the book is {stems}"]


def untimed(path: Path) -> list[str]:
    """A lesson whose last code cell does not report this notebook's run beside its time."""
    last = source(code_cells(cell_census.lesson(notebook(path)["cells"]))[-1])
    calls = [node for node in ast.walk(ast.parse(last)) if isinstance(node, ast.Call)]
    stems = [
        ast.literal_eval(call.args[1])
        for call in calls
        if ast.unparse(call.func) == "run_time.report"
    ]
    if stems == [path.stem]:
        return []
    return [f"{where(path)}: the lesson's last code cell times {stems}, not [{path.stem!r}]"]


def _remeasured() -> run_time.RunTimes:
    """A new measurement (one more core) that the statements were not rewritten for."""
    times = run_time.load()
    return dataclasses.replace(times, cores=times.cores + 1)


def _chinese_problems(stated: Stated) -> list[str]:
    return unstated(stated) + untranslated(stated)


def _an_untranslated_readme_line(_tmp: Path) -> list[str]:
    """As if README's sentence had no translation: the Chinese README checked against English."""
    readme = ("README.zh-CN.md", statements.readme_line(), text(ROOT / "README.zh-CN.md"))
    return _chinese_problems([*chinese_statements(run_time.load())[:-1], readme])


def _no_timed_run(nb: dict) -> None:
    code_cells(cell_census.lesson(nb["cells"]))[-1]["source"] = "print('done')"


RULES = [
    Rule(
        "every notebook's run time is measured",
        lambda: unmeasured([path.stem for path in english_notebooks()], run_time.load()),
        lambda _tmp: unmeasured(
            [*(path.stem for path in english_notebooks()), "12_new"], run_time.load()
        ),
        ("'12_new'",),
    ),
    Rule(
        "every English opening and README.md state the measured run times",
        lambda: unstated(english_statements(run_time.load())),
        lambda _tmp: unstated(english_statements(_remeasured())),
        ("does not state",),
    ),
    Rule(
        "every translated opening and README.zh-CN.md state the measured run times, in Chinese",
        lambda: _chinese_problems(chinese_statements(run_time.load())),
        _an_untranslated_readme_line,
        ("README.zh-CN.md: does not state", "README.zh-CN.md: 'Each notebook runs in"),
        stale=True,
    ),
    in_each(
        "every lesson ends with the cell that times its run",
        untimed,
        _no_timed_run,
        ("the lesson's last code cell times []",),
    ),
]
