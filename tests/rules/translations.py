"""The Chinese edition is in step with the English, in the glossary's terms, in short sentences.

Every English markdown cell has a translation written for its current text (a hash of the
English is stored with it) and every string the code shows has one; the generated notebooks are
what the generator writes, their code is the English code after one added cell, and their
stored outputs hold no English prose. Those rules are ``stale``: their problems mean the Chinese
edition lags the English. The Chinese texts a reader meets use the glossary's terms and chain
at most two clauses in a sentence, whatever the English does.
"""

from __future__ import annotations

import re
from pathlib import Path
from unittest import mock

from rules.shared import (
    HAN,
    LANGUAGE,
    PLANTED,
    ROOT,
    Rule,
    code_cells,
    english_notebooks,
    english_of,
    in_each,
    in_each_translation,
    notebook,
    planted_file,
    planted_notebook,
    source,
    text,
    translated,
    where,
)
from tools.production import notebook_translation, output_strings

# One English term, one Chinese term: the variants a translator might reach for instead.
# Only strings that cannot mean anything else belong here (扩展 may mean "extend", 缓冲区 is
# part of 统一缓冲区, so neither is listed); docs/glossary.md gives the term to use instead.
AVOIDED = {
    "向量": "CANN writes 矢量 for vector (docs/glossary.md)",
    "根窗口": "the root window is 零点窗口",
    "检查函数": "a checker is 检查器",
    "Host侧": "Host 侧, with a space (Latin beside Chinese)",
    "Device侧": "Device 侧, with a space (Latin beside Chinese)",
    "扩宽": "widening a 16-bit value to float32 is 升精度",
    "拓宽": "widening a 16-bit value to float32 is 升精度",
    "次正规": "a subnormal number is 非规格化数",
    "非正规数": "a subnormal number is 非规格化数",
    "执行轨迹": "a trace is trace（调用轨迹）",
    "参考答案": "a worked solution is 参考解答",
    "前向": "forward is 正向, as ops-nn's aclnnMishBackward.md writes it",
    "Ascend 主机": "an Ascend host is 昇腾主机 (昇腾, not the English name, in Chinese prose)",
    "Ascend 侧": "the Ascend side is 昇腾侧",
    "Ascend 核函数": "an Ascend kernel is 昇腾核函数",
}
#: At most this many "，" or "；" in one Chinese sentence: an opening phrase and two clauses.
#: A sentence that chains more is split (issue 19: long chains are hard to follow).
MAX_SEPARATORS = 2
_NOT_PROSE = [
    (r"```.*?```|<!--.*?-->|\$\$.*?\$\$", "\n\n"),  # code blocks, cell markers, display math
    (r"\$[^$\n]*\$|`[^`]*`|<[^>]+>", "X"),  # inline math, code, HTML tags
    (r"\]\([^)]*\)", "]"),  # link targets
]
#: Files the scan of Chinese texts must read (it reads every one of their kind).
SCANNED = (
    "README.zh-CN.md",
    "docs/glossary.md",
    f"docs/{LANGUAGE}/index.md",
    f"translations/{LANGUAGE}/05_the_ascendc_kernel.md",
)
#: The Chinese notebooks, one per English notebook (a missing one is an error, not a pass).
CHINESE = [translated(path) for path in english_notebooks()]
#: The code cell a Chinese notebook adds before the English code: (id, source).
LANGUAGE_CELL = (
    notebook_translation.LANGUAGE_CELL_ID,
    notebook_translation.LANGUAGE_CELL.format(
        comment=notebook_translation.LANGUAGE_COMMENT[LANGUAGE], language=LANGUAGE
    ),
)


def translation_problems(english: Path) -> list[str]:
    """Markdown cells untranslated or edited since their translation; strings untranslated."""
    return list(map(str, notebook_translation.notebook_problems(english, LANGUAGE)))


def module_problems() -> list[str]:
    """Strings the helper modules show that have no translation."""
    return list(map(str, notebook_translation.module_problems(LANGUAGE)))


def stale_notebooks() -> list[str]:
    """Generated notebooks missing, or not what the generator writes now."""
    return [f"{p}; run: make notebooks" for p in notebook_translation.stale_notebooks(LANGUAGE)]


