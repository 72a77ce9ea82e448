"""Building the twin on demand: cache keyed by the sources, safe concurrency, clear errors."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mishgrad.kernel import compile_units, source, twin, twin_abi, twin_build
from mishgrad.kernel.operators import MISH_GRAD
from tools import ut

pytestmark = pytest.mark.slow  # builds copies of kernel/, and edits them


@pytest.fixture
def kernel_copy(tmp_path: Path) -> Path:
    """A private copy of kernel/ that a test may edit."""
    copy = tmp_path / "kernel"
    shutil.copytree(source.OPERATOR_DIR, copy)
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
    env = {**os.environ, "MISHGRAD_CACHE": str(cache), "MISHGRAD_BUILD_PROGRESS": "0"}
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


# ---------------------------------------------------------------------------------------
# A cache that cannot hurt (a tiny library keeps these fast)
# ---------------------------------------------------------------------------------------


@pytest.fixture
def tiny(tmp_path: Path) -> twin_build.BuildSpec:
    """A one-function library: the build machinery without the twin's compile time."""
    unit = tmp_path / "src" / "tiny.cpp"
    unit.parent.mkdir()
    unit.write_text('extern "C" int tiny_answer() { return 42; }\n')
    return twin_build.BuildSpec("tiny", ((unit, ()),), (unit.parent,), "release")


def answer(library: Path) -> int:
    return ctypes.CDLL(str(library)).tiny_answer()


