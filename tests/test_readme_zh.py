"""README.zh-CN.md stays in step with README.md wherever the two can be compared mechanically.

Prose is translated and cannot be diffed, but links, `make` targets, images and the numbers of
the learning path and the accuracy section are language-independent: when README.md gains a
notebook, a target, a screenshot or a new figure, the Chinese README must follow.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EN = ROOT / "README.md"
ZH = ROOT / "README.zh-CN.md"

NOTEBOOK_LINK = re.compile(r"\]\((notebooks/[^)\s]+\.ipynb)\)")
CHINESE = "notebooks/zh-CN/"
IMAGE_LINK = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
MAKE_TARGET = re.compile(r"\bmake ([a-z][\w-]*)")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _head(text: str, lines: int = 5) -> str:
    return "\n".join(text.splitlines()[:lines])


def _section(text: str, heading: str) -> str:
    """The body of the `## heading` section (up to the next `## `), subsections included."""
    match = re.search(rf"^## {re.escape(heading)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"no '## {heading}' section"
    return match.group(1)


def _learning_path(text: str) -> str:
    # The table of notebooks: the section up to its '### Exercises' subsection.
    return re.split(r"^### ", text, flags=re.M)[0]


def _numbers(text: str) -> Counter[str]:
    """Each number of the text with how often it occurs (10,000 and 10000 count as one)."""
    # Link targets hold file names (01_mish_...), not figures the prose states.
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return Counter(n.replace(",", "") for n in NUMBER.findall(text))


@pytest.fixture(scope="module")
def en() -> str:
    return _text(EN)


@pytest.fixture(scope="module")
def zh() -> str:
    return _text(ZH)


def test_they_link_each_other_at_the_top(en, zh):
    assert "中文版: [README.zh-CN.md](README.zh-CN.md)" in _head(en)
    assert "English: [README.md](README.md)" in _head(zh)


def test_same_notebooks_in_the_same_order(en, zh):
    en_path = NOTEBOOK_LINK.findall(_learning_path(_section(en, "Learning path")))
    zh_path = NOTEBOOK_LINK.findall(_learning_path(_section(zh, "学习路径")))
    assert len(en_path) == len(set(en_path)) == 12
    # The Chinese learning path links the Chinese notebooks, each of which exists.
    assert zh_path == [path.replace("notebooks/", CHINESE) for path in en_path]
    assert all((ROOT / path).is_file() for path in zh_path)
    # And every notebook named anywhere in one README is named in the other.
    named = {path.replace(CHINESE, "notebooks/") for path in NOTEBOOK_LINK.findall(zh)}
    assert named == set(NOTEBOOK_LINK.findall(en))


def test_same_make_targets(en, zh):
    en_targets = set(MAKE_TARGET.findall(en))
    assert {"lab", "test"} <= en_targets
    assert set(MAKE_TARGET.findall(zh)) == en_targets


def test_the_two_commands_block_is_identical(en, zh):
    block = re.compile(r"```bash\n(.*?)```", re.S)
    assert block.findall(zh) == block.findall(en) != []


def test_same_images(en, zh):
    assert IMAGE_LINK.findall(en)
    assert IMAGE_LINK.findall(zh) == IMAGE_LINK.findall(en)


@pytest.mark.parametrize(
    ("en_heading", "zh_heading", "part"),
    [
        ("Learning path", "学习路径", _learning_path),
        ("Accuracy in one table", "精度一览", lambda section: section),
    ],
    ids=["learning-path", "accuracy"],
)
def test_every_number_is_carried_over(en, zh, en_heading, zh_heading, part):
    en_numbers = _numbers(part(_section(en, en_heading)))
    zh_numbers = _numbers(part(_section(zh, zh_heading)))
    assert en_numbers
    # As often as in English: "4 Exp, 4 Div" needs two 4s, not one.
    missing = sorted((en_numbers - zh_numbers).elements(), key=lambda n: (len(n), n))
    assert not missing, f"README.zh-CN.md '{zh_heading}' lacks {missing}"


def test_same_sections(en, zh):
    # One Chinese section per English one (the Chinese README adds a glossary).
    en_sections = re.findall(r"^## ", en, re.M)
    zh_sections = re.findall(r"^## ", zh, re.M)
    assert len(zh_sections) == len(en_sections) + 1


def test_the_checks_catch_drift(en, zh):
    """Each check fails on a plausible edit of the English README."""
    added = en.replace(
        "| [11 Shipping",
        "| [12 New](notebooks/12_new.ipynb) | new |\n| [11 Shipping",
    )
    assert NOTEBOOK_LINK.findall(_section(added, "Learning path")) != NOTEBOOK_LINK.findall(
        _section(zh, "学习路径")
    )
    changed = _section(en, "Accuracy in one table").replace("99.9 %", "99.95 %")
    assert _numbers(changed) - _numbers(_section(zh, "精度一览")) == Counter({"99.95": 1})
    assert set(MAKE_TARGET.findall(en + " make docs")) != set(MAKE_TARGET.findall(zh))
