"""A learner's scratch copy of ``kernel/``, for exercises that edit the kernel.

An exercise that says "change this line of the kernel" must never change ``kernel/`` itself:
a forgotten undo would silently change every later notebook and test. Instead the notebook
makes a copy under ``build/scratch/<name>/kernel`` and the learner edits that; the twin
builds from the copy (:func:`mishgrad.kernel.twin.run_kernel` with ``kernel_dir``). The copy is
made once and never overwritten, so the learner's edits survive a re-run of the notebook;
:meth:`ScratchKernel.reset` restores it on request.
"""

from __future__ import annotations

import filecmp
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from . import tiling, twin
from .source import KERNEL_DIR, REPOSITORY

#: Where scratch copies live: ``build/`` of the repository (ignored by git).
SCRATCH_ROOT: Final = REPOSITORY / "build" / "scratch"
_subfolder = ""


def set_subfolder(name: str) -> None:
    """Make :func:`scratch_kernel`'s copies under ``SCRATCH_ROOT/name`` from now on.

    ``""`` is :data:`SCRATCH_ROOT` itself. The book gives each language a folder of its own
    (:func:`mishgrad.book.language.use`), so the two editions never share a learner's edits.

    Raises
    ------
    ValueError
        If ``name`` is neither empty nor a plain folder name.

    """
    global _subfolder
    if name:
        _check_folder_name(name)
    _subfolder = name


def _check_folder_name(name: str) -> None:
    if not name or Path(name).name != name or name.startswith("."):
        raise ValueError(f"name must be a plain folder name, not {name!r}")


@dataclass(frozen=True)
class ScratchKernel:
    """One scratch copy of ``kernel/``, and the twin built from it."""

    path: Path

    def __str__(self) -> str:
        """The copy's path, relative to the repository when it is inside it (as printed)."""
        inside = self.path.is_relative_to(REPOSITORY)
        return str(self.path.relative_to(REPOSITORY) if inside else self.path)

    def file(self, relative: str) -> Path:
        """A file of the copy, e.g. ``file("common/mish_grad_tiling.h")``.

        Raises
        ------
        FileNotFoundError
            If the copy has no such file.

        """
        path = self.path / relative
        if not path.is_file():
            raise FileNotFoundError(f"relative: no file {relative!r} in {self.path}")
        return path

    def edited(self) -> list[str]:
        """The files of the copy that differ from ``kernel/`` (paths relative to the copy)."""
        return sorted(
            str(path.relative_to(self.path))
            for path in self.path.rglob("*")
            if path.is_file() and not _same(path, KERNEL_DIR / path.relative_to(self.path))
        )

    def reset(self) -> None:
        """Throw the learner's edits away: the copy becomes ``kernel/`` again."""
        shutil.rmtree(self.path)
        _copy(self.path)

    def run_kernel(self, *args: object, **kwargs: object) -> twin.KernelRun:
        """:func:`mishgrad.kernel.twin.run_kernel`, with the twin built from this copy."""
        return twin.run_kernel(*args, kernel_dir=self.path, **kwargs)  # type: ignore[arg-type]

    def native_tiling(self, *args: object) -> tiling.TilingPlan:
        """:func:`mishgrad.kernel.twin.native_tiling` (the C++ ``ComputeTiling``) of this copy."""
        return twin.native_tiling(*args, kernel_dir=self.path)  # type: ignore[arg-type]


def _same(copy: Path, original: Path) -> bool:
    return original.is_file() and filecmp.cmp(copy, original, shallow=False)


def _copy(destination: Path) -> None:
    # Copied beside the destination, then renamed: a second process never sees half a copy.
    partial = destination.with_name(f".{destination.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(KERNEL_DIR, partial, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    try:
        partial.rename(destination)
    except OSError:  # another process made the copy first: keep theirs
        shutil.rmtree(partial)


def scratch_kernel(name: str, root: Path | None = None) -> ScratchKernel:
    """The scratch copy ``name`` (made from ``kernel/`` the first time; never overwritten).

    Parameters
    ----------
    name
        Which copy: one per notebook, e.g. ``"05"``.
    root
        Where copies live (default :data:`SCRATCH_ROOT`, in the subfolder last given to
        :func:`set_subfolder`; tests pass a temporary folder).

    Raises
    ------
    ValueError
        If ``name`` is not a plain folder name.

    """
    _check_folder_name(name)
    path = Path(root or SCRATCH_ROOT / _subfolder) / name / "kernel"
    if not path.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        _copy(path)
    return ScratchKernel(path)
