"""Every exercise checker accepts its right answer, rejects the typical mistake, and waits for None.

The typical mistake gets a hint that does not give the answer away: not the right value, and
for a function, none of the right function's results where the mistake's differ. An answer of
the wrong kind gets a message that says what kind is asked for, not a hint. A kernel edit that
does not compile is reported with the compiler's first error.

Kernel exercises run on a scratch copy of ``kernel/`` in a temporary folder; the test checks
that ``kernel/`` is byte for byte what it was.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from exercise_answers import Case, all_cases
from exercise_answers import nb02 as nb02_answers

from mishgrad.book.exercises import (
    COMPILER_LINES,
    EarlyVerdict,
    Verdict,
    call_on_copy,
    nb01,
    nb02,
)
from mishgrad.kernel import source
from mishgrad.kernel.scratch import ScratchKernel, scratch_kernel

CASES = all_cases()
IDS = [name for name, _ in CASES]
KERNEL_CASES = [(name, case) for name, case in CASES if case.edit is not None]
#: Every case; those that build an edited scratch copy of kernel/ are slow (not in `make check`).
BUILDING = [
    pytest.param(name, case, id=name, marks=[pytest.mark.slow] if case.edit else [])
    for name, case in CASES
]
#: Words one of which a message about the kind of answer names.
KIND_WORDS = ("number", "function", "boolean", "pair", "tuple", "Rational", "SymPy", "int")
#: Results too common in any text to count as giving the answer away.
TRIVIAL = {"True", "False", "None", "nan", "inf", "-inf", "0.0", "-0.0", "1.0"}


def _kernel_digest() -> str:
    hasher = hashlib.sha256()
    for path in sorted(source.OPERATOR_DIR.rglob("*")):
        if path.is_file():
            hasher.update(str(path.relative_to(source.OPERATOR_DIR)).encode())
            hasher.update(path.read_bytes())
    return hasher.hexdigest()


def _edited_copy(case: Case, root: Path) -> list[ScratchKernel]:
    """The extra argument of a kernel exercise's checker: a copy edited as the case says."""
    if case.edit is None:
        return []
    scratch = scratch_kernel("exercise", root=root)
    case.edit(scratch)
    return [scratch]


def _texts(value: object, elements: bool = True) -> set[str]:
    """How a message could show ``value``: str, repr, a float's short forms, a tuple's elements.

    Arrays are left to the caller, and so are texts too common to give anything away. A
    function's result is shown whole (``elements=False``): a learner's own result shares
    elements with it.
    """
    if isinstance(value, np.ndarray):
        return set()
    texts = {str(value), repr(value)}
    if isinstance(value, float | np.floating):
        texts |= {f"{float(value):g}", f"{float(value):.4g}", repr(float(value))}
    if isinstance(value, tuple | list) and elements:
        for element in value:
            texts |= _texts(element)
    return {text for text in texts if len(text) > 1 and text not in TRIVIAL}


def _same(a: object, b: object) -> bool:
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
    except (TypeError, ValueError):
        try:
            return bool(a == b)
        except (TypeError, ValueError):
            return False


def _copied(args: tuple[object, ...]) -> list[object]:
    return [a.copy() if isinstance(a, np.ndarray | dict | list) else a for a in args]


def _differing_results(case: Case, extra: list[ScratchKernel]) -> set[str]:
    """The right function's results, as text, at the calls where the mistake's differ.

    The checker is given a recorder that calls both functions with the checker's own
    arguments and returns the right function's result.
    """
    right, mistake = case.right, case.plausible
    texts: set[str] = set()

    def recorder(*args: object) -> object:
        expected = right(*_copied(args))  # type: ignore[operator]
        with np.errstate(all="ignore"):
            try:
                theirs = mistake(*_copied(args))  # type: ignore[operator]
            except Exception:  # a mistake may raise where the right function does not
                theirs = None
        if isinstance(expected, np.ndarray) and isinstance(theirs, np.ndarray):
            if expected.shape == theirs.shape:
                differ = ~((expected == theirs) | (np.isnan(expected) & np.isnan(theirs)))
                for value in expected[differ][:200]:
                    texts.update(_texts(value))
        elif not _same(expected, theirs):
            texts.update(_texts(expected, elements=False))
        return expected

    case.checker(recorder, *extra)
    return texts