def _code(path: Path) -> list[tuple[str, str]]:
    return [(cell["id"], source(cell)) for cell in code_cells(notebook(path)["cells"])]


def code_problems(chinese: Path) -> list[str]:
    """A Chinese notebook whose code is not the language cell, then the English code cells."""
    code, english = _code(chinese), _code(english_of(chinese))
    problems = []
    if code[:1] != [LANGUAGE_CELL]:
        problems.append(f"{where(chinese)}: its first code cell is not the language cell")
    if code[1:] != english:
        differ = [ours for ours, theirs in zip(code[1:], english, strict=False) if ours != theirs]
        first = differ[0][0] if differ else "after the last English one"
        problems.append(
            f"{where(chinese)}: its code cells differ from the English ones, from cell {first}"
        )
    return problems


def english_prose(chinese: Path) -> list[str]:
    """English prose in a Chinese notebook's stored outputs."""
    found = output_strings.english_in_outputs(notebook(chinese))
    return [f"{where(chinese)}: cell {cell}: {words}" for cell, words in found]


def chinese_texts(root: Path = ROOT) -> list[Path]:
    """Every Chinese text a reader meets: the translations, the README, the glossary, the site."""
    found = [
        *(root / "translations" / LANGUAGE).glob("*.md"),
        root / "README.zh-CN.md",
        root / "docs" / "glossary.md",
        *(root / "docs" / LANGUAGE).glob("*.md"),
    ]
    return sorted(path for path in found if path.is_file())


def scan_gaps(root: Path) -> list[str]:
    """Files the scan of Chinese texts should read and does not."""
    names = {str(path.relative_to(root)) for path in chinese_texts(root)}
    return [f"the scan of Chinese texts misses {name}" for name in SCANNED if name not in names]


def _checked_text(path: Path) -> str:
    """A text without the Source cells of glossary rows: their links name CANN's own pages."""
    lines = []
    for line in text(path).splitlines():
        if line.startswith("| ") and line.count(" | ") >= 4:
            line = line.rsplit(" | ", 1)[0]
        lines.append(line)
    return "\n".join(lines)


def avoided_variants(root: Path) -> list[str]:
    """The AVOIDED variants the Chinese texts use, each with the term to use instead."""
    problems = []
    for path in chinese_texts(root):
        checked = _checked_text(path)
        name = path.relative_to(root)
        problems += [f"{name}: {word!r}: {why}" for word, why in AVOIDED.items() if word in checked]
    return problems


def chinese_sentences(text: str) -> list[str]:
    """The Chinese sentences of a markdown text, wrapped lines joined, code and math left out.

    A sentence ends at 。！？, at a blank line, at a list item, heading or table row, and at
    a table cell's border.
    """
    for pattern, replacement in _NOT_PROSE:
        text = re.sub(pattern, replacement, text, flags=re.S)
    blocks = re.split(r"\n\s*\n|\n(?=\s*(?:[-*#|>]|\d+\.))|\|", text)
    sentences = []
    for block in blocks:
        joined = block.replace("\n", "")
        sentences += [s.strip() for s in re.split(r"(?<=[。！？])", joined)]
    return [s for s in sentences if HAN.search(s)]


def chained(root: Path) -> list[str]:
    """Chinese sentences with more than :data:`MAX_SEPARATORS` commas or semicolons."""
    return [
        f"{path.relative_to(root)}: split: {sentence}"
        for path in chinese_texts(root)
        for sentence in chinese_sentences(text(path))
        if len(re.findall("[，；]", sentence)) > MAX_SEPARATORS
    ]


def _append(cell: dict, line: str) -> None:
    cell["source"] = source(cell) + "\n" + line


def _author_edit(nb: dict) -> None:
    """An English edit: a sentence added to a markdown cell, a new string its code shows."""
    _append(next(c for c in nb["cells"] if c["cell_type"] == "markdown"), "One more sentence.")
    _append(code_cells(nb["cells"])[0], 'wrong(f"A sentence nobody translated: {1}")')


