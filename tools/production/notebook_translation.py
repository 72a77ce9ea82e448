"""Build the translated notebooks from the English ones and their translation files.

One source of truth for code: a translated notebook is the English notebook with each markdown
cell replaced by its translation (``translations/<language>/<notebook>.md``, see
:mod:`mishgrad.book.translation_files`), every code cell unchanged, and one code cell added before
the first code cell that switches the helpers' output language (:func:`mishgrad.book.language.use`).

Run ``python -m tools.production.notebook_translation``:

``todo NOTEBOOK`` (or ``todo mishgrad``)
    print, in the file format, every markdown cell of an English notebook that has no
    translation or whose English changed since it was translated, and every string its code
    shows that has no translation: the text to translate (``mishgrad``: the helper modules'
    strings, for ``translations/<language>/mishgrad.md``).
``build [--force] [NOTEBOOK ...]``
    write ``notebooks/<language>/*.ipynb`` (all, or those of the English notebooks named);
    outputs of unchanged code cells are kept, ``make notebooks`` executes the rest. Where a
    learner typed into a cell or added one (:mod:`tools.production.learner_edits`), ``build``
    writes nothing and names the notebooks and cells (exit 1); ``--force``
    (``make notebooks FORCE=1``) backs each such notebook up to ``build/backup/<language>/``
    first, never over an earlier backup.
``english-outputs TRANSLATED_NOTEBOOK``
    list English prose left in a translated notebook's stored outputs (exit 1 if any).
``check [NOTEBOOK | mishgrad]``
    list every problem of one notebook, of the helper modules' strings, or of all (an
    untranslated or stale cell, a translation that dropped a link, code span or formula, a
    translation of a cell that no longer exists, a string without translation, a generated
    notebook out of date); exit 1 if there is one.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from mishgrad.book import i18n
from mishgrad.book.translation_files import LANGUAGES, TranslationFile, language_dir, parse
from mishgrad.kernel.source import shown
from mishgrad.paths import REPOSITORY

from . import output_strings
from .learner_edits import LearnerEditsError, Rewrite, cell_source, learner_cells, stamp, write
from .translation_entries import cell_entry, english_hash, join_cjk_lines, rebased, text_entry

NOTEBOOKS: Final = REPOSITORY / "notebooks"
PACKAGE: Final = REPOSITORY / "mishgrad"
#: The translation file of the strings the helper modules show.
MODULES_FILE: Final = "mishgrad.md"
LANGUAGE_CELL_ID: Final = "output-language"
#: The one code cell a translated notebook adds, before its first: the helpers' language.
LANGUAGE_CELL: Final = '{comment}\nfrom mishgrad.book import language\n\nlanguage.use("{language}")'
LANGUAGE_COMMENT: Final = {
    "zh-CN": "# 输出语言：计算出的句子、表格、图中文字和练习判定以中文显示。\n"
    "# 这是中文版唯一多出的代码单元格；其余代码与英文版完全相同。",
}


def english_notebooks() -> list[Path]:
    """The English notebooks, in order."""
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def translated_path(english: Path, language: str) -> Path:
    """Where the translation of an English notebook is written."""
    return NOTEBOOKS / language / english.name


def translation_path(english: Path, language: str) -> Path:
    """The translation file of an English notebook."""
    return language_dir(language) / f"{english.stem}.md"


def _lines(text: str) -> list[str]:
    """A cell source as nbformat stores it: a list of lines, each with its newline."""
    return text.splitlines(keepends=True)


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _translations(english: Path, language: str) -> TranslationFile | None:
    path = translation_path(english, language)
    return parse(path) if path.exists() else None


@dataclass(frozen=True)
class Problem:
    """One reason a translation is not in step with its English notebook."""

    notebook: str
    cell_id: str
    reason: str

    def __str__(self) -> str:
        return f"{self.notebook}: cell {self.cell_id}: {self.reason}"


# What a translation must carry over unchanged: link targets, inline code, math, headings.
_KEPT: Final = {
    "link targets": re.compile(r"\]\(([^)\s]+)\)"),
    "code spans": re.compile(r"(`+)(.+?)\1", re.DOTALL),
    "math": re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.DOTALL),
    "heading levels": re.compile(r"^(#+) ", re.MULTILINE),
}


def _kept(text: str, pattern: re.Pattern[str]) -> Counter[str]:
    without_code = text if pattern is _KEPT["code spans"] else _KEPT["code spans"].sub("", text)
    return Counter(
        m.group(0) if pattern.groups == 0 else m.group(m.re.groups)
        for m in pattern.finditer(without_code)
    )


def kept_problems(english: str, translation: str) -> list[str]:
    """What a translated cell lost or added among the things it must keep unchanged."""
    problems = []
    for what, pattern in _KEPT.items():
        lost = _kept(english, pattern) - _kept(translation, pattern)
        added = _kept(translation, pattern) - _kept(english, pattern)
        if lost or added:
            problems.append(f"{what} differ: missing {sorted(lost)}, extra {sorted(added)}")
    return problems


def cell_problems(english: Path, language: str) -> list[Problem]:
    """Markdown cells untranslated or stale, and translations of cells that are gone."""
    notebook = _load(english)
    found = _translations(english, language)
    translated = found.cells if found else {}
    problems = []
    markdown_ids = set()
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        markdown_ids.add(cell["id"])
        entry = translated.get(cell["id"])
        if entry is None:
            problems.append(Problem(english.name, cell["id"], "not translated"))
        elif entry.english_hash != english_hash(cell_source(cell)):
            problems.append(
                Problem(english.name, cell["id"], "the English changed since its translation")
            )
        else:
            problems += [
                Problem(english.name, cell["id"], text)
                for text in kept_problems(cell_source(cell), entry.text)
            ]
    problems += [
        Problem(english.name, cell_id, "translated, but the English notebook has no such cell")
        for cell_id in translated.keys() - markdown_ids
    ]
    return problems


def module_templates() -> list[str]:
    """The templates of every helper module (:mod:`tools.production.output_strings`)."""
    found: dict[str, None] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found.update(dict.fromkeys(output_strings.templates_in_source(path.read_text())))
    return list(found)


def _translation_of(template: str, language: str) -> str | None:
    """The translation of a template, or ``None``; exact entries are keyed without ``{{ }}``."""
    exact, compiled = i18n.catalog(language)
    plain = template.replace("{{", "{").replace("}}", "}")
    with_fields = next((t.translation for t in compiled if t.english == template), None)
    return exact.get(plain, with_fields)


def _text_problems(where: str, templates: list[str], language: str) -> list[Problem]:
    problems = []
    for template in templates:
        translation = _translation_of(template, language)
        if translation is None:
            problems.append(Problem(where, "text", f"not translated: {template!r}"))
        elif sorted(i18n.fields_of(translation)) != sorted(i18n.fields_of(template)):
            problems.append(
                Problem(where, "text", f"fields differ from the English in {template!r}")
            )
        else:
            problems += [
                Problem(where, "text", f"{text} in {template!r}")
                for text in kept_problems(template, translation)
            ]
    return problems


def text_problems(english: Path, language: str) -> list[Problem]:
    """Strings the notebook's code shows that have no translation (or the wrong fields)."""
    return _text_problems(english.name, output_strings.templates_in_notebook(english), language)


