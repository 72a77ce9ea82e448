"""Right and wrong answers to notebook 13's exercises."""

from __future__ import annotations

from pathlib import Path

from exercise_answers import Case
from mishgrad.book.exercises import nb13

#: ops-nn's include folders per target (notebook 13, section 3), as a learner copies them.
TARGET_FOLDERS = {
    "kernel": [],
    "op_def": [],
    "infershape": [],
    "tiling": ["op_host", "op_host/../.."],
    "op_api": ["op_host/op_api"],
    "example": ["op_host/op_api"],
}


def resolves_to(op_dir: Path, source: str, name: str, target: str) -> str | None:
    """Beside the including file first, then the target's folders; only the operator's files."""
    root = op_dir.resolve()
    folders = [(op_dir / source).parent, *(op_dir / f for f in TARGET_FOLDERS[target])]
    for folder in folders:
        candidate = (folder / name).resolve()
        if candidate.is_file() and candidate.is_relative_to(root):
            return candidate.relative_to(root).as_posix()
    return None


def beside_only(op_dir: Path, source: str, name: str, target: str) -> str | None:
    """A plausible mistake: forgets the target's include folders."""
    root = op_dir.resolve()
    candidate = ((op_dir / source).parent / name).resolve()
    return candidate.relative_to(root).as_posix() if candidate.is_file() else None


CASES = [
    Case(nb13.check_resolver, right=resolves_to, plausible=beside_only),
    # The typical mistake: only the including file's folder searched (as beside_only); the
    # wrong one reads op_host/../.. as the operator's own folder.
    Case(
        nb13.check_which_resolve,
        right=(True, False, True),
        plausible=(True, False, False),
        wrong=(True, True, False),
    ),
]