def _new_module_string(tmp: Path) -> list[str]:
    """A sentence a helper says, and a KernelError a kernel helper raises, both untranslated."""
    planted = (
        'wrong(f"A helper sentence nobody translated: {n}")\n'
        'raise KernelError(f"A kernel message nobody translated: {core}")\n'
    )
    planted_file(tmp, "mishgrad/helper.py", planted)
    with mock.patch.object(notebook_translation, "PACKAGE", tmp / "mishgrad"):
        return module_problems()


def _english_code_edited(tmp: Path) -> list[str]:
    """An English code cell edited after its Chinese notebook was generated."""
    planted_notebook(tmp, PLANTED, lambda nb: _append(code_cells(nb["cells"])[0], "planted = 1"))
    planted_file(tmp, where(translated(PLANTED)), text(translated(PLANTED)))
    with mock.patch.multiple(notebook_translation, NOTEBOOKS=tmp / "notebooks", REPOSITORY=tmp):
        return stale_notebooks()


def _chinese_code_edited(nb: dict) -> None:
    _append(code_cells(nb["cells"])[1], "planted = 1")  # [0] is the language cell


def _english_output(nb: dict) -> None:
    data = {"text/markdown": "This sentence stayed English."}
    output = {"output_type": "display_data", "data": data, "metadata": {}}
    code_cells(nb["cells"])[1]["outputs"].append(output)


def _variants_everywhere(tmp: Path) -> list[str]:
    """Every variant in a translation and the README, and one in a glossary row's term."""
    used = "".join(f"\n本段用了{variant}这个词。\n" for variant in AVOIDED)
    for name in (f"translations/{LANGUAGE}/05_the_ascendc_kernel.md", "README.zh-CN.md"):
        planted_file(tmp, name, text(ROOT / name) + used)
    glossary = text(ROOT / "docs" / "glossary.md")
    row = "| Root window | 零点窗口 |"
    planted_file(tmp, "docs/glossary.md", glossary.replace(row, "| Root window | 根窗口 |"))
    return avoided_variants(tmp)


#: Two chains (in prose, in a table cell) among what is no chain: code, a short list item.
CHAINS = "甲，乙，丙，丁。`a，b，c，d` 短句。\n\n| 一，二，三，四 | 五 |\n- 条目，一，二。"


def _two_chains(tmp: Path) -> list[str]:
    planted_file(tmp, f"docs/{LANGUAGE}/planted.md", CHAINS)
    return chained(tmp)


RULES = [
    in_each(
        "every English markdown cell and notebook string has a current translation",
        translation_problems,
        _author_edit,
        (
            "the English changed since its translation",
            "not translated: 'A sentence nobody translated: {0}'",
        ),
        stale=True,
    ),
    Rule(
        "every string the helper modules show has a translation",
        module_problems,
        _new_module_string,
        (
            "not translated: 'A helper sentence nobody translated: {0}'",
            "not translated: 'A kernel message nobody translated: {0}'",
        ),
        stale=True,
    ),
    Rule(
        "the Chinese notebooks are what the generator writes",
        stale_notebooks,
        _english_code_edited,
        ("is out of date",),
        stale=True,
    ),
    in_each_translation(
        "the Chinese notebooks' code is the language cell, then the English code",
        code_problems,
        _chinese_code_edited,
        ("code cells differ from the English ones",),
    ),
    in_each_translation(
        "the Chinese notebooks' stored outputs hold no English prose",
        english_prose,
        _english_output,
        ("This sentence stayed English",),
    ),
    Rule(
        "the scan of Chinese texts reads the translations, the README, the glossary and the site",
        lambda: scan_gaps(ROOT),
        scan_gaps,
        SCANNED,
    ),
    Rule(
        "the Chinese texts use the glossary's terms, not their avoided variants",
        lambda: avoided_variants(ROOT),
        _variants_everywhere,
        (
            *(f"05_the_ascendc_kernel.md: {variant!r}" for variant in AVOIDED),
            *(f"README.zh-CN.md: {variant!r}" for variant in AVOIDED),
            "docs/glossary.md: '根窗口'",
        ),
    ),
    Rule(
        "every Chinese sentence chains at most two clauses",
        lambda: chained(ROOT),
        _two_chains,
        ("split: 甲，乙，丙，丁。", "split: 一，二，三，四"),
    ),
]
