"""How CANN's ops-nn builds an operator directory: names, paths and per-target include dirs.

``kernel/`` is a drop-in ops-nn operator directory. These constants say where it goes in an
ops-nn checkout, what the custom package it builds is called, and which directories of the
operator ops-nn puts on each compiler's include path. The twin's build
(:mod:`mishgrad.kernel.twin_build`, :mod:`mishgrad.aclnn.example`) and ``make cann-check``
(``tools/cann_check/check.py``) take the operator's include directories from here, so a
source that compiles here compiles in ops-nn too.

Sources, cann/ops-nn at commit e5c3fa9327ea95ba26d06227e746923580d10921:

- ``cmake/func.cmake`` lines 459-480 (``add_tiling_sources``): tiling sources get
  ``<op>/op_host`` and ``<op>/op_host/../..``;
- lines 488-512 (``add_modules_sources``): op_api sources get ``<op>/op_host/op_api``;
  infershape and op_def sources get no directory of the operator (lines 553-557, 581-590);
- ``cmake/gen_ops_info.cmake`` lines 14-48 (``kernel_src_copy``): only the contents of
  ``<op>/op_kernel`` are copied to where the kernel is compiled;
- ``cmake/variables.cmake`` line 23 and lines 73-93: a custom package of vendor ``NAME``
  installs into ``opp/vendors/NAME_nn``, its aclnn library into ``op_api/lib``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

#: The operator directory's name in ops-nn; ops-nn derives the op_def file
#: (``op_host/mish_grad_def.cpp``) and kernel entry (``op_kernel/mish_grad.cpp``) from it.
OP_NAME: Final = "mish_grad"
#: The op type (``OP_ADD(MishGrad)`` in the op_def).
OP_TYPE: Final = "MishGrad"
#: Where the directory goes in an ops-nn checkout (replacing ops-nn's own experimental op).
OPS_NN_OP_DIR: Final = f"experimental/activation/{OP_NAME}"
#: ``build.sh --vendor_name``; the package installs into ``opp/vendors/<VENDOR>_nn``.
VENDOR: Final = "mishgrad"
VENDOR_DIR: Final = f"{VENDOR}_nn"
#: The custom package's aclnn library, relative to ``$ASCEND_HOME_PATH``.
CUSTOM_OPAPI: Final = f"opp/vendors/{VENDOR_DIR}/op_api/lib/libcust_opapi.so"

#: The ops-nn build command for this operator and the install of the package it writes.
BUILD_COMMAND: Final = (
    f"bash build.sh --pkg --experimental --soc=ascend910b --ops={OP_NAME} --vendor_name={VENDOR}"
)
INSTALL_COMMAND: Final = "bash build_out/cann-ops-nn-*.run"

#: Directories of the operator (relative to it) that ops-nn adds to each target's include
#: path, beyond CANN's own. A quoted include also finds files beside the including file.
INCLUDE_DIRS: Final[dict[str, tuple[str, ...]]] = {
    "kernel": (),
    "op_def": (),
    "infershape": (),
    "tiling": ("op_host", "op_host/../.."),
    "op_api": ("op_host/op_api",),
    # the example is compiled with the installed package's op_api/include (run.sh), which
    # holds the aclnn header that op_host/op_api/ has here
    "example": ("op_host/op_api",),
}


def include_flags(target: str, op_dir: Path) -> list[str]:
    """``-I`` flags for ``target``'s operator directories, rooted at ``op_dir``.

    Raises
    ------
    KeyError
        For a target not in :data:`INCLUDE_DIRS`.

    """
    return [f"-I{op_dir / folder}" for folder in INCLUDE_DIRS[target]]


#: Which ops-nn target compiles each Ascend-side source (for :func:`include_report`).
TARGETS: Final[dict[str, str]] = {
    "op_kernel/mish_grad.cpp": "kernel",
    "op_kernel/mish_grad.h": "kernel",
    "op_host/mish_grad_def.cpp": "op_def",
    "op_host/mish_grad_infershape.cpp": "infershape",
    "op_host/mish_grad_tiling.cpp": "tiling",
    "common/mish_grad_tiling.h": "tiling",
    "op_host/op_api/aclnn_mish_backward.cpp": "op_api",
    "op_host/op_api/mish_grad_l0.cpp": "op_api",
    "common/mish_grad_contract.h": "op_api",
    "examples/test_aclnn_mish_grad.cpp": "example",
}

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def resolve_include(source: Path, name: str, target: str, op_dir: Path) -> Path | None:
    """Where ``#include "name"`` in ``source`` resolves within the operator, as ops-nn compiles it.

    A quoted include is searched beside the including file first, then in the target's
    directories. None means it is not the operator's file (CANN provides it, or nothing does).
    """
    for folder in (source.parent, *(op_dir / d for d in INCLUDE_DIRS[target])):
        candidate = (folder / name).resolve()
        if candidate.is_file() and candidate.is_relative_to(op_dir.resolve()):
            return candidate
    return None


def include_report(op_dir: Path) -> list[tuple[str, str, str, str]]:
    """Each quoted include of the Ascend-side sources: (file, target, include, resolved file).

    The resolved file is relative to ``op_dir``, or ``CANN`` when the operator has no such file.
    """
    rows = []
    for relative, target in TARGETS.items():
        source = op_dir / relative
        for name in _INCLUDE.findall(source.read_text()):
            found = resolve_include(source, name, target, op_dir)
            where = "CANN" if found is None else str(found.relative_to(op_dir.resolve()))
            rows.append((relative, target, name, where))
    return rows


def purpose(path: Path) -> str:
    """The first sentence of a file's leading comment or docstring: what the file is for."""
    words: list[str] = []
    for line in path.read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("#!") or (not words and not stripped):
            continue
        text = stripped.lstrip("/#").strip().strip('"').strip()
        if not text or (words and not stripped.startswith(("//", "#", '"""'))):
            break
        words.append(text)
        sentence = " ".join(words)
        if sentence.endswith((".", ":")) or ". " in sentence:
            break
    sentence = " ".join(words)
    return sentence.split(". ")[0].rstrip(".:")


