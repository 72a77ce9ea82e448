"""The bilingual glossary (docs/glossary.md): on the site, every row sourced, one meaning per term.

The Chinese edition (issue 12) takes its terms from this page, so the page must stay usable as a
look-up table: each row names the English term, its Chinese term, a one-line meaning in English
and the same in Chinese (the 含义 column), and either
a pinned link to the CANN page where the Chinese term was read or the explicit mark that CANN
has no official Chinese form for it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mishgrad import citations
from mishgrad.evaluation import precision

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "docs" / "glossary.md"
NO_OFFICIAL_TERM = "(no official CANN term; usual usage)"
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
CJK = re.compile(r"[\u4e00-\u9fff]")


def rows(text: str) -> list[list[str]]:
    """The body rows of every pipe table in ``text``, as lists of stripped cells."""
    found = []
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[0] == "English" or set("".join(cells)) <= set("-: "):
            continue  # a header or the separator under it
        found.append(cells)
    return found


@pytest.fixture(scope="module")
def table() -> list[list[str]]:
    assert GLOSSARY.is_file(), "docs/glossary.md is missing"
    found = rows(GLOSSARY.read_text(encoding="utf-8"))
    assert len(found) >= len(REQUIRED) // 2, "the glossary has hardly any rows"
    return found


def test_the_glossary_is_in_a_toctree() -> None:
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    toctrees = re.findall(r"```\{toctree\}(.*?)```", index, flags=re.S)
    entries = {line.strip() for tree in toctrees for line in tree.splitlines()}
    assert "glossary" in entries


def test_the_intro_is_in_both_languages() -> None:
    intro = GLOSSARY.read_text(encoding="utf-8").split("\n|", 1)[0]
    assert "notebooks/zh-CN" in intro and CJK.search(intro)


def unsourced(table: list[list[str]]) -> list[str]:
    """Rows without five filled cells, or without a pinned source line or the explicit mark."""
    problems = []
    for cells in table:
        if len(cells) != 5 or not all(cells):
            problems.append(f"a row needs 5 filled cells: {cells}")
            continue
        english, _chinese, _meaning, _chinese_meaning, source = cells
        links = LINK.findall(source)
        if not links and source != NO_OFFICIAL_TERM:
            problems.append(f"{english}: no source and no mark")
        for url in links:
            if not any(url.startswith(prefix) for prefix in PINNED):
                problems.append(f"{english}: {url} is not at a pinned commit")
            if not re.search(r"#L\d+(-L\d+)?$", url):
                problems.append(f"{english}: {url} names no lines")
    return problems


def ambiguous(table: list[list[str]]) -> list[str]:
    """Chinese terms given for two different English terms."""
    meaning: dict[str, str] = {}
    problems = []
    for english, chinese, *_ in table:
        known = meaning.setdefault(chinese, english)
        if known != english:
            problems.append(f"{chinese} translates both {known!r} and {english!r}")
    return problems


def test_every_row_is_complete_and_sourced(table: list[list[str]]) -> None:
    assert not unsourced(table)


def untranslated(table: list[list[str]]) -> list[str]:
    """Rows whose 含义 (Chinese meaning) cell is missing, empty or has no Chinese characters."""
    return [
        f"{cells[0]}: no Chinese meaning"
        for cells in table
        if len(cells) < 5 or not CJK.search(cells[3])
    ]


def test_every_table_has_a_chinese_meaning_column() -> None:
    text = GLOSSARY.read_text(encoding="utf-8")
    headers = [line for line in text.splitlines() if line.startswith("| English")]
    assert headers, "the glossary has no tables"
    for header in headers:
        assert [c.strip() for c in header.strip().strip("|").split("|")] == [
            "English",
            "中文",
            "Meaning",
            "含义",
            "Source",
        ], header


def test_every_row_has_a_chinese_meaning(table: list[list[str]]) -> None:
    assert not untranslated(table)


def test_no_chinese_term_has_two_english_meanings(table: list[list[str]]) -> None:
    assert not ambiguous(table)


def test_the_terms_the_textbook_uses_are_there(table: list[list[str]]) -> None:
    words = " / ".join(cells[0].lower() for cells in table)
    missing = [term for term in REQUIRED if not re.search(rf"\b{re.escape(term)}\b", words)]
    assert not missing, f"terms missing from the glossary: {missing}"


def test_the_checks_catch_a_bad_table() -> None:
    commit = citations.OPBASE[1]
    url = f"https://gitcode.com/cann/opbase/blob/{commit}/a.md"
    bad = rows(
        "| English | 中文 | Meaning | 含义 | Source |\n|---|---|---|---|---|\n"
        "| Tail | 尾块 | the last piece | 最后一段 | |\n"
        f"| Tile | 尾块 | one piece | 一块 | [x]({url}) |\n"
        "| Stride | 步长 | step | 间距 | [x](https://gitcode.com/cann/opbase/blob/main/a.md#L3) |\n"
        f"| View | 视图 | a view | a view | {NO_OFFICIAL_TERM} |\n"
    )
    assert len(bad) == 4
    assert unsourced(bad) == [
        "a row needs 5 filled cells: ['Tail', '尾块', 'the last piece', '最后一段', '']",
        f"Tile: https://gitcode.com/cann/opbase/blob/{commit}/a.md names no lines",
        "Stride: https://gitcode.com/cann/opbase/blob/main/a.md#L3 is not at a pinned commit",
    ]
    assert ambiguous(bad) == ["尾块 translates both 'Tail' and 'Tile'"]
    assert untranslated(bad) == ["View: no Chinese meaning"]
