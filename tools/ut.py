"""The operator's ops-nn-format unit tests (``tests/ut``), built and run on the twin.

``make ut`` and notebook 13 come here. Three gtest programs, as ops-nn's test build makes them:

``op_host``
    ``test_mish_grad_tiling.cpp`` and ``test_mish_grad_infershape.cpp`` with
    ``op_host/mish_grad_tiling.cpp`` and ``mish_grad_infershape.cpp``, compiled with ops-nn's
    tiling include directories (:mod:`mishgrad.kernel.opsnn`) against the twin's registry, contexts
    and context fakers (``kernel/twin/include``).
``op_api``
    ``test_aclnn_mish_backward.cpp``, compiled against the twin's stand-ins for ops-nn's op_api
    test harness (``kernel/twin/include/ut/op_api_ut_common``) and linked with the twin library
    of the same operator folder, whose ``aclnnMishBackwardGetWorkspaceSize`` makes the checks of
    CANN's adapter (both call the contract, ``common/mish_grad_contract.h``). In ops-nn the test
    is linked with ``op_host/op_api`` and CANN's nnopbase instead.
``op_kernel``
    ``test_mish_grad*.cpp`` and the kernel file as ops-nn's ``AddOpTestCase`` builds them (ops-nn
    e5c3fa9, ``cmake/ut.cmake`` lines 636-637 and 700-748): the tests and the kernel compiled
    from a copy of ``op_kernel/`` alone (with that copy on the include path), every source
    force-including ``tests/ut/op_kernel/mish_grad_tiling_def.h`` and built with the options
    of its ``AddOpTestCase`` (``-DDTYPE_X=float``, :func:`kernel_options`); the half and
    bfloat16 tests compile the kernel file themselves for their dtype. The tests set up their
    data as ops-nn's kernel tests do: each copies
    ``<OPS_NN_ROOT>/experimental/activation/mish_grad/tests/ut/op_kernel/mish_grad_data`` into
    its working folder, where ``gen_data.py`` writes inputs and golden and ``compare_data.py``
    applies CANN's precision standard (both need python3 with NumPy only). :func:`run` lays
    out such a root: a temporary folder whose ``experimental/activation/mish_grad`` links to
    ``kernel/mish_grad``. The kernel runs on the twin's virtual cores through its stand-in for
    tikicpulib; the stand-ins for ops-nn's data helpers are ``kernel/twin/include/ut``.

gtest comes from Debian's ``libgtest-dev`` (``make gtest`` installs it). Programs are built
into ``build/ut``, each unit through the twin's object cache: an edit recompiles only the units
that read the edited file.

Run as ``python -m tools.ut`` from the repository (``make ut``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from mishgrad.kernel import compile_units, identity, opsnn, source, twin_build
from mishgrad.kernel.compile_units import Unit

BUILD_DIR: Final = source.REPOSITORY / "build" / "ut"
FLAGS: Final = ["-std=c++17", "-O1", "-pthread", "-Wall", "-Wextra", "-Werror"]
GTEST: Final = ["-lgtest", "-lgtest_main"]
#: The options of the kernel test's ``AddOpTestCase(<op> <SoC> "<options>")``.
_KERNEL_OPTIONS: Final = re.compile(rf'AddOpTestCase\(\s*{opsnn.OP_NAME}\s+"[^"]*"\s+"([^"]*)"')


@dataclass(frozen=True)
class Program:
    """One gtest program: its sources and flags.

    ``kernel_dir``, if set, is an ``op_kernel`` folder: :func:`build` copies its contents into
    the build folder, as ops-nn does before a kernel test (``kernel_src_copy``), and compiles
    the copy's kernel file beside ``sources``, with the copy on the include path.
    ``twin_library``: the program links the twin library built from the operator folder.
    """

    name: str
    sources: tuple[Path, ...]
    flags: tuple[str, ...]
    kernel_dir: Path | None = None
    twin_library: bool = False


def kernel_options(kernel: Path = source.OPERATOR_DIR) -> tuple[str, ...]:
    """The compile options the kernel test's CMakeLists.txt in ``kernel`` gives ``AddOpTestCase``.

    Raises
    ------
    mishgrad.kernel.twin_build.TwinBuildError
        If the file has no ``AddOpTestCase`` of the operator.

    """
    cmake = kernel / "tests" / "ut" / "op_kernel" / "CMakeLists.txt"
    found = _KERNEL_OPTIONS.search(cmake.read_text())
    if found is None:
        raise twin_build.TwinBuildError(f"{cmake} has no AddOpTestCase({opsnn.OP_NAME} ...)")
    return tuple(found[1].split())


def programs(kernel: Path = source.OPERATOR_DIR) -> list[Program]:
    """The host, aclnn and kernel UT programs, in the order ops-nn's test build runs them."""
    include = source.TWIN_DIR / "include"
    stand_ins = (f"-I{include}", f"-I{include / 'ut'}")  # CANN's headers and UT framework
    ut = kernel / "tests" / "ut"
    host = Program(
        "op_host",
        (
            kernel / "op_host" / "mish_grad_tiling.cpp",
            kernel / "op_host" / "mish_grad_infershape.cpp",
            *sorted((ut / "op_host").glob("test_*.cpp")),
        ),
        (*stand_ins, *opsnn.include_flags("tiling", kernel)),
    )
    api = Program(
        "op_api",
        tuple(sorted((ut / "op_api").glob("test_aclnn_*.cpp"))),
        stand_ins,
        twin_library=True,
    )
    tiling_def = ut / "op_kernel" / f"{opsnn.OP_NAME}_tiling_def.h"
    kernels = Program(
        "op_kernel",
        (
            *sorted((ut / "op_kernel").glob(f"test_{opsnn.OP_NAME}*.cpp")),
            *(source.TWIN_DIR / "src" / f for f in twin_build.RUNTIME_SOURCES),
        ),
        (*stand_ins, "-include", str(tiling_def), *kernel_options(kernel), "-ffp-contract=off"),
        kernel / "op_kernel",
    )
    return [host, api, kernels]