def module_problems(language: str) -> list[Problem]:
    """Strings the helper modules show that have no translation (or the wrong fields)."""
    return _text_problems(MODULES_FILE, module_templates(), language)


def todo(english: Path, language: str) -> str:
    """The entries still to translate, in the file format, with the English as their text."""
    notebook = _load(english)
    wanted = {p.cell_id for p in cell_problems(english, language)}
    cells = "".join(
        cell_entry(cell["id"], cell_source(cell), cell_source(cell))
        for cell in notebook["cells"]
        if cell["cell_type"] == "markdown" and cell["id"] in wanted
    )
    return cells + _todo_texts(output_strings.templates_in_notebook(english), language)


def _todo_texts(templates: list[str], language: str) -> str:
    return "".join(text_entry(t, t) for t in templates if _translation_of(t, language) is None)


def _outputs_by_id(notebook: dict) -> dict[str, tuple[str, dict]]:
    return {
        cell["id"]: (cell_source(cell), cell)
        for cell in notebook.get("cells", [])
        if cell["cell_type"] == "code"
    }


def _language_cell(language: str, previous: dict[str, tuple[str, dict]]) -> dict:
    source = LANGUAGE_CELL.format(comment=LANGUAGE_COMMENT[language], language=language)
    cell = {
        "cell_type": "code",
        "execution_count": None,
        "id": LANGUAGE_CELL_ID,
        "metadata": {},
        "outputs": [],
        "source": _lines(source),
    }
    return _keep_outputs(cell, previous)


