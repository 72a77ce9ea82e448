"""What every rule shares: the :class:`Rule` record and the repository, read once per session.

Most rules read the notebooks, and the notebooks are big (24 of them, up to half a megabyte
each): every file is read and parsed once, here, and every rule gets the same object, so nothing
may edit what these readers return. A planted fault edits a copy written under the test's
temporary folder, at the file's path in the repository (:func:`planted_notebook`), and the rule
reads the copy as it reads the original.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The language of the translated edition.
LANGUAGE = "zh-CN"
#: A Han character: what makes a text Chinese (the one definition the rules use).
HAN = re.compile(r"[\u4e00-\u9fff]")
#: The notebook faults are planted in: it has exercises, worked solutions and a timed lesson.
PLANTED = ROOT / "notebooks" / "03_where_the_formulas_break.ipynb"
#: A check of one file: its problems, each naming the file and the place.
Core = Callable[[Path], list[str]]


class StaleTranslationWarning(UserWarning):
    """A Chinese edition lagging the English, a warning under ``--stale-translations=warn``."""


@dataclass(frozen=True)
class Rule:
    """One rule the repository keeps: its check, and a fault planted to show the check can fail.

    ``check`` lists the repository's problems, each naming its file and place; ``planted`` runs
    the same check on inputs with faults planted in them (under the temporary folder given);
    each problem it finds contains one of ``expect`` and each of ``expect`` is in a problem, so
    the plant proves every fault is caught and nothing else is reported. ``stale`` marks a rule
    whose problems mean the Chinese edition lags the English.
    """

    name: str
    check: Callable[[], list[str]]
    planted: Callable[[Path], list[str]]
    expect: tuple[str, ...]
    stale: bool = False


@cache
def text(path: Path) -> str:
    """A file of the repository (or of a planted copy), read once."""
    return path.read_text(encoding="utf-8")


@cache
def notebook(path: Path) -> dict:
    """A notebook as JSON, parsed once: shared, so never edited (see :func:`planted_notebook`)."""
    return json.loads(text(path))


def source(cell: dict) -> str:
    """A cell's source (nbformat stores a list of lines or one string)."""
    lines = cell["source"]
    return lines if isinstance(lines, str) else "".join(lines)


def code_cells(cells: list[dict]) -> list[dict]:
    """The code cells among a notebook's ``cells``, in order."""
    return [cell for cell in cells if cell["cell_type"] == "code"]


def english_notebooks(root: Path = ROOT) -> list[Path]:
    """The English notebooks, in book order."""
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def chinese_notebooks(root: Path = ROOT) -> list[Path]:
    """The generated Chinese notebooks, in book order."""
    return sorted((root / "notebooks" / LANGUAGE).glob("[0-9][0-9]_*.ipynb"))


def both_editions() -> list[Path]:
    """Every notebook of both editions: the English ones, then the Chinese ones."""
    return english_notebooks() + chinese_notebooks()


def translated(english: Path) -> Path:
    """The Chinese notebook generated from ``english``."""
    return english.parent / LANGUAGE / english.name


def english_of(chinese: Path) -> Path:
    """The English notebook a Chinese notebook (or a planted copy of one) is generated from."""
    return ROOT / "notebooks" / chinese.name


def where(path: Path) -> str:
    """How a problem names a file: by its path in the repository (a planted copy: in full)."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def planted_file(tmp: Path, relative: str, content: str) -> Path:
    """Write ``content`` at ``relative`` under ``tmp``: a planted copy of a repository file."""
    path = tmp / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return path


def planted_notebook(tmp: Path, path: Path, edit: Callable[[dict], object]) -> Path:
    """A copy of the notebook at ``path``, edited by ``edit``, at its own path under ``tmp``."""
    copied = copy.deepcopy(notebook(path))
    edit(copied)
    return planted_file(tmp, str(path.relative_to(ROOT)), json.dumps(copied, ensure_ascii=False))


def every(core: Core, paths: list[Path]) -> list[str]:
    """``core``'s problems in each of ``paths``."""
    return [problem for path in paths for problem in core(path)]


def on_a_copy(
    core: Core, edit: Callable[[dict], object], path: Path = PLANTED
) -> Callable[[Path], list[str]]:
    """A planted variant: ``core`` on a copy of the notebook at ``path``, edited by ``edit``."""
    return lambda tmp: core(planted_notebook(tmp, path, edit))


def in_each(
    name: str,
    core: Core,
    edit: Callable[[dict], object],
    expect: tuple[str, ...],
    notebooks: Callable[[], list[Path]] = english_notebooks,
    planted: Path = PLANTED,
    stale: bool = False,
) -> Rule:
    """The rule ``name`` that each of ``notebooks()`` keeps: ``core`` finds no problem in any.

    Its planted fault is ``edit`` on a copy of the notebook at ``planted``.
    """
    return Rule(
        name, lambda: every(core, notebooks()), on_a_copy(core, edit, planted), expect, stale
    )


def in_each_translation(
    name: str, core: Core, edit: Callable[[dict], object], expect: tuple[str, ...]
) -> Rule:
    """:func:`in_each` over the Chinese notebooks, one per English notebook, a stale rule.

    A missing Chinese notebook is a failure; the fault is planted in the Chinese copy of
    :data:`PLANTED`.
    """
    chinese = [translated(path) for path in english_notebooks()]
    return in_each(name, core, edit, expect, lambda: chinese, translated(PLANTED), stale=True)