def operator_files(op_dir: Path) -> list[Path]:
    """The files that go into ops-nn: everything but the CPU twin and caches, sorted."""
    return sorted(
        p.relative_to(op_dir)
        for p in op_dir.rglob("*")
        if p.is_file() and p.relative_to(op_dir).parts[0] != "twin" and "__pycache__" not in p.parts
    )


def stand_in_install(root: Path, library: Path, *, package: bool, builtin: bool) -> Path:
    """A folder laid out like an installed CANN whose libraries are copies of ``library``.

    ``library`` must export the whole ABI (the twin's does). There is one file per role —
    ``lib64/libascendcl.so``, ``lib64/libnnopbase.so``, with ``package`` this repository's
    ``libcust_opapi.so`` under ``opp/vendors``, with ``builtin`` CANN's ``libopapi_nn.so`` — so
    the dynamic linker's answer to "which file serves aclnnMishBackward" names exactly one.
    Used to test, without an NPU, how the helper chooses the operator's library.
    """
    cann = root / "cann"
    targets = [cann / "lib64" / "libascendcl.so", cann / "lib64" / "libnnopbase.so"]
    targets += [cann / CUSTOM_OPAPI] if package else []
    targets += [cann / "lib64" / "libopapi_nn.so"] if builtin else []
    for target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(library, target)
    return cann


def probe_backend(cann: Path, kind: str, keep: tuple[str, ...] = ()) -> str:
    """Which file serves ``aclnnMishBackward`` for ``MISHGRAD_BACKEND=kind`` under ``cann``.

    Runs in a fresh Python process, as a program starting on that host would: the backend's
    libraries are loaded with global scope (CANN's operator libraries resolve runtime symbols
    through them), and in this process they would then stand in for the same symbols of every
    library loaded later, the twin's included. Returns ``served by <path relative to cann>``,
    or ``stops: <the error>``. The CANN variables that name other install folders are
    cleared, unless listed in ``keep``.
    """
    script = (
        "import sys; from mishgrad import aclnn; print(aclnn.load_backend(sys.argv[1]).served_by)"
    )
    environment = {
        k: v
        for k, v in os.environ.items()
        if k in keep or k not in {"ASCEND_OPP_PATH", "ASCEND_CUSTOM_OPP_PATH", "MISHGRAD_BACKEND"}
    }
    environment["ASCEND_HOME_PATH"] = str(cann)
    result = subprocess.run(
        [sys.executable, "-c", script, kind],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode == 0:
        served = Path(result.stdout.strip()).relative_to(cann.resolve())
        return f"served by $ASCEND_HOME_PATH/{served}"
    error = result.stderr.strip().splitlines()[-1].removeprefix("OSError: ")
    return "stops: " + error