def _keep_outputs(cell: dict, previous: dict[str, tuple[str, dict]]) -> dict:
    old = previous.get(cell["id"])
    if old and old[0] == cell_source(cell):
        cell["outputs"] = old[1].get("outputs", [])
        cell["execution_count"] = old[1].get("execution_count")
    else:
        cell["outputs"], cell["execution_count"] = [], None
    return cell


def translate_notebook(english: Path, language: str) -> dict:
    """The translated notebook as JSON (outputs kept from the current file where code is same).

    Raises
    ------
    ValueError
        If a markdown cell is untranslated or stale (the message lists them).

    """
    problems = cell_problems(english, language)
    if problems:
        raise ValueError("\n".join(map(str, problems)))
    return _generated(english, language, _stored(translated_path(english, language)))


def _stored(path: Path) -> dict:
    """A translated notebook as stored (``{}``: none yet)."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _generated(english: Path, language: str, before: dict) -> dict:
    """:func:`translate_notebook` once its cells are known to be current (``before``: stored)."""
    notebook = copy.deepcopy(_load(english))
    found = _translations(english, language)
    assert found is not None  # no problems means every cell has its translation
    previous = _outputs_by_id(before)
    cells = []
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            cell["source"] = _lines(rebased(join_cjk_lines(found.cells[cell["id"]].text)))
        elif cell["cell_type"] == "code":
            if not any(c["cell_type"] == "code" for c in cells):
                cells.append(_language_cell(language, previous))
            cell = _keep_outputs(cell, previous)
        cells.append(cell)
    notebook["cells"] = [stamp(cell) for cell in cells]
    notebook["metadata"]["mishgrad"] = {"english": f"../{english.name}", "language": language}
    # The widgets' stored drawings are the translated notebook's own (made when it ran, in its
    # language), never the English notebook's.
    notebook["metadata"].pop("widgets", None)
    if "widgets" in before.get("metadata", {}):
        notebook["metadata"]["widgets"] = before["metadata"]["widgets"]
    return notebook


def _dump(notebook: dict) -> str:
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def _content(notebook: dict) -> tuple[object, ...]:
    """What the generator decides: each cell's kind, id and source, and the language."""
    cells = tuple((c["cell_type"], c["id"], cell_source(c)) for c in notebook["cells"])
    return cells, notebook["metadata"].get("mishgrad")


def stale_notebooks(language: str) -> list[Problem]:
    """Generated notebooks that are missing or differ from what ``build`` would write."""
    problems = []
    for english in english_notebooks():
        target = translated_path(english, language)
        if not target.exists():
            problems.append(Problem(english.name, "-", f"{target.name} is not generated"))
            continue
        try:
            wanted = _content(translate_notebook(english, language))
        except ValueError:
            continue  # reported by cell_problems
        if _content(_load(target)) != wanted:
            problems.append(
                Problem(
                    english.name, "-", f"{target.relative_to(REPOSITORY)} is out of date: build"
                )
            )
    return problems


