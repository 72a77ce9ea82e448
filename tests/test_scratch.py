"""The scratch kernel: a copy of kernel/ the learner edits, which the twin builds from; reset()
deletes only such a copy, and a test run keeps its copies apart from the learner's."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mishgrad.book import listing
from mishgrad.kernel import scratch, source, twin
from mishgrad.kernel.scratch import ScratchKernel, scratch_kernel


def test_copy_is_made_once_and_never_overwritten(tmp_path: Path) -> None:
    scratch = scratch_kernel("08", root=tmp_path)
    assert scratch.edited() == []
    header = scratch.file("common/mish_grad_tiling.h")
    header.write_text(header.read_text(encoding="utf-8") + "\n// mine\n", encoding="utf-8")
    again = scratch_kernel("08", root=tmp_path)
    assert again.edited() == ["common/mish_grad_tiling.h"]
    again.reset()
    assert again.edited() == []


@pytest.mark.slow
def test_twin_builds_from_the_copy(tmp_path: Path) -> None:
    scratch = scratch_kernel("tile", root=tmp_path)
    original = scratch.native_tiling(10_000, 4, False, 196_352, 40)
    header = scratch.file("common/mish_grad_tiling.h")
    text = header.read_text(encoding="utf-8")
    assert text.count("kSelectScratchBytes = 8192") == 1
    header.write_text(text.replace("kSelectScratchBytes = 8192", "kSelectScratchBytes = 0"))
    edited = scratch.native_tiling(10_000, 4, False, 196_352, 40)
    assert edited.tileLength > original.tileLength
    assert twin.native_tiling(10_000, 4, False, 196_352, 40) == original
    x = np.linspace(-3, 3, 10_000, dtype=np.float32)
    with pytest.raises(twin.KernelError, match="Select"):  # the copy's tiles reach the scratch
        scratch.run_kernel(x, x)
    scratch.reset()
    assert np.array_equal(scratch.run_kernel(x, x).out, twin.run_kernel(x, x).out)


@pytest.mark.parametrize("name", ["", "..", "a/b", ".hidden"])
def test_names_must_be_plain(name: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="name"):
        scratch_kernel(name, root=tmp_path)


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nope\.h"):
        scratch_kernel("x", root=tmp_path).file("nope.h")


def test_replace_edits_one_occurrence_and_shows_the_change(tmp_path: Path) -> None:
    scratch = scratch_kernel("edit", root=tmp_path)
    shown = scratch.replace(
        "op_kernel/mish_grad.h", "Adds(w, e, 1.0f, count);", "Adds(w, e, 2.0f, count);"
    )
    diff = shown.markdown()
    assert (
        "-        Adds(w, e, 1.0f, count);" in diff and "+        Adds(w, e, 2.0f, count);" in diff
    )
    assert scratch.edited() == ["op_kernel/mish_grad.h"] and shown.language == "diff"
    assert "<span" in listing.source_block(shown).html()  # the book colours it
    with pytest.raises(ValueError, match=r"occurs \d+ times in op_kernel/mish_grad\.h"):
        scratch.replace("op_kernel/mish_grad.h", "count);", "")
    with pytest.raises(ValueError, match="does not occur"):
        scratch.replace("op_kernel/mish_grad.h", "no such text", "")
    with pytest.raises(FileNotFoundError):
        scratch.replace("op_kernel/no_such_file.h", "a", "b")
    header = source.OPERATOR_DIR / "op_kernel" / "mish_grad.h"
    assert "Adds(w, e, 1.0f, count);" in header.read_text()


def test_diff_lists_changed_added_and_deleted_files(tmp_path: Path) -> None:
    scratch = scratch_kernel("diff", root=tmp_path)
    assert "no differences" in scratch.diff().markdown()
    scratch.file("README.md").unlink()
    (scratch.path / "op_kernel" / "extra.h").write_text("// mine\n")
    assert scratch.edited() == ["README.md", "op_kernel/extra.h"]
    diff = scratch.diff().markdown()
    assert "--- kernel/mish_grad/README.md" in diff and "+++ copy/op_kernel/extra.h" in diff


def test_reset_works_whatever_state_the_copy_is_in(tmp_path: Path) -> None:
    scratch = scratch_kernel("broken", root=tmp_path)
    shutil.rmtree(scratch.path / "op_kernel")
    scratch.reset()
    assert scratch.edited() == []
    shutil.rmtree(scratch.path)  # the whole copy gone
    scratch.reset()
    assert scratch.edited() == []


# --- reset() deletes only a copy scratch_kernel made (issue 28) ---------------------------


def _stand_in_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the operator that the module takes for it, with an untracked file of its own."""
    stand_in = tmp_path / "repository" / "kernel" / "mish_grad"
    shutil.copytree(source.OPERATOR_DIR, stand_in, ignore=shutil.ignore_patterns("__pycache__"))
    (stand_in / "notes.txt").write_text("untracked\n")
    monkeypatch.setattr(scratch, "OPERATOR_DIR", stand_in)
    monkeypatch.setattr(scratch, "KERNEL_DIR", stand_in.parent)
    return stand_in


def test_reset_refuses_a_folder_that_is_not_a_copy(tmp_path: Path) -> None:
    thesis = tmp_path / "thesis" / "thesis.tex"
    thesis.parent.mkdir()
    thesis.write_text("\\section{Mine}\n")
    with pytest.raises(ValueError, match=r"reset refuses .*thesis.*not a scratch copy"):
        ScratchKernel(thesis.parent).reset()
    assert [p.name for p in thesis.parent.iterdir()] == ["thesis.tex"]
    assert thesis.read_text() == "\\section{Mine}\n"


