"""A learner's scratch copy of the operator's folder, for exercises that edit the kernel.

An exercise that says "change this line of the kernel" must never change ``kernel/`` itself:
a forgotten undo would silently change every later notebook and test. Instead the notebook
makes a copy of the operator's folder (``kernel/mish_grad``, :data:`~.source.OPERATOR_DIR`)
under ``build/scratch/<name>/mish_grad`` and the learner edits that, from the
notebook (:meth:`ScratchKernel.replace`, which shows the change) or in an editor; the twin
builds from the copy and the repository's ``kernel/twin``
(:func:`mishgrad.kernel.twin.run_kernel` with ``kernel_dir``), in a worker
process (:mod:`mishgrad.kernel.isolation`). The copy is made once and never overwritten, so the
learner's edits survive a re-run of the notebook; :meth:`ScratchKernel.diff` shows them all and
:meth:`ScratchKernel.reset` restores the copy, whatever state it is in.

``reset`` deletes a folder, so it acts only on a copy :func:`scratch_kernel` made: each copy
holds a hidden marker file (:data:`MARKER`), which no other folder has. It refuses anything
else (a folder of the learner's, ``kernel/`` or anything in it, a folder containing it, a
symbolic link) and deletes nothing then. A copy made before copies were marked is marked when
:func:`scratch_kernel` finds it holding only files of the operator's folder, so it is provably
a copy.

The environment variable ``MISHGRAD_SCRATCH`` (an absolute path; unset or empty:
``build/scratch``) moves the copies elsewhere. The tests set it (``tests/conftest.py``), so a
test run never touches the copies a learner edits in JupyterLab at the same time.
"""

import contextlib
import difflib
import filecmp
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from . import identity, tiling, twin
from .messages import translate
from .source import KERNEL_DIR, OPERATOR_DIR, REPOSITORY, Listing, shown

#: Where scratch copies live unless ``MISHGRAD_SCRATCH`` says otherwise: ``build/`` of the
#: repository (ignored by git).
SCRATCH_ROOT: Final = REPOSITORY / "build" / "scratch"
#: The environment variable that moves the copies (:func:`scratch_root`).
ROOT_VARIABLE: Final = "MISHGRAD_SCRATCH"
#: The hidden file each copy holds: the proof that :meth:`ScratchKernel.reset` may delete it.
MARKER: Final = ".mishgrad-scratch"
_subfolder = ""


def scratch_root() -> Path:
    """Where copies live by default: ``$MISHGRAD_SCRATCH``, or :data:`SCRATCH_ROOT`.

    Read at each call, so that a test (or a notebook's kernel started by one) can move the
    copies away from the learner's. An empty value counts as unset.

    Raises
    ------
    ValueError
        If ``MISHGRAD_SCRATCH`` is not an absolute path (a relative one would depend on the
        folder each Jupyter kernel starts in).
    """
    value = os.environ.get(ROOT_VARIABLE, "")
    if not value:
        return SCRATCH_ROOT
    if not Path(value).is_absolute():
        raise ValueError(f"{ROOT_VARIABLE}={value} is not an absolute path: give a full path")
    return Path(value)


def set_subfolder(name: str) -> None:
    """Make :func:`scratch_kernel`'s copies under ``scratch_root()/name`` from now on.

    ``""`` is :func:`scratch_root` itself. The book gives each language a folder of its own
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
    """One scratch copy of an operator's folder (``original``), and the twin built from it."""

    path: Path
    original: Path = OPERATOR_DIR

    def __str__(self) -> str:
        """The copy's path, relative to the repository when it is inside it (as printed)."""
        return shown(self.path)

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
        """The files that differ between the copy and the original: changed, added or deleted."""
        names = _files(self.path) | _files(self.original)
        return sorted(name for name in names if not _same(self.path / name, self.original / name))

    def replace(self, relative: str, old: str, new: str) -> Listing:
        """Edit a file of the copy: its one occurrence of ``old`` becomes ``new``; show the change.

        Raises
        ------
        FileNotFoundError
            If the copy has no such file.
        ValueError
            If ``old`` occurs in it not exactly once (say more of the line to make it unique).
        """
        path = self.file(relative)
        text = path.read_text(encoding="utf-8")
        found = text.count(old)
        if found != 1:
            where = "does not occur" if found == 0 else f"occurs {found} times"
            raise ValueError(f"old {where} in {relative}: give text that occurs exactly once")
        path.write_text(text.replace(old, new), encoding="utf-8")
        after = path.read_text(encoding="utf-8")
        return Listing(_unified(text, after, self.original, relative), "diff")

    def diff(self) -> Listing:
        """Every difference between the copy and the original, as one unified diff."""
        parts = [
            _unified(_text(self.original / name), _text(self.path / name), self.original, name)
            for name in self.edited()
        ]
        same = translate(f"(no differences: the copy is {shown(self.original)}/)")
        return Listing("\n".join(parts) or same, "diff")

    def reset(self) -> None:
        """Throw the edits away: the copy becomes the original again, whatever state it is in.

        A missing copy is made afresh. Only a copy :func:`scratch_kernel` made is deleted.

        Raises
        ------
        ValueError
            If ``path`` is a symbolic link, overlaps ``kernel/`` or is not a copy
            :func:`scratch_kernel` made (it has no :data:`MARKER`: a folder holding a file
            the operator's folder does not have): nothing is deleted, and the message says why
            and what to do.
        """
        refusal = _refusal(self.path)
        if refusal:
            raise ValueError(
                translate(f"reset refuses path {self.path}: {refusal}; nothing was deleted")
            )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _discard(self.path)
        _copy(self.original, self.path)

    def run_kernel(self, *args: object, **kwargs: object) -> twin.KernelRun:
        """:func:`mishgrad.kernel.twin.run_kernel`, with the twin built from this copy."""
        return twin.run_kernel(*args, kernel_dir=self.path, **kwargs)  # type: ignore[arg-type]

    def native_tiling(self, *args: object) -> tiling.TilingPlan:
        """:func:`mishgrad.kernel.twin.native_tiling` (the C++ ``ComputeTiling``) of this copy."""
        return twin.native_tiling(*args, kernel_dir=self.path)  # type: ignore[arg-type]