def _rewrite(english: Path, language: str) -> Rewrite | None:
    """The rewrite of one translated notebook, or ``None`` if it is already as generated."""
    target = translated_path(english, language)
    before = _stored(target)
    generated = _generated(english, language, before)  # cell_problems passed
    if generated == before:  # the same notebook, whatever order its file writes the keys in
        return None
    return Rewrite(target, _dump(generated), learner_cells(before, generated))


def build(
    language: str, notebooks: list[Path] | None = None, force: bool = False
) -> tuple[list[Path], dict[str, list[Problem]], list[Path]]:
    """Write the translated notebooks (all, or those of ``notebooks``).

    A notebook whose markdown cells are not all translated and current is left as it is
    (the English can be edited and run before its translation catches up; the tests then
    name the cells). A notebook with cells a learner typed in is not overwritten unless
    ``force``, and then only after a backup (:func:`tools.production.learner_edits.write`).
    Returns the paths written, by notebook what kept one from being written, and the backups.

    Raises
    ------
    LearnerEditsError
        Without ``force``, if a notebook to write holds a learner's cells (nothing is written).

    """
    rewrites, skipped = [], {}
    for english in notebooks or english_notebooks():
        problems = cell_problems(english, language)
        if problems:
            skipped[english.name] = problems
        elif rewrite := _rewrite(english, language):
            rewrites.append(rewrite)
    backups = write(rewrites, force)
    return [r.target for r in rewrites], skipped, backups


def notebook_problems(english: Path, language: str) -> list[Problem]:
    """Every problem of one notebook's translation: its markdown cells and its outputs."""
    return cell_problems(english, language) + text_problems(english, language)


def check(language: str) -> list[Problem]:
    """Every problem of one language's translations."""
    problems = [p for e in english_notebooks() for p in notebook_problems(e, language)]
    problems += module_problems(language)
    return problems + stale_notebooks(language)


def _build_command(args: list[str], language: str) -> int:
    """``build [--force] [NOTEBOOK ...]``: exit 1 if a learner's cells kept a notebook."""
    chosen = [Path(a).resolve() for a in args if a != "--force"] or None
    try:
        written, skipped, backups = build(language, chosen, force="--force" in args)
    except LearnerEditsError as refusal:
        print(refusal, file=sys.stderr)
        return 1
    for path in backups:
        print(f"backed up {shown(path)}")
    for path in written:
        print(f"wrote {shown(path)}")
    for name, problems in skipped.items():
        print(f"not rebuilt: {name}, {len(problems)} cells to translate (todo {name})")
    return 0


def main(argv: list[str]) -> int:
    """The command line (see the module docstring)."""
    usage = (
        "usage: python -m tools.production.notebook_translation "
        "todo NOTEBOOK|mishgrad | build [--force] [NOTEBOOK...] | check [NOTEBOOK|mishgrad] "
        "| english-outputs TRANSLATED_NOTEBOOK"
    )
    language = LANGUAGES[0]
    if argv == ["todo", "mishgrad"]:
        print(_todo_texts(module_templates(), language), end="")
        return 0
    if argv[:1] == ["todo"] and len(argv) == 2:
        print(todo(Path(argv[1]).resolve(), language), end="")
        return 0
    if argv[:1] == ["english-outputs"] and len(argv) == 2:
        found = output_strings.english_in_outputs(_load(Path(argv[1])))
        print("\n".join(f"cell {cell}: {text}" for cell, text in found) or "no English prose")
        return 1 if found else 0
    if argv[:1] == ["build"]:
        return _build_command(argv[1:], language)
    if argv[:1] == ["check"] and len(argv) <= 2:
        one = argv[1:]
        if one == ["mishgrad"]:
            problems = module_problems(language)
        else:
            problems = notebook_problems(Path(one[0]), language) if one else check(language)
        print("\n".join(map(str, problems)) or "translations in step")
        return 1 if problems else 0
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
