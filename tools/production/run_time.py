"""The book's run-time statements, rewritten from the measurement (``make notebook-times``).

Each notebook's opening **Run time** paragraph and README's run-time sentence are made by
:func:`opening` and :func:`readme_line` from ``bench/results/notebook_times.json``
(:func:`mishgrad.book.run_time.load`), in English and in each translation, so that no two
statements disagree; ``tests/rules/run_time.py`` holds the texts to them. After a new
measurement, ``python -m tools.production.run_time --write`` rewrites them (notebooks,
translations, READMEs).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Final

import nbformat

from mishgrad.book import i18n
from mishgrad.book.run_time import RunTimes, load, rounded
from mishgrad.book.translation_files import language_dir
from mishgrad.paths import REPOSITORY

from .translation_entries import english_hash

NOTEBOOKS: Final = REPOSITORY / "notebooks"
#: The opening paragraph's first words, per language: where :func:`write_statements` finds it.
_OPENING_LEAD: Final = {i18n.ENGLISH: "**Run time**", "zh-CN": "**运行时间**"}
_READMES: Final = {i18n.ENGLISH: REPOSITORY / "README.md", "zh-CN": REPOSITORY / "README.zh-CN.md"}
#: README's run-time sentence, as :func:`readme_line` writes it (the figures aside).
_README_LINE: Final = {
    i18n.ENGLISH: re.compile(r"Each notebook runs in .*?cores\)\.", re.S),
    "zh-CN": re.compile(r"CPU 孪生构建好之后，每个 notebook.*?核）。", re.S),
}


def uses_scratch(stem: str) -> bool:
    """Whether notebook ``stem`` builds a scratch copy of the kernel (so it rebuilds on edits)."""
    return "scratch_kernel(" in (NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8")


def opening(stem: str, language: str = i18n.ENGLISH, times: RunTimes | None = None) -> str:
    """The **Run time** paragraph of notebook ``stem``'s opening cell, in ``language``."""
    times = times or load()
    mine = times.notebooks[stem]
    text = (
        f"**Run time**: {rounded(mine.warm)} s, or {rounded(mine.first)} s from an empty build "
        f"cache (`bench/notebook_times.py`, {times.cores} cores)."
    )
    if uses_scratch(stem):
        text += f" A scratch-kernel rebuild after an edit: about {rounded(times.twin_edit)} s."
    text += " The lesson's last cell times your run."
    return _joined([i18n.translate(part, language) for part in _sentences(text)])


def readme_line(language: str = i18n.ENGLISH, times: RunTimes | None = None) -> str:
    """README's run-time sentence, in ``language``."""
    times = times or load()
    warm = [t.warm for t in times.notebooks.values()]
    first = sum(t.first for t in times.notebooks.values())  # in book order, the cache empty
    text = (
        f"Each notebook runs in {rounded(max(warm))} s or less once the CPU twin is built, all "
        f"{len(times.notebooks)} in {rounded(sum(warm))} s; the first time, from an empty "
        f"build cache, all of them take {rounded(first)} s "
        f"(`bench/notebook_times.py`, {times.cores} cores)."
    )
    return i18n.translate(text, language)


def _sentences(text: str) -> list[str]:
    """The paragraph's sentences (each one translation entry)."""
    return re.split(r"(?<=\.) (?=[A-Z])", text)


def _joined(sentences: list[str]) -> str:
    """Sentences in a row: a space after a Latin full stop, none after a Chinese one."""
    text = sentences[0]
    for sentence in sentences[1:]:
        text += ("" if text.endswith("。") else " ") + sentence
    return text


def _replace_paragraph(text: str, lead: str, paragraph: str) -> str:
    """``text`` with the paragraph starting at ``lead`` replaced by ``paragraph``."""
    pattern = re.compile(re.escape(lead) + r".*?(?=\n\s*\n|\Z)", re.S)
    if not pattern.search(text):
        raise ValueError(f"no paragraph starting {lead!r}")
    return pattern.sub(lambda _: paragraph, text, count=1)


def write_statements(times: RunTimes | None = None) -> list[Path]:
    """Rewrite every run-time statement from ``times``; return the files changed."""
    times = times or load()
    changed = []
    for stem in times.notebooks:
        path = NOTEBOOKS / f"{stem}.ipynb"
        notebook = nbformat.read(path, as_version=4)
        cell = notebook.cells[0]
        old_source = cell.source
        source = _replace_paragraph(
            old_source, _OPENING_LEAD[i18n.ENGLISH], opening(stem, times=times)
        )
        if source != old_source:
            cell.source = source
            nbformat.write(notebook, path)
            changed.append(path)
        for language in (lang for lang in _OPENING_LEAD if lang != i18n.ENGLISH):
            changed += _write_translation(stem, cell["id"], old_source, source, language, times)
    for language, readme in _READMES.items():
        text = readme.read_text(encoding="utf-8")
        line = readme_line(language, times)
        new = _README_LINE[language].sub(lambda _, line=line: line, text, count=1)
        if new == text and line not in text:
            raise ValueError(f"{readme.name}: no run-time sentence found")
        if new != text:
            readme.write_text(new, encoding="utf-8")
            changed.append(readme)
    return changed


def _write_translation(
    stem: str, cell_id: str, old_source: str, source: str, language: str, times: RunTimes
) -> list[Path]:
    """Rewrite the opening cell's translation (its paragraph, and its hash if still current)."""
    path = language_dir(language) / f"{stem}.md"
    text = path.read_text(encoding="utf-8")
    marker = re.compile(rf"^<!-- cell {re.escape(cell_id)} en=([0-9a-f]{{12}}) -->\n", re.M)
    found = marker.search(text)
    if found is None:
        raise ValueError(f"{path}: no translation of cell {cell_id}")
    following = re.compile(r"^<!-- ", re.M).search(text, found.end())
    end = following.start() if following else len(text)
    body = _replace_paragraph(
        text[found.end() : end], _OPENING_LEAD[language], opening(stem, language, times)
    )
    current = found.group(1) == english_hash(old_source)  # a stale translation stays stale
    header = f"<!-- cell {cell_id} en={english_hash(source) if current else found.group(1)} -->\n"
    new = text[: found.start()] + header + body + text[end:]
    if new == text:
        return []
    path.write_text(new, encoding="utf-8")
    return [path]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tools.production.run_time --write")
    for written in write_statements():
        print(f"wrote {written.relative_to(REPOSITORY)}")
