"""Every exercise checker accepts its right answer, rejects a wrong one, and waits for None.

Kernel exercises run on a scratch copy of ``kernel/`` in a temporary folder; the test checks
that ``kernel/`` is byte for byte what it was.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from exercise_answers import Case

import mishgrad.book.exercises
from mishgrad.book.exercises import Verdict
from mishgrad.kernel import source
from mishgrad.kernel.scratch import scratch_kernel


def _answer_modules() -> list[str]:
    folder = Path(__file__).parent / "exercise_answers"
    return sorted(path.stem for path in folder.glob("nb[0-9][0-9].py"))


def _checkers() -> dict[str, object]:
    found = {}
    for info in pkgutil.iter_modules(mishgrad.book.exercises.__path__):
        module = importlib.import_module(f"mishgrad.book.exercises.{info.name}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("check_") and function.__module__ == module.__name__:
                found[f"{info.name}.{name}"] = function
    return found


def _cases() -> list[tuple[str, Case]]:
    cases = []
    for name in _answer_modules():
        module = importlib.import_module(f"exercise_answers.{name}")
        for case in module.CASES:
            cases.append((f"{name}.{case.checker.__name__}", case))
    return cases


CASES = _cases()


def _kernel_digest() -> str:
    hasher = hashlib.sha256()
    for path in sorted(source.KERNEL_DIR.rglob("*")):
        if path.is_file():
            hasher.update(str(path.relative_to(source.KERNEL_DIR)).encode())
            hasher.update(path.read_bytes())
    return hasher.hexdigest()


def test_every_checker_has_a_case() -> None:
    assert sorted(name for name, _ in CASES) == sorted(_checkers())


def test_there_are_write_code_exercises_in_every_notebook() -> None:
    # A write-code exercise's right answer is a function the learner writes.
    notebooks = {name.split(".")[0] for name, case in CASES if callable(case.right)}
    assert notebooks == set(_answer_modules())


@pytest.mark.parametrize(("name", "case"), CASES, ids=[name for name, _ in CASES])
def test_checker(name: str, case: Case, tmp_path: Path) -> None:
    before = _kernel_digest()
    extra = []
    if case.edit is not None:
        scratch = scratch_kernel("exercise", root=tmp_path)
        assert case.checker(case.right, scratch).status == "wrong", "unedited copy accepted"
        case.edit(scratch)
        extra = [scratch]
    unanswered = case.checker(None, *extra)
    right = case.checker(case.right, *extra)
    wrong = case.checker(case.wrong, *extra)
    assert isinstance(right, Verdict)
    assert unanswered.status == "unanswered"
    assert right.status == "correct", right
    assert wrong.status == "wrong", wrong
    assert _kernel_digest() == before, "an exercise changed kernel/"
