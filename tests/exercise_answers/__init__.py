"""Right and wrong answers to every exercise checker, one module per notebook (``nb01`` …).

Each module defines ``CASES``: a list of :class:`Case`. ``tests/test_exercises.py`` runs them;
``tests/rules/exercises.py`` holds them to cover every checker.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mishgrad.kernel.scratch import ScratchKernel
from mishgrad.kernel.source import OPERATOR_DIR


@dataclass(frozen=True)
class Case:
    """One checker with a right answer, the typical mistake, and for kernel exercises the edit.

    ``plausible`` is the answer a learner who missed the exercise's point would give; ``wrong``,
    when given, is one more wrong answer (a near miss). ``edit`` changes the scratch copy the
    way a learner who solved the exercise would, in a copy of ``original`` (MishGrad's folder
    unless the exercise is another operator's); the checker is then called as
    ``checker(answer, scratch)``.
    """

    checker: Callable[..., object]
    right: object
    plausible: object
    wrong: object = None
    edit: Callable[[ScratchKernel], None] | None = None
    original: Path = OPERATOR_DIR


def replace_in(scratch: ScratchKernel, relative: str, old: str, new: str) -> None:
    """Edit one file of a scratch kernel, as a learner does from the notebook."""
    scratch.replace(relative, old, new)


def answer_modules() -> list[str]:
    """The modules of answers, one per notebook with exercises: ``nb01`` …"""
    return sorted(path.stem for path in Path(__file__).parent.glob("nb[0-9][0-9].py"))


def all_cases() -> list[tuple[str, Case]]:
    """Every case, named ``nbNN.check_...`` after its module and checker."""
    cases = []
    for name in answer_modules():
        module = importlib.import_module(f"{__name__}.{name}")
        cases += [(f"{name}.{case.checker.__name__}", case) for case in module.CASES]
    return cases
