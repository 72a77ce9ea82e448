"""The repository keeps every rule of tests/rules, and every rule catches the faults planted in it.

A rule whose problems mean the Chinese edition lags the English (``stale``) fails by default
(``make test``); with ``--stale-translations=warn`` (``make check``) its problems are reported
as a :class:`StaleTranslationWarning` instead, so that an English edit can be tested before
its translation catches up. Every other rule always fails.
"""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import pytest
from rules import RULES, Rule, StaleTranslationWarning
from rules.translations import CHAINS, chinese_sentences

NAMES = [rule.name for rule in RULES]


def keep(rule: Rule, problems: list[str], stale_translations: str) -> None:
    """Fail on ``problems``, or only warn of a stale translation's under ``warn``."""
    report = f"{len(problems)} problems:\n" + "\n".join(problems)
    if problems and rule.stale and stale_translations == "warn":
        warnings.warn(StaleTranslationWarning(f"{rule.name}: {report}"), stacklevel=2)
        return
    assert not problems, report


@pytest.mark.parametrize("rule", RULES, ids=NAMES)
def test_the_repository_keeps(rule: Rule, request: pytest.FixtureRequest) -> None:
    keep(rule, rule.check(), request.config.getoption("stale_translations"))


@pytest.mark.parametrize("rule", RULES, ids=NAMES)
def test_the_rule_catches_its_planted_fault(rule: Rule, tmp_path: Path) -> None:
    problems = rule.planted(tmp_path)
    missed = [expected for expected in rule.expect if not any(expected in p for p in problems)]
    unexpected = [p for p in problems if not any(expected in p for expected in rule.expect)]
    assert problems and not missed and not unexpected, (missed, unexpected)


def test_every_rule_has_its_own_name() -> None:
    assert len(set(NAMES)) == len(NAMES)


LAGGING = Rule(
    "a hand-made translation that lags",
    lambda: ["translations/zh-CN/05.md: cell a: the English changed since its translation"],
    lambda _tmp: [],
    ("the English changed",),
    stale=True,
)


def test_a_stale_rule_warns_under_warn() -> None:
    with pytest.warns(StaleTranslationWarning, match="the English changed since its translation"):
        keep(LAGGING, LAGGING.check(), "warn")


def test_a_stale_rule_fails_under_fail() -> None:
    with pytest.raises(AssertionError, match="the English changed since its translation"):
        keep(LAGGING, LAGGING.check(), "fail")


def test_a_rule_that_is_not_stale_fails_under_warn() -> None:
    chain = ["README.zh-CN.md: split: 甲，乙，丙，丁。"]
    chained = dataclasses.replace(
        LAGGING, name="a hand-made chain", check=lambda: chain, stale=False
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and warns of nothing
        with pytest.raises(AssertionError, match="甲，乙，丙，丁"):
            keep(chained, chained.check(), "warn")


def test_the_sentence_splitter_sees_chains_and_skips_code() -> None:
    assert chinese_sentences(CHAINS) == [
        "甲，乙，丙，丁。",
        "X 短句。",
        "一，二，三，四",
        "五",
        "- 条目，一，二。",
    ]