def test_reset_refuses_kernel_itself_even_with_the_marker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in = _stand_in_kernel(tmp_path, monkeypatch)
    (stand_in / scratch.MARKER).write_text("planted\n")  # the kernel/ check must not need it
    with pytest.raises(ValueError, match=r"reset refuses .*kernel/"):
        ScratchKernel(stand_in).reset()
    assert (stand_in / "notes.txt").read_text() == "untracked\n"


@pytest.mark.parametrize("where", ["containing", "inside"])
def test_reset_refuses_a_folder_containing_kernel_or_inside_it(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in = _stand_in_kernel(tmp_path, monkeypatch)
    folder = stand_in.parent if where == "containing" else stand_in / "op_kernel" / "new"
    with pytest.raises(ValueError, match=r"reset refuses .*kernel/"):
        ScratchKernel(folder).reset()
    assert (stand_in / "notes.txt").read_text() == "untracked\n"
    assert not (stand_in / "op_kernel" / "new").exists()


def test_reset_refuses_a_symlinked_copy(tmp_path: Path) -> None:
    real = scratch_kernel("real", root=tmp_path)
    header = real.file("common/mish_grad_tiling.h")
    header.write_text("// mine\n")
    link = tmp_path / "link"
    link.symlink_to(real.path, target_is_directory=True)
    with pytest.raises(ValueError, match=r"reset refuses .*link.*symbolic link"):
        ScratchKernel(link).reset()
    assert link.is_symlink() and header.read_text() == "// mine\n"


def old_copy(tmp_path: Path) -> Path:
    """A copy as scratch_kernel made them before the marker, with an edit of the learner's."""
    old = tmp_path / "05" / "mish_grad"
    shutil.copytree(source.OPERATOR_DIR, old, ignore=shutil.ignore_patterns("__pycache__"))
    (old / "README.md").write_text("my edit\n")
    return old


def test_a_copy_made_before_copies_were_marked_is_adopted_when_it_holds_only_kernel_files(
    tmp_path: Path,
) -> None:
    old_copy(tmp_path)
    copy = scratch_kernel("05", root=tmp_path)
    assert copy.edited() == ["README.md"]
    copy.reset()
    assert copy.edited() == []


def test_an_unmarked_folder_holding_a_file_of_the_learners_is_kept_and_says_what_to_do(
    tmp_path: Path,
) -> None:
    (old_copy(tmp_path) / "thesis.tex").write_text("\\begin{document}\n")
    copy = scratch_kernel("05", root=tmp_path)
    with pytest.raises(ValueError, match=r"no \.mishgrad-scratch.*delete the folder yourself"):
        copy.reset()
    assert copy.edited() == ["README.md", "thesis.tex"]


def test_a_copy_carries_the_marker_and_edited_ignores_it(tmp_path: Path) -> None:
    copy = scratch_kernel("marked", root=tmp_path)
    assert (copy.path / scratch.MARKER).is_file() and copy.edited() == []


# --- the default root: $MISHGRAD_SCRATCH, and the tests' own (issue 28) -------------------


def test_the_default_root_follows_mishgrad_scratch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MISHGRAD_SCRATCH", str(tmp_path))
    assert scratch_kernel("05").path == tmp_path / "05" / "mish_grad"
    monkeypatch.setenv("MISHGRAD_SCRATCH", "relative/folder")
    with pytest.raises(ValueError, match="MISHGRAD_SCRATCH=relative/folder is not an absolute"):
        scratch_kernel("05")


#: What a notebook's kernel prints for its copy (``print(scratch)`` in notebooks 01, 04, 07, 12).
SHOW_DEFAULT_COPY = (
    "from mishgrad.kernel import scratch; print(scratch.scratch_kernel('nbval-probe'))"
)


def test_a_test_run_keeps_out_of_the_learners_copies() -> None:
    # nbval's kernels inherit this process's environment (tests/conftest.py sets the root).
    shown = subprocess.run(
        [sys.executable, "-c", SHOW_DEFAULT_COPY], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert shown == "build/test-scratch/nbval-probe/mish_grad", shown
    assert not shown.startswith("build/scratch/")


def _notebook_printing_its_copy(stored: str) -> dict:
    """A one-cell notebook that prints its default copy, with ``stored`` as its stored output."""
    output = {"name": "stdout", "output_type": "stream", "text": [f"{stored}\n"]}
    cell = {"cell_type": "code", "execution_count": 1, "id": "copy", "metadata": {}}
    cell |= {"outputs": [output], "source": SHOW_DEFAULT_COPY}
    return {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.mark.slow
def test_nbval_sees_the_stored_path_when_the_tests_redirect_the_root(tmp_path: Path) -> None:
    notebook = tmp_path / "prints_its_copy.ipynb"
    notebook.write_text(
        json.dumps(_notebook_printing_its_copy("build/scratch/nbval-probe/mish_grad"))
    )
    sanitize = source.REPOSITORY / "tests" / "nbval_sanitize.cfg"
    command = [sys.executable, "-m", "pytest", str(notebook), "-q", "-p", "no:cacheprovider"]
    command += ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", str(sanitize)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
