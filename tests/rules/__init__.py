"""The rules the repository keeps (its prose, pins, notebooks, translations, layout), one home each.

Each subject module holds a table of :class:`Rule` rows: what holds, as a sentence; its check
of the repository as it is; and the same check on an input with faults planted in it, to show
the check can fail. ``tests/test_rules.py`` runs both over :data:`RULES`. Behaviour — what the
code in mishgrad/ does — is tested elsewhere; these rules test the state of the repository.

Shared readers and the :class:`Rule` record live in :mod:`rules.shared` (the subject modules
import them from there, so that this package can import the subject modules).
"""

from __future__ import annotations

from rules import (
    architecture,
    citations,
    exercises,
    exhaustive,
    glossary,
    notebooks,
    readmes,
    run_time,
    setup,
    solutions,
    translations,
)
from rules.shared import Rule, StaleTranslationWarning

RULES: list[Rule] = [
    *setup.RULES,
    *notebooks.RULES,
    *solutions.RULES,
    *exercises.RULES,
    *run_time.RULES,
    *readmes.RULES,
    *glossary.RULES,
    *translations.RULES,
    *citations.RULES,
    *architecture.RULES,
    *exhaustive.RULES,
]

__all__ = ["RULES", "Rule", "StaleTranslationWarning"]
