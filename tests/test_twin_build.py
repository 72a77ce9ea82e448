"""Building the twin on demand: cache keyed by the sources, safe concurrency, clear errors."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mishgrad.kernel import source, twin, twin_build


@pytest.fixture
def kernel_copy(tmp_path: Path) -> Path:
    """A private copy of kernel/ that a test may edit."""
    copy = tmp_path / "kernel"
    shutil.copytree(source.KERNEL_DIR, copy)
    return copy


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("MISHGRAD_CACHE", str(folder))
    return folder


def tile_length(library_path: Path) -> int:
    library = ctypes.CDLL(str(library_path))
    data = twin.TilingData()
    status = library.mishgrad_tiling(
        ctypes.c_uint64(10_000),
        ctypes.c_uint32(4),
        ctypes.c_int32(0),
        ctypes.c_uint64(196_352),
        ctypes.c_uint32(48),
        ctypes.c_int32(1),
        ctypes.byref(data),
    )
    assert status == 0
    return data.tileLength


def test_editing_a_source_rebuilds_and_the_edit_takes_effect(kernel_copy, cache):
    spec = twin_build.kernel_spec(root=kernel_copy)
    first = twin_build.build(spec)
    assert twin_build.build(twin_build.kernel_spec(root=kernel_copy)) == first  # unchanged: reused
    assert tile_length(first) == 4096
    header = kernel_copy / "common" / "mish_grad_tiling.h"
    text = header.read_text()
    header.write_text(text.replace("kTileAlignElements = 256;", "kTileAlignElements = 768;"))
    second = twin_build.build(twin_build.kernel_spec(root=kernel_copy))
    assert second != first and second.exists()
    assert tile_length(second) == 3840  # 4257 elements fit; whole multiples of 768 now


def test_a_compile_error_is_reported_with_the_compiler_message(kernel_copy, cache):
    kernel = kernel_copy / "op_kernel" / "mish_grad.h"
    kernel.write_text(kernel.read_text().replace("Exp(e, e, count);", "Exp(e, e, count)"))
    with pytest.raises(
        twin_build.TwinBuildError, match=r"compiling mish_grad.cpp failed:(.|\n)*error"
    ):
        twin_build.build(twin_build.kernel_spec(root=kernel_copy))
    assert not list(cache.rglob("*.so"))  # nothing half-built was published


def test_a_missing_compiler_says_what_to_install(kernel_copy, cache, monkeypatch):
    monkeypatch.setenv("CXX", "no-such-compiler-xyz")
    with pytest.raises(twin_build.TwinBuildError, match="install g\\+\\+"):
        twin_build.build(twin_build.kernel_spec(root=kernel_copy))


def test_missing_kernel_sources_are_reported(tmp_path):
    with pytest.raises(twin_build.TwinBuildError, match="kernel sources not found"):
        twin_build.kernel_spec(root=tmp_path)


def test_two_processes_building_at_once_both_get_a_whole_library(kernel_copy, cache):
    script = (
        "import sys; from pathlib import Path; from mishgrad.kernel import twin_build; "
        "print(twin_build.build(twin_build.kernel_spec(root=Path(sys.argv[1]))))"
    )
    env = {**os.environ, "MISHGRAD_CACHE": str(cache)}
    builders = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(kernel_copy)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [builder.communicate(timeout=600) for builder in builders]
    assert all(builder.returncode == 0 for builder in builders), results
    paths = {out.strip() for out, _ in results}
    assert len(paths) == 1
    assert tile_length(Path(paths.pop())) == 4096
    assert len(list(cache.rglob("*.so"))) == 1
