r"""The translation files in ``translations/<language>/``, read (:func:`parse`).

One file per English notebook, plus one (``mishgrad.md``) for the strings the helper modules
print. A file is Markdown, so it reads and diffs like prose. Each entry starts with a marker line
(an HTML comment) and its translation runs to the next marker:

``<!-- cell 93e639ed en=4f1c0a9be2d1 -->``
    a markdown cell of the English notebook, by cell id, with the first 12 hex digits of the
    SHA-256 of the English source it translates. When the English cell is edited the hash no
    longer matches and ``tests/rules/translations.py`` names the cell.

``<!-- text: Blocks are {0} B and a tile holds {1} elements. -->``
    a string a learner reads in an output (a computed sentence, a table header, a figure label,
    a verdict), as an English template: the literal text of the f-string that produces it, with
    ``{0}``, ``{1}``, … for its fields in order. The translation uses the same numbered fields,
    in any order. Newlines in a template are written ``\\n``. An entry may also translate a
    string the code computes rather than writes (a word in a table cell, a field's value): it
    then matches that whole string.

The notebooks read the text entries (:mod:`mishgrad.book.i18n`); the Chinese notebooks are
made from the cell entries by ``tools/production/notebook_translation.py``, which also writes
entries (``tools/production/translation_entries.py``).
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from mishgrad.paths import REPOSITORY

TRANSLATIONS: Final = REPOSITORY / "translations"
LANGUAGES: Final = ("zh-CN",)

_MARKER: Final = re.compile(
    r"^<!-- (?:cell (?P<cell>[0-9A-Za-z_-]+) en=(?P<hash>[0-9a-f]{12})|text: (?P<text>.*)) -->$"
)


@dataclass(frozen=True)
class CellTranslation:
    """A translated markdown cell: its id, the hash of the English it translates, the text."""

    cell_id: str
    english_hash: str
    text: str


@dataclass(frozen=True)
class TranslationFile:
    """The parsed entries of one translation file."""

    path: Path
    cells: dict[str, CellTranslation]
    texts: dict[str, str]  # English template -> translated template


def unescape_template(written: str) -> str:
    r"""A template as written on a marker line (newlines as ``\n``), read back."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), written)


def parse(path: Path) -> TranslationFile:
    """Read a translation file.

    Raises
    ------
    ValueError
        Naming the file and line, for text before the first marker, a repeated cell or
        template, or an empty translation.
    """
    cells: dict[str, CellTranslation] = {}
    texts: dict[str, str] = {}
    entries: list[tuple[int, re.Match[str], list[str]]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        marker = _MARKER.match(line)
        if marker:
            entries.append((number, marker, []))
        elif entries:
            entries[-1][2].append(line)
        elif line.strip() and not line.startswith("# "):  # a title line may head the file
            raise ValueError(f"{path}:{number}: text before the first entry marker")
    for number, marker, lines in entries:
        body = "\n".join(lines).strip("\n")
        where = f"{path}:{number}"
        if not body.strip():
            raise ValueError(f"{where}: the entry has no translation")
        if marker["cell"]:
            if marker["cell"] in cells:
                raise ValueError(f"{where}: cell {marker['cell']} is translated twice")
            cells[marker["cell"]] = CellTranslation(marker["cell"], marker["hash"], body)
        else:
            template = unescape_template(marker["text"])
            if template in texts:
                raise ValueError(f"{where}: the template {template!r} is translated twice")
            texts[template] = body
    return TranslationFile(path, cells, texts)


def language_dir(language: str) -> Path:
    """``translations/<language>``, for a supported language."""
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {language!r}")
    return TRANSLATIONS / language
