"""``make cann-check``: compile every Ascend-side source against CANN's real headers.

Each source is compiled with ``g++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror`` (CANN's
own directories with ``-isystem``, so only warnings in our files count), with exactly the
operator directories ops-nn gives that target (:mod:`mishgrad.kernel.opsnn`):

- ``op_kernel/mish_grad.cpp`` for DTYPE_X = float, half and bfloat16_t, in Atlas A2's
  vector-core CPU-debug configuration (dav-c220-vec, as asc-devkit's own header checker);
- ``op_host``: the op definition, infershape and tiling; ``op_host/op_api``; the C example.

Then a self-test plants four API misuses in a copy of the kernel and requires g++ to reject
each one at the kernel's own line. What only CANN's toolkit provides (tikicpulib, the bisheng
intrinsics, libboundscheck's securec.h, the op compiler's per-op tiling header) comes from
``stubs/``, each file saying what it stands in for.

The headers come from ``$CANN_HEADERS`` when it is set: a directory, or a ``.tar.xz`` of the
layout ``asc-devkit/ metadef/ opbase/ runtime/ ops-nn/ gen/`` (CANN's open-source header
trees). Otherwise from the CANN installed at ``$ASCEND_HOME_PATH``, found the way ops-nn's build
finds them (:mod:`installed`; opbase and ops-nn's ``common/`` from ``OPBASE_SOURCE_PATH`` and
``OPS_NN_DIR``). They are never copied into the repository: their license limits their use to
software for Ascend processors.

Usage: ``python tools/cann_check/check.py [OPERATOR_DIR]`` (default ``kernel/mish_grad``). Exit
status 0 if everything passed, 1 on a failure, 2 if the headers are missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from mishgrad.kernel import compile_units, identity, opsnn, source
from mishgrad.math.dtypes import TABLE

sys.path.insert(0, str(Path(__file__).resolve().parent))
import installed  # this folder's module

HERE = Path(__file__).resolve().parent
STUBS = HERE / "stubs"
FLAGS = ["-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror"]

# asc-devkit's include list for kernels (its tikcfw headers) and the dav-c220 vector core's
# defines in CPU-debug mode (asc-devkit tests/api/basic_api/ascendc_header_checker).
_ASC_DIRS = [
    "", "impl", "impl/basic_api", "impl/basic_api/reg_compute", "impl/simt_api", "impl/c_api",
    "include", "include/basic_api", "include/simt_api", "include/simt_api/cpp",
    "include/basic_api/reg_compute", "include/c_api",
]  # fmt: skip
KERNEL_DEFINES = [
    "-D__DAV_C220__", "-D__DAV_C220_VEC__", "-D__NPU_ARCH__=2201",
    "-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1", "-DASCENDC_DUMP=1",
]  # fmt: skip
_METADEF = ["inc/external", "inc/external/asc", "inc", "pkg_inc", "inc/external/exe_graph"]
_OPBASE = [
    "include", "include/nnopbase", "include/aclnnop", "include/op_common",
    "include/op_common/op_host", "pkg_inc", "pkg_inc/op_common",
]  # fmt: skip
#: opbase's folders on the tiling and infershape paths (ops-nn cmake/modules/FindOPBASE.cmake
#: L43-L51, relative to opbase's root): log/log.h, for OP_LOGE, is in include/op_common.
_OPBASE_OPS = [
    "include", "include/op_common", "include/op_common/op_host", "include/op_common/op_graph",
    "pkg_inc", "pkg_inc/op_common", "pkg_inc/op_common/op_host", "pkg_inc/op_common/op_graph",
]  # fmt: skip
_RUNTIME = ["include/external", "pkg_inc"]
_OPS_NN = ["", "common/inc", "common/inc/op_api", "common/stub/op_api"]
#: ops-nn's own folders on the tiling and infershape paths (cmake/variables.cmake L181-L208,
#: OP_TILING_INCLUDE and OP_PROTO_INCLUDE, less their matmul/conv/vfusion folders).
_OPS_NN_TILING = ["", "common/inc", "common/inc/op_host"]
_OPS_NN_INFERSHAPE = ["", "common/inc"]
#: runtime's include/dfx holds base/err_msg.h, which log/log.h includes: on the tiling path as
#: such (variables.cmake L193), installed into CANN's include/ for infershape's.
_RUNTIME_DFX = ["include/dfx"]


@dataclass(frozen=True)
class Check:
    """One compile: a label, the source and its flags."""

    label: str
    source: Path
    flags: tuple[str, ...]


def _system(root: Path, tree: str, subdirs: list[str]) -> list[str]:
    return [f"-isystem{root / tree / sub}" for sub in subdirs]


def cann_dirs(root: Path) -> dict[str, list[str]]:
    """CANN's include directories per target, as ``-isystem`` flags (stubs first)."""
    metadef = _system(root, "metadef", _METADEF)
    runtime = _system(root, "runtime", _RUNTIME)
    host = [
        f"-isystem{STUBS / 'host'}",
        *metadef,
        f"-isystem{root / 'asc-devkit/include/utils'}",
        *runtime,
    ]
    log = [*_system(root, "opbase", _OPBASE_OPS), *_system(root, "runtime", _RUNTIME_DFX)]
    return {
        "kernel": [
            f"-isystem{STUBS / 'kernel'}",
            *_system(root, "asc-devkit", _ASC_DIRS),
            *_system(root, "gen", ["include", ""]),
        ],
        "host": host,
        "tiling": [*host, *log, *_system(root, "ops-nn", _OPS_NN_TILING)],
        "infershape": [*host, *log, *_system(root, "ops-nn", _OPS_NN_INFERSHAPE)],
        "op_api": [*host, *_system(root, "opbase", _OPBASE), *_system(root, "ops-nn", _OPS_NN)],
        "example": [*runtime, f"-isystem{root / 'opbase/include/nnopbase'}"],
    }