def test_a_corrupt_library_is_rebuilt_not_loaded(tiny, cache):
    library = twin_build.build(tiny)
    whole = library.read_bytes()
    library.write_bytes(whole[: len(whole) // 2])  # a disk that filled up mid-copy
    rebuilt = twin_build.build(tiny)
    assert rebuilt == library and rebuilt.read_bytes() == whole and answer(rebuilt) == 42


def test_a_killed_build_leaves_nothing_the_next_build_keeps(tiny, cache):
    library = twin_build.build(tiny)
    leftover = cache / "building" / "build-killed"
    (leftover / "half.o").parent.mkdir()
    (leftover / "half.o").write_bytes(b"\0" * 10)
    library.unlink()  # so that the next call builds
    twin_build.build(tiny)
    assert not leftover.exists() and not list((cache / "building").iterdir())
    assert sorted(p.name for p in library.parent.iterdir()) == [library.name, "manifest.json"]


def test_a_populated_cache_works_without_a_compiler(tiny, cache, monkeypatch):
    library = twin_build.build(tiny)
    monkeypatch.setenv("CXX", "no-such-compiler-xyz")
    assert twin_build.build(tiny) == library
    monkeypatch.setenv("MISHGRAD_CACHE", str(cache.parent / "empty"))
    with pytest.raises(twin_build.TwinBuildError, match=r"no C\+\+ compiler.*install g\+\+"):
        twin_build.build(tiny)


def test_cxx_may_carry_arguments_and_must_be_a_compiler(tiny, cache, monkeypatch):
    plain = twin_build.build(tiny)
    monkeypatch.setenv("CXX", "g++ -O0")
    assert answer(twin_build.build(tiny)) == 42
    assert twin_build.build(tiny) != plain  # the arguments are part of what names a build
    monkeypatch.setenv("CXX", "/bin/true")
    with pytest.raises(twin_build.TwinBuildError, match="is CXX a C\\+\\+ compiler"):
        twin_build.build(tiny)


def test_a_bad_cache_setting_names_the_variable(tiny, tmp_path, monkeypatch):
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("")
    monkeypatch.setenv("MISHGRAD_CACHE", str(a_file))
    with pytest.raises(twin_build.TwinBuildError, match=r"MISHGRAD_CACHE=.* is not a folder"):
        twin_build.build(tiny)
    monkeypatch.setenv("MISHGRAD_CACHE", "/proc/mishgrad-cache")  # unwritable, even as root
    with pytest.raises(twin_build.TwinBuildError, match=r"MISHGRAD_CACHE=.* is not writable"):
        twin_build.build(tiny)
    monkeypatch.setenv("MISHGRAD_CACHE", "")  # empty: the default, never the current folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert twin_build.cache_root() == tmp_path / "xdg" / "mishgrad"


# ---------------------------------------------------------------------------------------
# Each unit's object is cached on its own
# ---------------------------------------------------------------------------------------


@pytest.fixture
def two_units(tmp_path: Path) -> twin_build.BuildSpec:
    """Two units; only the first reads ``shared.h``."""
    src = tmp_path / "two"
    src.mkdir()
    (src / "shared.h").write_text("constexpr int kValue = 1;\n")
    (src / "a.cpp").write_text('#include "shared.h"\nextern "C" int a_value() { return kValue; }\n')
    (src / "b.cpp").write_text('extern "C" int b_value() { return 2; }\n')
    units = ((src / "a.cpp", ()), (src / "b.cpp", ()))
    return twin_build.BuildSpec("two", units, (src,), "release")


def objects(cache: Path) -> set[Path]:
    return set((cache / "objects").rglob("*.o"))


def test_an_edit_recompiles_only_the_units_that_read_the_file(
    two_units, cache, monkeypatch, capsys
):
    monkeypatch.delenv("MISHGRAD_BUILD_PROGRESS", raising=False)
    first = twin_build.build(two_units)
    assert f"compiling the twin ({two_units.name}): 2 of 2 units" in capsys.readouterr().out
    before = objects(cache)
    header = two_units.units[0][0].parent / "shared.h"
    header.write_text("constexpr int kValue = 7;\n")
    second = twin_build.build(two_units)
    assert f"compiling the twin ({two_units.name}): 1 of 1 units" in capsys.readouterr().out
    added = objects(cache) - before
    assert len(added) == 1 and ctypes.CDLL(str(second)).a_value() == 7 and second != first
    header.write_text("constexpr int kValue = 1;\n")  # back: both objects are reused
    monkeypatch.setenv("MISHGRAD_BUILD_PROGRESS", "0")
    assert twin_build.build(two_units) == first and capsys.readouterr().out == ""


def test_a_launch_builds_the_kernel_for_its_dtype_only(kernel_copy, cache):
    spec = twin_build.kernel_spec(root=kernel_copy, dtype="float16")
    kernels = [unit for unit in spec.units if unit[0].name == "mish_grad.cpp"]
    assert [flag for flag in kernels[0][1] if flag.startswith("-DDTYPE_X")] == ["-DDTYPE_X=half"]
    assert len(kernels) == 1 and spec.name == "mishgrad_twin_float16"
    assert len([u for u in twin_build.kernel_spec(root=kernel_copy).units if u in kernels]) == 1
    # the float16 library refuses a float32 launch, saying why
    x = np.ones(8, np.float32)
    tensors = {"grad": x, "x": x, "x_grad": np.empty_like(x)}
    launch = twin.Launch("mish_grad_float", MISH_GRAD.arguments, tensors, ("x_grad",), b"", 1, 1)
    config = twin_abi.TwinConfig(196_608, 188_416, 1, 0, 0)
    with pytest.raises(twin.KernelError, match=r"entry is null \(was the library built without it"):
        twin.launch(twin_build.build(spec), launch, config, isolated=False)


# ---------------------------------------------------------------------------------------
# Objects are keyed by content and by paths relative to the kernel folder: a new copy
# compiles nothing it did not change, and no path or damaged artifact breaks the cache
# ---------------------------------------------------------------------------------------


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the units compiled since the test began (counted, never timed)."""
    names: list[str] = []
    original = compile_units.ObjectCache.compile

    def counting(self, unit, workdir):
        names.append(Path(unit[0]).name)
        return original(self, unit, workdir)

    monkeypatch.setattr(compile_units.ObjectCache, "compile", counting)
    return names


def float32_library(kernel_dir: Path) -> Path:
    return twin_build.build(twin_build.kernel_spec(root=kernel_dir, dtype="float32"))


def test_a_new_copy_compiles_nothing_it_did_not_change(kernel_copy, cache, compiled, tmp_path):
    first = float32_library(kernel_copy)
    assert len(compiled) == 8  # six twin units, the glue and the kernel, from an empty cache
    compiled.clear()
    another = tmp_path / "another" / "kernel"
    shutil.copytree(kernel_copy, another)
    assert tile_length(float32_library(another)) == 4096 and compiled == []
    header = another / "op_kernel" / "mish_grad.h"
    header.write_text(header.read_text() + "// a learner's one-line edit\n")
    edited = float32_library(another)
    assert compiled == ["mish_grad.cpp"] and edited != first  # one unit, then a link
    compiled.clear()
    twin_build.build(twin_build.kernel_spec(root=another))  # every dtype: the other two kernels
    assert sorted(compiled) == ["mish_grad.cpp"] * 2


def test_quotes_and_dollars_in_the_path_break_nothing(cache, compiled, tmp_path):
    copy = tmp_path / "it's $HOME and $$ here" / "kernel"
    shutil.copytree(source.OPERATOR_DIR, copy)
    assert tile_length(float32_library(copy)) == 4096
    compiled.clear()
    header = copy / "op_kernel" / "mish_grad.h"
    header.write_text(header.read_text() + "// edited\n")
    float32_library(copy)
    assert compiled == ["mish_grad.cpp"]


@pytest.fixture
def included(tmp_path: Path) -> twin_build.BuildSpec:
    """One unit that includes a file of another suffix (``values.inc``)."""
    src = tmp_path / "inc"
    src.mkdir()
    (src / "values.inc").write_text("constexpr int kValue = 1;\n")
    (src / "a.cpp").write_text(
        '#include "values.inc"\nextern "C" int a_value() { return kValue; }\n'
    )
    return twin_build.BuildSpec("inc", ((src / "a.cpp", ()),), (src,), "release")


def a_value(library: Path) -> int:
    return ctypes.CDLL(str(library)).a_value()


def test_an_edit_of_an_included_file_of_any_suffix_rebuilds(included, cache):
    assert a_value(twin_build.build(included)) == 1
    (included.units[0][0].parent / "values.inc").write_text("constexpr int kValue = 2;\n")
    assert a_value(twin_build.build(included)) == 2


def test_an_edit_that_keeps_the_size_and_the_old_mtime_rebuilds(included, cache):
    assert a_value(twin_build.build(included)) == 1
    values = included.units[0][0].parent / "values.inc"
    before = values.stat()
    values.write_text("constexpr int kValue = 3;\n")  # as `cp -p` or `rsync -t` leave it
    os.utime(values, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert values.stat().st_size == before.st_size
    assert a_value(twin_build.build(included)) == 3


@pytest.mark.parametrize("damage", ["truncated", "empty"])
def test_a_damaged_object_is_compiled_again_not_linked(two_units, cache, compiled, damage):
    first = twin_build.build(two_units)
    assert ctypes.CDLL(str(first)).b_value() == 2
    for obj in objects(cache):
        whole = obj.read_bytes()
        obj.write_bytes(whole[: len(whole) // 2] if damage == "truncated" else b"")
    compiled.clear()
    header = two_units.units[0][0].parent / "shared.h"
    header.write_text("constexpr int kValue = 5;\n")  # a.cpp again, and a new link
    library = ctypes.CDLL(str(twin_build.build(two_units)))
    assert (library.a_value(), library.b_value()) == (5, 2)
    assert sorted(compiled) == ["a.cpp", "b.cpp"]  # b.cpp's damaged object was not trusted


def test_c_compiler_that_links_no_cxx_library_is_refused(tiny, cache, monkeypatch):
    unit = tiny.units[0][0]
    # operator new comes from the C++ library, which gcc (a C compiler's driver) never links
    answer = 'extern "C" int tiny_answer() { std::unique_ptr<int> p(new int(42)); return *p; }'
    unit.write_text(f"#include <memory>\n{answer}\n")
    monkeypatch.setenv("CXX", "gcc")
    with pytest.raises(twin_build.TwinBuildError, match=r"does not load.*C\+\+ compiler"):
        twin_build.build(tiny)
    assert not list(cache.rglob("*.so"))  # nothing that cannot load was published


def test_cxx_that_cannot_be_parsed_is_named(tiny, cache, monkeypatch):
    monkeypatch.setenv("CXX", "g++ '-O0")
    with pytest.raises(twin_build.TwinBuildError, match=r"CXX=g\+\+ '-O0 cannot be read"):
        twin_build.build(tiny)


def test_make_example_and_the_uts_take_cxx_with_arguments(tmp_path):
    env = {**os.environ, "CXX": "g++ -O0", "MISHGRAD_BUILD_PROGRESS": "0"}
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(name, None)
    example = subprocess.run(
        ["make", "-s", "example"], cwd=source.REPOSITORY, env=env, capture_output=True, text=True
    )
    assert example.returncode == 0, example.stderr[-2000:]
    assert "gradInput[7]" in example.stdout
    env["MISHGRAD_CACHE"] = str(tmp_path / "cache")
    script = "import sys; from pathlib import Path; from tools import ut; "
    script += "ut.build(ut.programs()[0], folder=Path(sys.argv[1]))"
    host = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "ut")],
        cwd=source.REPOSITORY,
        env=env,
        capture_output=True,
        text=True,
    )
    assert host.returncode == 0, host.stderr[-2000:]


def test_the_unit_tests_reuse_their_objects(compiled, tmp_path):
    # As notebook 13 builds them on every run: the second build of a program compiles nothing.
    host = ut.programs()[0]
    first = ut.build(host, folder=tmp_path / "ut")
    compiled.clear()
    assert ut.build(host, folder=tmp_path / "ut") == first and compiled == []


ASAN_IN_A_PLAIN_PROCESS = """
import numpy as np
from mishgrad.kernel import twin
from mishgrad.kernel.compile_units import TwinBuildError
try:
    twin.run_kernel(np.ones(8, np.float32), np.ones(8, np.float32), isolated=False)
except TwinBuildError as error:
    print("refused:", error)
"""


def test_the_asan_flavour_is_refused_in_a_process_without_its_runtime():
    """Not a process ended at load: an exception that says how to run it."""
    env = {**os.environ, "MISHGRAD_TWIN_FLAVOUR": "asan"}
    env.pop("LD_PRELOAD", None)
    result = subprocess.run(
        [sys.executable, "-c", ASAN_IN_A_PLAIN_PROCESS], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "refused:" in result.stdout and "LD_PRELOAD" in result.stdout, result.stdout


def test_a_cached_asan_library_is_not_loaded_into_a_plain_process(tmp_path):
    library = twin_build.build()
    folder = tmp_path / "mishgrad_twin-asan-0123"
    folder.mkdir()
    (folder / library.name).write_bytes(library.read_bytes())
    with pytest.raises(twin_build.TwinBuildError, match="sanitizer runtime preloaded"):
        twin_abi.load(folder / library.name)