def _units(program: Program, folder: Path) -> list[Unit]:
    """The program's translation units; a kernel program's kernel from its copy in ``folder``.

    The copy is made as ops-nn makes it before a kernel test (``kernel_src_copy``).
    """
    units = [(path, program.flags) for path in program.sources]
    if program.kernel_dir is not None:
        identity.write_header(program.kernel_dir.parent)  # the stamp includes it: every build's
        copy = folder / "kernel_src" / program.name / opsnn.OP_NAME
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(program.kernel_dir, copy)
        units = [(path, (*flags, f"-I{copy}")) for path, flags in units]
        units.append((copy / f"{opsnn.OP_NAME}.cpp", (*program.flags, f"-I{copy}")))
    return units


def build(program: Program, kernel: Path = source.OPERATOR_DIR, folder: Path = BUILD_DIR) -> Path:
    """Compile ``program`` into ``folder`` (unless it is built from these very objects).

    Each unit goes through the twin's object cache (:mod:`mishgrad.kernel.compile_units`), so
    an edit recompiles only the units that read the edited file; the binary is relinked when
    one of its objects changed, and used only if it is the file that was written.

    Raises
    ------
    mishgrad.kernel.twin_build.TwinBuildError
        If the compiler or gtest is missing, ``CXX`` cannot be read, or the sources (or the
        twin library the program links) do not compile.

    """
    binary, record = folder / program.name, folder / f"{program.name}.json"
    folder.mkdir(parents=True, exist_ok=True)
    compiler = compile_units.found_compiler()
    if compiler is None:
        raise twin_build.TwinBuildError(
            f"no C++ compiler '{' '.join(compile_units.compiler_command())}'"
        )
    cache = compile_units.ObjectCache(twin_build.cache_root(), compiler, FLAGS, kernel)
    with tempfile.TemporaryDirectory(dir=folder, prefix="build-") as workdir:
        try:
            compiled = cache.objects(_units(program, folder), Path(workdir), program.name)
        except twin_build.TwinBuildError as error:
            raise _explained(program, str(error)) from error
        objects = [str(entry.obj) for entry in compiled]
        libraries = _libraries(program, kernel)
        key = compile_units.digest(repr(compiler), repr(GTEST), *objects, *libraries)
        if _recorded_key(record) == key and compile_units.verified(binary, record):
            return binary
        partial = Path(workdir) / program.name
        command = [*compiler, *FLAGS, *objects, *libraries, *GTEST, "-o", str(partial)]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise _explained(program, result.stderr.strip())
        compile_units.publish_record(partial, record, key=key)
        os.replace(partial, binary)
    return binary


def _libraries(program: Program, kernel: Path) -> list[str]:
    """The link arguments of the libraries ``program`` needs besides gtest (its twin library)."""
    if not program.twin_library:
        return []
    library = twin_build.build(twin_build.kernel_spec(root=kernel))
    return [str(library), f"-Wl,-rpath,{library.parent}"]


def _recorded_key(record: Path) -> object:
    try:
        return json.loads(record.read_text()).get("key")
    except (OSError, ValueError, AttributeError):
        return None


def _explained(program: Program, message: str) -> twin_build.TwinBuildError:
    hint = " (gtest missing? `make gtest`)" if "gtest" in message else ""
    return twin_build.TwinBuildError(f"building {program.name}{hint}:\n{message}")


def run(
    program: Program, kernel: Path = source.OPERATOR_DIR, folder: Path = BUILD_DIR
) -> subprocess.CompletedProcess[str]:
    """Build (see :func:`build`) and run one program as ops-nn's test build would.

    The program runs in an empty working folder with ``OPS_NN_ROOT`` set to a temporary
    ops-nn root whose :data:`mishgrad.kernel.opsnn.OPS_NN_OP_DIR` links to ``kernel``, so the
    kernel test's ``kernel_ut::SetupTestEnvironment`` copies its data folder from there.
    ``python3`` in the tests' script calls is found first in this interpreter's folder (the
    virtual environment's ``bin``, which has NumPy).
    """
    binary = build(program, kernel, folder)
    with tempfile.TemporaryDirectory(prefix="mishgrad-ut-") as temporary:
        root, workdir = Path(temporary) / "ops-nn", Path(temporary) / "work"
        op_dir = root / opsnn.OPS_NN_OP_DIR
        op_dir.parent.mkdir(parents=True)
        op_dir.symlink_to(kernel.resolve(), target_is_directory=True)
        workdir.mkdir()
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        return subprocess.run(
            [str(binary)],
            cwd=workdir,
            env={**os.environ, "PATH": path, "OPS_NN_ROOT": str(root)},
            capture_output=True,
            text=True,
            check=False,
        )


def main() -> int:
    """Run every program (``make ut``), printing its name and output; fail if any failed."""
    failed = 0
    every = programs()
    for program in every:
        print(f"ut: {program.name}", flush=True)
        result = run(program)
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        failed += result.returncode != 0
    print(f"ut: {len(every) - failed} of {len(every)} programs passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
