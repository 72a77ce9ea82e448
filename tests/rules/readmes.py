"""README.zh-CN.md stays in step with README.md wherever the two can be compared mechanically.

Prose is translated and cannot be diffed, but links, ``make`` targets, images and the numbers of
the learning path and the accuracy section are language-independent: when README.md gains a
notebook, a target, a screenshot or a new figure, the Chinese README must follow.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from rules.shared import ROOT, Rule, english_notebooks, text

EN, ZH = "README.md", "README.zh-CN.md"
NOTEBOOK_LINK = re.compile(r"\]\((notebooks/[^)\s]+\.ipynb)\)")
CHINESE = "notebooks/zh-CN/"
IMAGE_LINK = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
MAKE_TARGET = re.compile(r"\bmake ([a-z][\w-]*)")
COMMANDS = re.compile(r"```bash\n(.*?)```", re.S)
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _head(text: str, lines: int = 5) -> str:
    return "\n".join(text.splitlines()[:lines])


def _section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section (up to the next ``## ``), or "" if there is none."""
    match = re.search(rf"^## {re.escape(heading)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    return match.group(1) if match else ""


def _learning_path(section: str) -> str:
    """The table of notebooks: the section up to its ``### Exercises`` subsection."""
    return re.split(r"^### ", section, flags=re.M)[0]


def _whole(section: str) -> str:
    return section


#: The sections whose numbers the Chinese README carries over: headings and the part compared.
NUMBERED: list[tuple[str, str, Callable[[str], str]]] = [
    ("Learning path", "学习路径", _learning_path),
    ("Accuracy in one table", "精度一览", _whole),
]


def _numbers(text: str) -> Counter[str]:
    """Each number of the text with how often it occurs (10,000 and 10000 count as one)."""
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets name files (01_mish_...), not figures
    return Counter(n.replace(",", "") for n in NUMBER.findall(text))


def cross_links(en: str, zh: str) -> list[str]:
    """README.md and README.zh-CN.md link each other at the top."""
    problems = []
    if "中文版: [README.zh-CN.md](README.zh-CN.md)" not in _head(en):
        problems.append(f"{EN} does not link {ZH} at the top")
    if "English: [README.md](README.md)" not in _head(zh):
        problems.append(f"{ZH} does not link {EN} at the top")
    return problems


def notebook_links(en: str, zh: str) -> list[str]:
    """Both READMEs link every notebook in order, README.zh-CN.md the Chinese ones."""
    book = [f"notebooks/{path.name}" for path in english_notebooks()]
    en_path = NOTEBOOK_LINK.findall(_learning_path(_section(en, "Learning path")))
    zh_path = NOTEBOOK_LINK.findall(_learning_path(_section(zh, "学习路径")))
    wanted = [path.replace("notebooks/", CHINESE) for path in en_path]
    problems = []
    if en_path != book:
        problems.append(f"{EN}'s learning path links {en_path}, not the notebooks {book}")
    if zh_path != wanted:
        problems.append(f"{ZH}'s learning path links {zh_path}, not {wanted}")
    problems += [
        f"{ZH} links {path}, which does not exist"
        for path in zh_path
        if not (ROOT / path).is_file()
    ]
    named_en = set(NOTEBOOK_LINK.findall(en))
    named_zh = {path.replace(CHINESE, "notebooks/") for path in NOTEBOOK_LINK.findall(zh)}
    problems += [f"{EN} names {path}, {ZH} does not" for path in sorted(named_en - named_zh)]
    return problems + [f"{ZH} names {path}, {EN} does not" for path in sorted(named_zh - named_en)]


def make_targets(en: str, zh: str) -> list[str]:
    """Both READMEs name the same make targets.

    ``lab`` and ``test`` among them.
    """
    en_targets, zh_targets = set(MAKE_TARGET.findall(en)), set(MAKE_TARGET.findall(zh))
    problems = [f"{EN} does not name make {t}" for t in sorted({"lab", "test"} - en_targets)]
    problems += [f"{ZH} does not name make {t}" for t in sorted(en_targets - zh_targets)]
    return problems + [
        f"{ZH} names make {t}, {EN} does not" for t in sorted(zh_targets - en_targets)
    ]


def _same(pattern: re.Pattern[str], what: str, en: str, zh: str) -> list[str]:
    """What ``pattern`` finds (``what``) is in English, and the same, in the same order, in both."""
    if not pattern.findall(en):
        return [f"{EN} has no {what}"]
    if pattern.findall(zh) != pattern.findall(en):
        return [f"{ZH}'s {what} are {pattern.findall(zh)}, {EN}'s {pattern.findall(en)}"]
    return []


def commands(en: str, zh: str) -> list[str]:
    """Both READMEs give the same two commands.

    The ``bash`` blocks are the same in both.
    """
    return _same(COMMANDS, "```bash blocks", en, zh)


def images(en: str, zh: str) -> list[str]:
    """Both READMEs show the same images.

    In the same order.
    """
    return _same(IMAGE_LINK, "images", en, zh)


def numbers(en: str, zh: str) -> list[str]:
    """README.zh-CN.md carries over every number of the learning path and the accuracy table.

    As often as in English ("4 Exp, 4 Div": two 4s).
    """
    problems = []
    for en_heading, zh_heading, part in NUMBERED:
        en_numbers = _numbers(part(_section(en, en_heading)))
        zh_numbers = _numbers(part(_section(zh, zh_heading)))
        if not en_numbers:
            problems.append(f"{EN} '{en_heading}' states no number")
        missing = sorted((en_numbers - zh_numbers).elements(), key=lambda n: (len(n), n))
        if missing:
            problems.append(f"{ZH} '{zh_heading}' lacks {missing}")
    return problems


def sections(en: str, zh: str) -> list[str]:
    """README.zh-CN.md has one section per English section, and a glossary."""
    en_count, zh_count = (len(re.findall(r"^## ", readme, re.M)) for readme in (en, zh))
    if zh_count == en_count + 1:
        return []
    return [
        f"{ZH} has {zh_count} sections, {EN} {en_count}: one per English section and a glossary"
    ]


def _readmes(core: Callable[[str, str], list[str]], en: str = "", zh: str = "") -> list[str]:
    """``core`` on the READMEs, or with a planted ``en`` or ``zh`` in place of one of them."""
    return core(en or text(ROOT / EN), zh or text(ROOT / ZH))


def _compared(
    core: Callable[[str, str], list[str]], side: str, plant: Callable[[], str], expect: str
) -> Rule:
    """The rule the two READMEs keep that ``core``'s docstring states, as its name.

    Its planted fault: the ``side`` README (``"en"`` or ``"zh"``) replaced by ``plant()``.
    """
    name = core.__doc__.split("\n")[0].strip().rstrip(".")
    return Rule(
        name, lambda: _readmes(core), lambda _tmp: _readmes(core, **{side: plant()}), (expect,)
    )


def _without_english_link() -> str:
    return text(ROOT / ZH).replace("English: [README.md](README.md)", "")


def _new_notebook() -> str:
    english = text(ROOT / EN)
    last = re.search(r"^\| \[\d\d Shipping", english, re.M)[0]  # the book's last row
    return english.replace(last, "| [99 New](notebooks/99_new.ipynb) | new |\n" + last)


def _accuracy_changed() -> str:
    accuracy = _section(text(ROOT / EN), "Accuracy in one table")
    return text(ROOT / EN).replace(accuracy, accuracy.replace("99.9 %", "99.95 %"))


def _make_docs() -> str:
    return text(ROOT / EN) + " make docs"


def _bench_in_the_commands() -> str:
    return text(ROOT / ZH).replace("```bash\n", "```bash\nmake bench\n", 1)


def _new_image() -> str:
    return text(ROOT / EN) + "\n![new](docs/_static/new.png)\n"


def _new_section() -> str:
    return text(ROOT / EN) + "\n## Planted\n"


RULES = [
    _compared(cross_links, "zh", _without_english_link, "README.zh-CN.md does not link README.md"),
    _compared(notebook_links, "en", _new_notebook, "99_new"),
    _compared(make_targets, "en", _make_docs, "does not name make docs"),
    _compared(commands, "zh", _bench_in_the_commands, "```bash blocks are"),
    _compared(images, "en", _new_image, "docs/_static/new.png"),
    _compared(numbers, "en", _accuracy_changed, "'精度一览' lacks ['99.95']"),
    _compared(sections, "en", _new_section, "one per English section"),
]