def checks(dirs: dict[str, list[str]], kernel: Path) -> list[Check]:
    """Every compile of the check, for CANN's folders ``dirs`` and the operator at ``kernel``."""
    tiling_header = ("-include", str(STUBS / "kernel" / "mish_grad_tiling_header.h"))
    kernel_flags = (*dirs["kernel"], *KERNEL_DEFINES, *tiling_header, "-x", "c++")
    own = opsnn.include_flags
    result = [
        Check(
            f"op_kernel/mish_grad.cpp  DTYPE_X={dtype}",
            kernel / "op_kernel/mish_grad.cpp",
            (*kernel_flags, f"-DDTYPE_X={dtype}", *own("kernel", kernel)),
        )
        for dtype in (record.c_type for record in TABLE.values())
    ]
    # op_def without graph/operator_reg.h, as metadef builds it
    host = [
        ("op_host/mish_grad_def.cpp", "op_def", "host", ("-DNO_OPERATOR_IMPL",)),
        ("op_host/mish_grad_infershape.cpp", "infershape", "infershape", ()),
        ("op_host/mish_grad_tiling.cpp", "tiling", "tiling", ()),
    ]
    result += [
        Check(path, kernel / path, (*dirs[cann], *extra, *own(target, kernel)))
        for path, target, cann, extra in host
    ]
    result += [
        Check(path, kernel / path, (*dirs["op_api"], *own("op_api", kernel)))
        for path in ("op_host/op_api/mish_grad.cpp", "op_host/op_api/aclnn_mish_backward.cpp")
    ]
    example = "examples/test_aclnn_mish_grad.cpp"
    result.append(Check(example, kernel / example, (*dirs["example"], *own("example", kernel))))
    return result


def compile_one(check: Check) -> subprocess.CompletedProcess[str]:
    """Run g++ on one check."""
    command = [*compile_units.compiler_command(), *FLAGS, *check.flags, str(check.source)]
    return subprocess.run(command, capture_output=True, text=True, check=False)


#: The planted misuses: (what, the kernel's text, the misuse). Each must be a compile error.
MISUSES = [
    (
        "CompareScalar with the scalar and the mode swapped",
        "CompareScalar(nonPositive, x, 0.0f, CMPMODE::LE, count)",
        "CompareScalar(nonPositive, x, CMPMODE::LE, 0.0f, count)",
    ),
    (
        "a SELMODE enumerator that does not exist",
        "SELMODE::VSEL_TENSOR_SCALAR_MODE",
        "SELMODE::VSEL_TENSOR_SCALAR",
    ),
    (
        "Cast without a RoundMode",
        "Cast(out, result, RoundMode::CAST_RINT, count)",
        "Cast(out, result, count)",
    ),
    (
        "DataCopyPad with DataCopyParams where DataCopyExtParams is required",
        "DataCopyExtParams{1, bytes, 0, 0, 0}",
        "DataCopyParams{1, static_cast<uint16_t>(bytes), 0, 0}",
    ),
]


