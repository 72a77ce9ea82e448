"""Every exercise checker has its case in tests/exercise_answers, and every notebook with
exercises has one where the learner writes code (tests/test_exercises.py runs the cases)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import Counter

from exercise_answers import Case, all_cases, answer_modules

import mishgrad.book.exercises
from rules.shared import Rule

Cases = list[tuple[str, Case]]


def checkers() -> list[str]:
    """Every checker of mishgrad.book.exercises, named ``nbNN.check_...``."""
    found = []
    for info in pkgutil.iter_modules(mishgrad.book.exercises.__path__):
        module = importlib.import_module(f"mishgrad.book.exercises.{info.name}")
        found += [
            f"{info.name}.{name}"
            for name, function in inspect.getmembers(module, inspect.isfunction)
            if name.startswith("check_") and function.__module__ == module.__name__
        ]
    return found


def uncovered(names: list[str], cases: Cases) -> list[str]:
    """Checkers without exactly one case, and cases of no checker."""
    wanted, have = Counter(names), Counter(name for name, _ in cases)
    problems = [f"{name} has no case in tests/exercise_answers" for name in wanted - have]
    return problems + [f"{name}: a case too many, or of no checker" for name in have - wanted]


def without_write_code(modules: list[str], cases: Cases) -> list[str]:
    """Notebooks with exercises but none whose right answer is a function the learner writes."""
    writing = {name.split(".")[0] for name, case in cases if callable(case.right)}
    return [
        f"tests/exercise_answers/{name}.py has no write-code exercise"
        for name in modules
        if name not in writing
    ]


RULES = [
    Rule(
        "every exercise checker has its case",
        lambda: uncovered(checkers(), all_cases()),
        lambda _tmp: uncovered([*checkers(), "nb99.check_planted"], all_cases()),
        ("nb99.check_planted has no case",),
    ),
    Rule(
        "every notebook with exercises has a write-code exercise",
        lambda: without_write_code(answer_modules(), all_cases()),
        lambda _tmp: without_write_code(
            answer_modules(), [(n, c) for n, c in all_cases() if not n.startswith("nb03.")]
        ),
        ("nb03.py has no write-code exercise",),
    ),
]