def _given_away(message: str, texts: set[str]) -> list[str]:
    """The texts that ``message`` shows whole: not inside a longer number, word or path."""

    def pattern(text: str) -> str:
        before = r"(?<![\w./])" if re.match(r"[\w.]", text) else ""
        after = r"(?![\w/]|\.\d)" if re.search(r"\w$", text) else ""
        return before + re.escape(text) + after

    return [text for text in texts if re.search(pattern(text), message) is not None]


@pytest.mark.parametrize(("name", "case"), BUILDING)
def test_checker(name: str, case: Case, tmp_path: Path) -> None:
    before = _kernel_digest()
    extra = []
    if case.edit is not None:
        scratch = scratch_kernel("exercise", root=tmp_path)
        assert case.checker(case.right, scratch).status == "wrong", "unedited copy accepted"
        extra = _edited_copy(case, tmp_path)
    unanswered = case.checker(None, *extra)
    right = case.checker(case.right, *extra)
    mistake = case.checker(case.plausible, *extra)
    assert isinstance(right, Verdict)
    assert unanswered.status == "unanswered"
    assert right.status == "correct", right
    assert mistake.status == "wrong" and not mistake.usage, mistake
    if case.wrong is not None:
        wrong = case.checker(case.wrong, *extra)
        assert wrong.status == "wrong", wrong
    assert _kernel_digest() == before, "an exercise changed kernel/"


@pytest.mark.parametrize(("name", "case"), BUILDING)
def test_the_typical_mistake_gets_a_hint_that_keeps_the_answer(
    name: str, case: Case, tmp_path: Path
) -> None:
    extra = _edited_copy(case, tmp_path)
    verdict = case.checker(case.plausible, *extra)
    assert verdict.status == "wrong" and verdict.message, verdict
    if callable(case.right):
        revealing = _differing_results(case, extra)
    else:
        revealing = _texts(case.right)
        if isinstance(case.right, sp.Basic):
            revealing |= {str(case.right), sp.sstr(case.right)}
    assert not _given_away(verdict.message, revealing), verdict.message


def _junk(right: object) -> list[object]:
    """Answers of the wrong kind for an exercise whose right answer is ``right``."""
    junk: list[object] = ["abc", {}]
    if callable(right):
        junk.append(42)
    elif isinstance(right, tuple):
        junk += [right[:-1], tuple(str(value) for value in right), [right]]
    elif isinstance(right, sp.Basic):
        junk.append(float(right))
    elif isinstance(right, int):
        junk += [right + 0.5, True, str(right)]
    else:
        junk += [[right, right], True, str(right)]
    return junk


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_an_answer_of_the_wrong_kind_is_told_the_kind(
    name: str, case: Case, tmp_path: Path
) -> None:
    # Before any comparison, and before a kernel exercise looks at the copy: an unedited one.
    extra = [scratch_kernel("exercise", root=tmp_path)] if case.edit is not None else []
    for junk in _junk(case.right):
        verdict = case.checker(junk, *extra)
        assert verdict.status == "wrong" and verdict.usage, (junk, verdict)
        assert any(word in verdict.message for word in KIND_WORDS), verdict.message
        assert not _given_away(verdict.message, _texts(case.right)), verdict.message


#: A line no C++ compiler accepts, planted at the end of each file a kernel exercise edits.
PLANTED = "static int planted_by_the_test = ;"


@pytest.mark.slow
@pytest.mark.parametrize(("name", "case"), KERNEL_CASES, ids=[n for n, _ in KERNEL_CASES])
def test_a_copy_that_does_not_build_is_reported_with_the_compiler_error(
    name: str, case: Case, tmp_path: Path
) -> None:
    (scratch,) = _edited_copy(case, tmp_path)
    for relative in scratch.edited():
        path = scratch.file(relative)
        path.write_text(path.read_text(encoding="utf-8") + f"\n{PLANTED}\n", encoding="utf-8")
    verdict = case.checker(case.right, scratch)
    first, *_ = verdict.message.splitlines()
    assert verdict.status == "wrong", verdict
    assert verdict.message.startswith("your copy does not build: "), verdict.message
    assert "error:" in first and PLANTED in verdict.message, verdict.message
    assert len(verdict.message.splitlines()) <= COMPILER_LINES, verdict.message
    assert str(tmp_path) not in verdict.message, "the copy's files are named relative to it"


