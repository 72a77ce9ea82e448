"""The scratch kernel: a copy of kernel/ the learner edits, which the twin builds from."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from mishgrad.kernel import source, twin
from mishgrad.kernel.scratch import scratch_kernel


def test_copy_is_made_once_and_never_overwritten(tmp_path: Path) -> None:
    scratch = scratch_kernel("07", root=tmp_path)
    assert scratch.edited() == []
    header = scratch.file("common/mish_grad_tiling.h")
    header.write_text(header.read_text(encoding="utf-8") + "\n// mine\n", encoding="utf-8")
    again = scratch_kernel("07", root=tmp_path)
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
    assert scratch.edited() == ["op_kernel/mish_grad.h"] and "<span" in shown.html()
    with pytest.raises(ValueError, match=r"occurs \d+ times in op_kernel/mish_grad\.h"):
        scratch.replace("op_kernel/mish_grad.h", "count);", "")
    with pytest.raises(ValueError, match="does not occur"):
        scratch.replace("op_kernel/mish_grad.h", "no such text", "")
    with pytest.raises(FileNotFoundError):
        scratch.replace("op_kernel/no_such_file.h", "a", "b")
    assert (
        "Adds(w, e, 1.0f, count);" in (source.KERNEL_DIR / "op_kernel" / "mish_grad.h").read_text()
    )


def test_diff_lists_changed_added_and_deleted_files(tmp_path: Path) -> None:
    scratch = scratch_kernel("diff", root=tmp_path)
    assert "no differences" in scratch.diff().markdown()
    scratch.file("README.md").unlink()
    (scratch.path / "op_kernel" / "extra.h").write_text("// mine\n")
    assert scratch.edited() == ["README.md", "op_kernel/extra.h"]
    diff = scratch.diff().markdown()
    assert "--- kernel/README.md" in diff and "+++ copy/op_kernel/extra.h" in diff


def test_reset_works_whatever_state_the_copy_is_in(tmp_path: Path) -> None:
    scratch = scratch_kernel("broken", root=tmp_path)
    shutil.rmtree(scratch.path / "op_kernel")
    scratch.reset()
    assert scratch.edited() == []
    shutil.rmtree(scratch.path)  # the whole copy gone
    scratch.reset()
    assert scratch.edited() == []
