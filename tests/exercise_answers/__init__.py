"""Right and wrong answers to every exercise checker, one module per notebook (``nb01`` …).

Each module defines ``CASES``: a list of :class:`Case`. ``tests/test_exercises.py`` runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mishgrad.kernel.scratch import ScratchKernel


@dataclass(frozen=True)
class Case:
    """One checker with a right answer, the typical mistake, and for kernel exercises the edit.

    ``plausible`` is the answer a learner who missed the exercise's point would give; ``wrong``,
    when given, is one more wrong answer (a near miss). ``edit`` changes the scratch copy the
    way a learner who solved the exercise would; the checker is then called as
    ``checker(answer, scratch)``.
    """

    checker: Callable[..., object]
    right: object
    plausible: object
    wrong: object = None
    edit: Callable[[ScratchKernel], None] | None = None


def replace_in(scratch: ScratchKernel, relative: str, old: str, new: str) -> None:
    """Edit one file of a scratch kernel, as a learner does from the notebook."""
    scratch.replace(relative, old, new)