def test_a_copy_that_fails_to_run_is_reported_with_the_files_it_changed(tmp_path: Path) -> None:
    # A copy made before kernel/ was updated builds, then fails to load or run: the verdict
    # names the files that differ, and how to start over.
    scratch = scratch_kernel("stale", root=tmp_path)
    launch = scratch.file("op_kernel/mish_grad_stamp.h")
    launch.write_text(launch.read_text(encoding="utf-8") + "// older\n", encoding="utf-8")

    def fails() -> None:
        raise OSError("undefined symbol: mish_grad_bfloat16")

    with pytest.raises(EarlyVerdict) as stale:
        call_on_copy(scratch, fails)
    assert stale.value.verdict.status == "wrong"
    assert stale.value.verdict.message == (
        "running your copy failed: OSError: undefined symbol: mish_grad_bfloat16; it differs "
        "from kernel/ in op_kernel/mish_grad_stamp.h (`scratch.diff()` shows how, "
        "`scratch.reset()` starts over)"
    )
    scratch.reset()
    with pytest.raises(EarlyVerdict) as fresh:
        call_on_copy(scratch, fails)
    assert fresh.value.verdict.message == (
        "running your copy failed: OSError: undefined symbol: mish_grad_bfloat16"
    )


def _float16_roundings(value: float) -> dict[str, float]:
    """``value`` rounded into the float16 grid: to nearest, down, up and toward zero."""
    nearest = np.float16(value)
    down = nearest if nearest <= value else np.nextafter(nearest, np.float16(-np.inf))
    up = nearest if nearest >= value else np.nextafter(nearest, np.float16(np.inf))
    toward_zero = down if value >= 0 else up
    return {"nearest": nearest, "down": down, "up": up, "toward zero": toward_zero}


@pytest.mark.parametrize("omega", [65504.0, 65520.0], ids=["largest", "largest + half ULP"])
def test_the_naive_overflow_threshold_is_wrong_however_it_is_rounded(omega: float) -> None:
    # ln(Ω)/100, Ω read as float16's largest value or as the bound rounding reaches: a learner
    # who forgets that np.exp(x) is rounded before the power is told so under every rounding.
    for rounding, value in _float16_roundings(math.log(omega) / nb02.POWER).items():
        verdict = nb02.check_exp_power(value)
        assert verdict.status == "wrong" and not verdict.usage, (rounding, value, verdict)
        assert "threshold lies higher" in verdict.message, (rounding, verdict)


def test_bits_cut_instead_of_rounded_get_the_rounding_hint_not_the_nan_one() -> None:
    # Dropping the lower half turns a NaN into an infinity too; the rounding is what to fix.
    verdict = nb02.check_to_bfloat16_bits(lambda bits: (bits >> 16).astype(np.uint16))
    assert verdict.status == "wrong" and "never rounded" in verdict.message, verdict
    assert "NaN" not in verdict.message, verdict


def test_a_right_rounding_that_loses_nans_gets_the_nan_hint() -> None:
    right = nb02_answers.CASES[0].right

    def loses_nans(bits: np.ndarray) -> np.ndarray:
        nan = (bits & 0x7FFFFFFF) > 0x7F800000
        return np.where(nan, right(bits) & 0xFFBF, right(bits)).astype(np.uint16)  # quiet bit off

    verdict = nb02.check_to_bfloat16_bits(loses_nans)
    assert verdict.status == "wrong" and "a NaN must stay NaN" in verdict.message, verdict


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_a_string_is_told_the_kind_asked_for_not_what_it_is_not(
    name: str, case: Case, tmp_path: Path
) -> None:
    extra = [scratch_kernel("exercise", root=tmp_path)] if case.edit is not None else []
    verdict = case.checker("0.5", *extra)
    assert verdict.usage and "not a float" not in verdict.message, verdict.message


@pytest.mark.parametrize("checker", [nb01.check_t_at_ln3, nb01.check_sign_only])
def test_a_float_for_an_exact_value_is_told_it_is_rounded(checker: Callable) -> None:
    verdict = checker(0.882352941176)
    assert verdict.usage and verdict.message.startswith("a float is rounded"), verdict


#: A count of one with a plural noun ("1 elements"), in a checker's message.
ONE_PLURAL = re.compile(
    r"(?<![\w.,])1 (element|unit|core|byte|input|value|tile|case|budget|pair|view|length)s\b"
)


@pytest.mark.parametrize(("name", "case"), BUILDING)
def test_no_message_counts_one_in_the_plural(name: str, case: Case, tmp_path: Path) -> None:
    extra = _edited_copy(case, tmp_path)
    answers = [case.plausible] + ([case.wrong] if case.wrong is not None else [])
    for answer in answers:
        message = case.checker(answer, *extra).message
        assert not ONE_PLURAL.search(message), message