def self_test(dirs: dict[str, list[str]], kernel: Path, work: Path) -> list[str]:
    """Plant each misuse in its own copy of the kernel; return the failures (empty: passed)."""
    header = (kernel / "op_kernel/mish_grad.h").read_text()
    failures = []
    for index, (what, right, wrong) in enumerate(MISUSES):
        if right not in header:
            failures.append(f"{what}: `{right}` is no longer in op_kernel/mish_grad.h")
            continue
        copy = work / f"misuse{index}"
        shutil.copytree(kernel / "op_kernel", copy / "op_kernel")
        planted = header.replace(right, wrong, 1)
        (copy / "op_kernel/mish_grad.h").write_text(planted)
        line = planted[: planted.index(wrong)].count("\n") + 1
        check = checks(dirs, copy)[1]  # the kernel, DTYPE_X=half
        output = compile_one(check).stderr
        if not re.search(rf"mish_grad\.h:{line}:\d+: error", output):
            failures.append(f"{what}: no error at op_kernel/mish_grad.h:{line}")
    return failures


def _stop(message: str) -> NoReturn:
    print(message, file=sys.stderr)
    raise SystemExit(2)


@contextmanager
def cann_headers() -> Iterator[dict[str, list[str]]]:
    """CANN's include directories per target, from ``$CANN_HEADERS`` or ``$ASCEND_HOME_PATH``.

    ``$CANN_HEADERS`` (unpacked to a temporary folder if a tarball) wins; without it, the CANN
    installed at ``$ASCEND_HOME_PATH`` (:func:`installed.installed_dirs`). Exits with status 2,
    saying why, if they cannot be found.
    """
    given = os.environ.get("CANN_HEADERS")
    home = os.environ.get("ASCEND_HOME_PATH")
    if not given and home:
        try:
            yield installed.installed_dirs(Path(home), STUBS)
        except installed.LayoutError as error:
            _stop(str(error))
        return
    if not given:
        _stop(
            "cann-check: set CANN_HEADERS to a directory or .tar.xz of CANN's open-source "
            "header trees (asc-devkit/ metadef/ opbase/ runtime/ ops-nn/ gen/), or source "
            "CANN's set_env.sh so that ASCEND_HOME_PATH names an installed CANN"
        )
    path = Path(given).resolve()
    if path.is_dir():
        yield cann_dirs(path)
        return
    if not path.is_file():
        _stop(
            f"cann-check: CANN_HEADERS={given} ({path}): no such file or directory. CI keeps "
            "the headers' archive in a folder beside the clone; elsewhere point CANN_HEADERS "
            "at your copy"
        )
    with tempfile.TemporaryDirectory(prefix="cann-headers-") as folder:
        with tarfile.open(path) as archive:
            archive.extractall(folder, filter="data")
        yield cann_dirs(Path(folder))


def main(argv: list[str]) -> int:
    """Run every check and the self-test; print one line each and a summary."""
    kernel = Path(argv[1] if len(argv) > 1 else source.OPERATOR_DIR).resolve()
    identity.write_header(kernel)  # the kernel's stamp includes it, as in every build
    failed = 0
    with cann_headers() as dirs:
        for check in checks(dirs, kernel):
            result = compile_one(check)
            failed += result.returncode != 0
            print(f"{'PASS' if result.returncode == 0 else 'FAIL'}  {check.label}", flush=True)
            if result.returncode != 0:
                print(result.stderr.strip()[:4000])
        with tempfile.TemporaryDirectory(prefix="cann-check-") as work:
            failures = self_test(dirs, kernel, Path(work))
    for failure in failures:
        print(f"FAIL  self-test: {failure}")
    if not failures:
        print(f"PASS  self-test: all {len(MISUSES)} planted API misuses rejected at our lines")
    failed += len(failures)
    print(f"cann-check: {'passed' if failed == 0 else f'{failed} failed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
