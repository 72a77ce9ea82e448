"""The bilingual glossary (docs/glossary.md): on the site, every row sourced, one meaning per term.

The Chinese edition takes its terms from this page, so the page must stay usable as a look-up
table: each row names the English term, its Chinese term, a one-line meaning in English and the
same in Chinese (the 含义 column), and either a pinned link to the CANN page where the Chinese
term was read or the explicit mark that CANN has no official Chinese form for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mishgrad import citations
from mishgrad.evaluation import precision
from rules.shared import HAN, ROOT, Rule, text

GLOSSARY = "docs/glossary.md"
NO_OFFICIAL_TERM = "(no official CANN term; usual usage)"
COLUMNS = ["English", "中文", "Meaning", "含义", "Source"]
#: The commits a source link may pin: the ones mishgrad/citations.py and precision.py name.
PINNED = {
    f"{base}/blob/{commit}/"
    for base, commit in (
        citations.ASC_DEVKIT,
        citations.OPBASE,
        citations.OPS_NN,
        precision.OPBASE_FIRST_RELEASE,
    )
}
#: Terms the textbook uses and the translation must find here (English column, lower case).
REQUIRED = (
    "unified buffer",
    "vector core",
    "ai core",
    "kernel function",
    "tiling",
    "tiling data",
    "tiling key",
    "blockdim",
    "core count",
    "tail",
    "double buffering",
    "tque",
    "tpipe",
    "initbuffer",
    "enque",
    "deque",
    "datacopy",
    "datacopypad",
    "global memory",
    "workspace",
    "two-phase interface",
    "executor",
    "precision standard",
    "mere",
    "mare",
    "golden",
    "custom operator package",
    "vendor",
    "cpu twin debugging",
    "printf",
    "dumptensor",
    "ulp",
    "oracle",
    "broadcast",
    "type promotion",
    "view",
    "stride",
    "in-place",
    "tile",
    "memory block",
    "widen",
    "worked solution",
)
LINK = re.compile(r"\]\((https?://[^)\s]+)\)")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def rows(text: str) -> list[list[str]]:
    """The body rows of every pipe table in ``text``, as lists of stripped cells."""
    found = []
    for line in text.splitlines():
        cells = _cells(line)
        if line.startswith("|") and cells[0] != "English" and not set("".join(cells)) <= set("-: "):
            found.append(cells)  # not a header, nor the separator under it
    return found


def in_a_toctree(index: str) -> list[str]:
    """The site's index lists the glossary in a toctree."""
    toctrees = re.findall(r"```\{toctree\}(.*?)```", index, flags=re.S)
    if "glossary" in {line.strip() for tree in toctrees for line in tree.splitlines()}:
        return []
    return ["docs/index.md: the glossary is in no toctree"]


def intro_problems(glossary: str) -> list[str]:
    """The introduction, above the first table, speaks to both editions' readers."""
    intro = glossary.split("\n|", 1)[0]
    problems = []
    if not HAN.search(intro):
        problems.append(f"{GLOSSARY}: the intro has no Chinese")
    if "notebooks/zh-CN" not in intro:
        problems.append(f"{GLOSSARY}: the intro does not name notebooks/zh-CN")
    return problems


def header_problems(glossary: str) -> list[str]:
    """Every table has the five columns, 含义 among them."""
    headers = [_cells(line) for line in glossary.splitlines() if line.startswith("| English")]
    if not headers:
        return [f"{GLOSSARY}: no tables"]
    return [
        f"{GLOSSARY}: a table's columns are {h}, not {COLUMNS}" for h in headers if h != COLUMNS
    ]


def unsourced(table: list[list[str]]) -> list[str]:
    """Rows without five filled cells, or without a pinned source line or the explicit mark."""
    problems = []
    for cells in table:
        if len(cells) != len(COLUMNS) or not all(cells):
            problems.append(f"a row needs 5 filled cells: {cells}")
            continue
        english, *_, source = cells
        links = LINK.findall(source)
        if not links and source != NO_OFFICIAL_TERM:
            problems.append(f"{english}: no source and no mark")
        for url in links:
            if not any(url.startswith(prefix) for prefix in PINNED):
                problems.append(f"{english}: {url} is not at a pinned commit")
            if not re.search(r"#L\d+(-L\d+)?$", url):
                problems.append(f"{english}: {url} names no lines")
    return problems