def _files(root: Path) -> set[str]:
    """The files under ``root`` that a copy holds (relative paths), as :func:`_copy` makes them."""
    return {
        str(path.relative_to(root))
        for path in root.rglob("*")
        if path.is_file() and not any(map(_left_out, path.relative_to(root).parts))
    }


def _left_out(name: str) -> bool:
    """What a copy leaves out: bytecode caches, hidden files, the identity header (its build's)."""
    return name in ("__pycache__", Path(identity.HEADER).name) or name.startswith(".")


def _same(copy: Path, original: Path) -> bool:
    return copy.is_file() and original.is_file() and filecmp.cmp(copy, original, shallow=False)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""


def _unified(before: str, after: str, original: Path, name: str) -> str:
    """``diff -u`` of one file: the original on the left, the copy on the right."""
    lines = difflib.unified_diff(
        before.splitlines(),
        after.splitlines(),
        f"{shown(original)}/{name}",
        f"copy/{name}",
        lineterm="",
    )
    return "\n".join(lines)


_NOT_A_COPY_MESSAGE: Final = (
    f"it is not a scratch copy: it has no {MARKER}, the file scratch_kernel writes into every "
    "copy it makes, so it may hold files that are not a copy's. If it is a copy made before "
    "copies were marked, keep what you want of it (`scratch.diff()` shows your edits), delete "
    "the folder yourself and run the notebook's cell again: scratch_kernel then makes a fresh copy"
)


def _refusal(path: Path) -> str | None:
    """Why :meth:`ScratchKernel.reset` must not delete ``path`` (``None``: it may).

    A learner reads the reason, in the notebook's language.
    """
    if path.is_symlink():
        return translate(
            "it is a symbolic link; reset deletes only a copy itself, never a link's target"
        )
    kernel, folder = KERNEL_DIR.resolve(), path.resolve()
    if kernel.is_relative_to(folder) or folder.is_relative_to(kernel):
        return translate(f"it is kernel/ ({KERNEL_DIR}), contains it or lies inside it")
    if path.exists() and not (path / MARKER).is_file():
        return translate(_NOT_A_COPY_MESSAGE)
    return None


def _discard(copy: Path) -> None:
    """Delete a copy, renamed aside first: no process sees it half deleted. Gone: nothing."""
    aside = Path(tempfile.mkdtemp(prefix=f".{copy.name}.discarded-", dir=copy.parent))
    with contextlib.suppress(FileNotFoundError):  # deleted by hand, or by another reset
        copy.rename(aside / copy.name)
    shutil.rmtree(aside)


def _mark(original: Path, copy: Path) -> None:
    (copy / MARKER).write_text(
        f"A scratch copy of {shown(original)}/ made by mishgrad.kernel.scratch: "
        "reset() may delete it.\n",
        encoding="utf-8",
    )


def _copy(original: Path, destination: Path) -> None:
    # Copied beside the destination, then renamed: a second process never sees half a copy.
    partial = destination.with_name(f".{destination.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(original, partial, ignore=lambda _, names: list(filter(_left_out, names)))
    _mark(original, partial)
    try:
        partial.rename(destination)
    except OSError:  # another process made the copy first: keep theirs
        shutil.rmtree(partial)


def scratch_kernel(
    name: str, root: Path | None = None, original: Path = OPERATOR_DIR
) -> ScratchKernel:
    """The scratch copy ``name`` of an operator's folder (made the first time; never overwritten).

    Parameters
    ----------
    name
        Which copy: one per notebook, e.g. ``"05"``.
    root
        Where copies live (default :func:`scratch_root`, in the subfolder last given to
        :func:`set_subfolder`; tests pass a temporary folder).
    original
        The operator's folder to copy: MishGrad's by default, or another one (notebook 14's
        skeleton of SiluGrad, :data:`~mishgrad.kernel.operators.SILU_GRAD`'s folder).

    Raises
    ------
    ValueError
        If ``name`` is not a plain folder name, or ``MISHGRAD_SCRATCH`` not an absolute path.
    """
    _check_folder_name(name)
    path = Path(root or scratch_root() / _subfolder) / name / original.name
    if not path.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        _copy(original, path)
    _adopt(original, path)
    return ScratchKernel(path, original)


def _adopt(original: Path, path: Path) -> None:
    """Mark a copy made before copies were marked, if it provably is one.

    It is, when every file in it is a file of the operator's folder (edited or not): then no
    file of the learner's is in it, and :meth:`ScratchKernel.reset` may put it back. A folder
    holding any other file stays unmarked, and ``reset`` refuses it.
    """
    if path.is_symlink() or (path / MARKER).exists() or not _files(path) <= _files(original):
        return
    _mark(original, path)
