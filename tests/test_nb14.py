"""Notebook 14's judge: each typical mistake misses a stated target and gets its own hint.

Each mistake of ``exercise_answers.nb14.MISTAKES`` is planted into the worked solution in a
scratch copy of the skeleton; the verdict must be *wrong* with that mistake's hint and no
other. An endless loop and a null pointer in the learner's Compute end in a verdict, with the
notebook's process alive. The worked solution's constants are those of the zero of d.
"""

from __future__ import annotations

import re
from pathlib import Path

import mpmath
import numpy as np
import pytest
from exercise_answers import nb14 as answers

from mishgrad.book.exercises import nb14
from mishgrad.kernel.operators import SILU_GRAD
from mishgrad.kernel.scratch import ScratchKernel, scratch_kernel

pytestmark = pytest.mark.slow  # every test builds an edited copy

#: Every hint the judge can give, whichever mistake it points at.
EVERY_HINT = [*nb14.HINTS.values(), *nb14.KERNEL_HINTS.values()]


def _copy(tmp_path: Path) -> ScratchKernel:
    return scratch_kernel("learner", root=tmp_path, original=SILU_GRAD.directory)


@pytest.mark.parametrize("mistake", list(answers.MISTAKES))
def test_each_mistake_gets_its_own_hint(mistake: str, tmp_path: Path) -> None:
    scratch = _copy(tmp_path)
    answers.plant(mistake)(scratch)
    verdict = nb14.check_silu_grad(answers.INSTRUCTIONS, scratch)
    hint = answers.MISTAKES[mistake][0]
    assert verdict.status == "wrong" and hint in verdict.message, verdict
    others = [other for other in EVERY_HINT if other in verdict.message and hint not in other]
    assert not others, verdict


@pytest.mark.parametrize(
    ("stuck", "says"),
    [
        ("for (volatile uint32_t spin = 1; spin != 0;) {\n        }\n", "an endless loop"),
        ("*reinterpret_cast<volatile float*>(length - length) = 1.0f;\n", "SIGSEGV"),
    ],
    ids=["endless loop", "null pointer"],
)
def test_a_compute_that_hangs_or_crashes_ends_in_a_verdict(
    stuck: str, says: str, tmp_path: Path
) -> None:
    scratch = _copy(tmp_path)
    answers.write_compute(scratch)
    scratch.replace(nb14.KERNEL_FILE, "        outQueue_.EnQue(out);\n", f"        {stuck}")
    verdict = nb14.check_silu_grad(None, scratch, ("ieee",))
    assert verdict.status == "wrong" and says in verdict.message, verdict
    assert nb14.check_silu_grad(None, _copy(tmp_path / "fresh")).status == "unanswered"


def test_the_worked_solution_meets_every_target_and_is_counted(tmp_path: Path) -> None:
    scratch = _copy(tmp_path)
    answers.write_compute(scratch)
    assert nb14.check_silu_grad(None, scratch).status == "unanswered"  # count it now
    verdict = nb14.check_silu_grad(answers.INSTRUCTIONS, scratch)
    assert verdict.status == "correct" and "-bound on the roofline" in verdict.message, verdict


def test_the_worked_solutions_constants_are_the_zero_and_its_taylor_coefficients() -> None:
    constants = dict(re.findall(r"constexpr float (k\w+) = ([-+.\deE]+)f;", answers.COMPUTE))
    value = {name: np.float32(text) for name, text in constants.items()}
    with mpmath.workdps(40):
        zero = -1 - mpmath.lambertw(1 / mpmath.e).real
        d = lambda t: mpmath.diff(lambda s: s / (1 + mpmath.exp(-s)), t)  # noqa: E731
        taylor = [mpmath.diff(d, zero, k) / mpmath.factorial(k) for k in (1, 2, 3)]
        assert value["kRootHigh"] == np.float32(float(zero))
        assert value["kRootLow"] == np.float32(float(zero - mpmath.mpf(float(value["kRootHigh"]))))
        for name, exact in zip(("kC1", "kC2", "kC3"), taylor, strict=True):
            assert value[name] == np.float32(float(exact)), name