def untranslated(table: list[list[str]]) -> list[str]:
    """Rows whose 含义 (Chinese meaning) cell is missing, empty or has no Chinese characters."""
    return [
        f"{cells[0]}: no Chinese meaning"
        for cells in table
        if len(cells) < len(COLUMNS) or not HAN.search(cells[3])
    ]


def ambiguous(table: list[list[str]]) -> list[str]:
    """Chinese terms given for two different English terms."""
    meaning: dict[str, str] = {}
    problems = []
    for english, chinese, *_ in table:
        known = meaning.setdefault(chinese, english)
        if known != english:
            problems.append(f"{chinese} translates both {known!r} and {english!r}")
    return problems


def missing_terms(table: list[list[str]]) -> list[str]:
    """The terms the textbook uses that no row names (and a table with hardly any rows)."""
    words = " / ".join(cells[0].lower() for cells in table)
    missing = [term for term in REQUIRED if not re.search(rf"\b{re.escape(term)}\b", words)]
    problems = [f"terms missing from the glossary: {missing}"] if missing else []
    if len(table) < len(REQUIRED) // 2:
        problems.append(f"only {len(table)} rows: the glossary has hardly any")
    return problems


def _table(core: Callable[[list[list[str]]], list[str]], glossary: str) -> list[str]:
    """A rule on the glossary's rows, its problems named by the file."""
    return [f"{GLOSSARY}: {problem}" for problem in core(rows(glossary))]


def _glossary() -> str:
    return text(ROOT / GLOSSARY)


#: A table with one fault of each kind (tests the row rules on more than the real table).
_COMMIT = citations.OPBASE[1]
_URL = f"https://gitcode.com/cann/opbase/blob/{_COMMIT}/a.md"
BAD_TABLE = (
    "| English | 中文 | Meaning | 含义 | Source |\n|---|---|---|---|---|\n"
    "| Tail | 尾块 | the last piece | 最后一段 | |\n"
    f"| Tile | 尾块 | one piece | 一块 | [x]({_URL}) |\n"
    "| Stride | 步长 | step | 间距 | [x](https://gitcode.com/cann/opbase/blob/main/a.md#L3) |\n"
    f"| View | 视图 | a view | a view | {NO_OFFICIAL_TERM} |\n"
)


def _without(term: str) -> str:
    """The glossary without the rows whose English column is ``term``."""
    lines = _glossary().splitlines()
    return "\n".join(line for line in lines if not line.startswith(f"| {term} "))


RULES = [
    Rule(
        "the glossary is in a toctree of the site",
        lambda: in_a_toctree(text(ROOT / "docs" / "index.md")),
        lambda _tmp: in_a_toctree(text(ROOT / "docs" / "index.md").replace("glossary", "")),
        ("the glossary is in no toctree",),
    ),
    Rule(
        "the glossary's introduction is in both languages",
        lambda: intro_problems(_glossary()),
        lambda _tmp: intro_problems("# Glossary\n\nEnglish only.\n\n| English |"),
        ("the intro has no Chinese", "does not name notebooks/zh-CN"),
    ),
    Rule(
        "every glossary table has the columns English, Chinese, Meaning, Chinese meaning, Source",
        lambda: header_problems(_glossary()),
        lambda _tmp: header_problems(_glossary().replace(" 含义 |", "", 1)),
        ("a table's columns are ['English', '中文', 'Meaning', 'Source']",),
    ),
    Rule(
        "every glossary row is complete and sourced at a pinned commit and lines",
        lambda: _table(unsourced, _glossary()),
        lambda _tmp: _table(unsourced, BAD_TABLE),
        (
            "a row needs 5 filled cells: ['Tail', '尾块', 'the last piece', '最后一段', '']",
            f"Tile: {_URL} names no lines",
            "Stride: https://gitcode.com/cann/opbase/blob/main/a.md#L3 is not at a pinned commit",
        ),
    ),
    Rule(
        "every glossary row has a Chinese meaning",
        lambda: _table(untranslated, _glossary()),
        lambda _tmp: _table(untranslated, BAD_TABLE),
        ("View: no Chinese meaning",),
    ),
    Rule(
        "no Chinese term of the glossary translates two English terms",
        lambda: _table(ambiguous, _glossary()),
        lambda _tmp: _table(ambiguous, BAD_TABLE),
        ("尾块 translates both 'Tail' and 'Tile'",),
    ),
    Rule(
        "the glossary has every term the textbook uses",
        lambda: _table(missing_terms, _glossary()),
        lambda _tmp: _table(missing_terms, _without("Tail")),
        ("terms missing from the glossary: ['tail']",),
    ),
]
