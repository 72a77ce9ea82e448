"""How CANN's ops-nn builds an operator directory: names, paths and per-target include dirs.

``kernel/mish_grad`` is a drop-in ops-nn operator directory. These constants say where it goes
in an ops-nn checkout, what its custom package is called, and which of its directories ops-nn
puts on each compiler's include path: the twin's build and ``make cann-check``
(``tools/cann_check/check.py``) take them from here, so a source that compiles here compiles in
ops-nn too.

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

import json
import os
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

#: The SoCs the package is built for (``--soc``, comma-separated: ops-nn ``build.sh`` L163),
#: Atlas A2 and A3, each with an ``AddConfig`` in ``op_host/mish_grad_def.cpp``: on a SoC it has
#: no kernel for, CANN would run its own kernel with this operator's tiling.
SOCS: Final = ("ascend910b", "ascend910_93")
#: The ops-nn build command for this operator and the install of the package it writes.
BUILD_COMMAND: Final = (
    f"bash build.sh --pkg --experimental --soc={','.join(SOCS)} --ops={OP_NAME} "
    f"--vendor_name={VENDOR}"
)
INSTALL_COMMAND: Final = "bash build_out/cann-ops-nn-*.run"

#: Directories of the operator (relative to it) that ops-nn adds to each target's include
#: path, beyond CANN's own. A quoted include also finds files beside the including file.
INCLUDE_DIRS: Final[dict[str, tuple[str, ...]]] = {
    **dict.fromkeys(("kernel", "op_def", "infershape"), ()),
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


#: A kernel config as nnopbase reads it (``binary_info_config.json``, opbase aa3cd74
#: ``src/nnopbase/composite_op/aclnn_engine/kernel_mgr.cpp`` L41), keyed by op type; one
#: folder per SoC (``{soc}``).
KERNEL_CONFIG: Final = "op_impl/ai_core/tbe/config/{soc}/binary_info_config.json"


def stand_in_package(vendor: Path, library: Path, socs: tuple[str, ...] = SOCS) -> Path:
    """The package as its installer leaves it in ``vendor``, its library a copy of ``library``.

    Its kernel config's entry for MishGrad, one per SoC of ``socs``, is what makes nnopbase
    prefer its kernel on that SoC.
    """
    (vendor / "op_api" / "lib").mkdir(parents=True, exist_ok=True)
    shutil.copy(library, vendor / "op_api" / "lib" / "libcust_opapi.so")
    (vendor / "op_api" / "include").mkdir(parents=True, exist_ok=True)
    op_api = Path(__file__).resolve().parents[2] / "kernel" / OP_NAME / "op_host" / "op_api"
    shutil.copy(op_api / "aclnn_mish_backward.h", vendor / "op_api" / "include")
    for soc in socs:
        config = vendor / KERNEL_CONFIG.format(soc=soc)
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({OP_TYPE: {"opFile": {"value": OP_NAME}}}))
    return vendor


def stand_in_install(root: Path, library: Path, *, package: bool, builtin: bool) -> Path:
    """A folder laid out like an installed CANN whose libraries are copies of ``library``.

    ``library`` must export the whole ABI, as the twin's does. One file per role, so that the
    answer to "which file serves aclnnMishBackward" names one: ``lib64/libascendcl.so``,
    ``lib64/libnnopbase.so`` and, with ``builtin``, CANN's ``libopapi_nn.so``. With ``package``,
    the package is installed the shared way, into CANN's ``opp/vendors`` and its ``config.ini``.
    For tests of the backend's choice, off an NPU.
    """
    cann = root / "cann"
    (cann / "lib64").mkdir(parents=True, exist_ok=True)
    for name in ("libascendcl.so", "libnnopbase.so", *(("libopapi_nn.so",) if builtin else ())):
        shutil.copy(library, cann / "lib64" / name)
    if package:
        stand_in_package(cann / "opp" / "vendors" / VENDOR_DIR, library)
        (cann / "opp" / "vendors" / "config.ini").write_text(f"load_priority={VENDOR_DIR}\n")
    return cann


#: The variables that say where CANN and the package are: a probe sees only those it is given.
_INSTALL_VARIABLES: Final = frozenset(
    {"ASCEND_OPP_PATH", "ASCEND_CUSTOM_OPP_PATH", "MISHGRAD_BACKEND", "MISHGRAD_OPP_PATH"}
)


def probe_backend(cann: Path, kind: str, **variables: str) -> str:
    """Which file serves ``aclnnMishBackward`` for ``MISHGRAD_BACKEND=kind`` under ``cann``.

    Runs in a fresh Python process, as a program starting on that host would (here, the backend's
    libraries, loaded with global scope, would stand in for the symbols of every library loaded
    later). Of the variables that say where packages are, only ``variables`` are set
    (``MISHGRAD_OPP_PATH`` defaults to an empty folder). Returns ``served by ROOT/<path>; ...``
    (``ROOT``: ``cann``'s parent) with the process's ``ASCEND_CUSTOM_OPP_PATH``, or ``stops: <the
    error>``.
    """
    script = (
        "import os, sys; from mishgrad import aclnn; "
        "print(aclnn.load_backend(sys.argv[1]).served_by); "
        "print(os.environ.get('ASCEND_CUSTOM_OPP_PATH', ''))"
    )
    environment = {k: v for k, v in os.environ.items() if k not in _INSTALL_VARIABLES}
    empty = str(cann.parent / "no-private-opp")
    environment |= {"ASCEND_HOME_PATH": str(cann), "MISHGRAD_OPP_PATH": empty, **variables}
    command = [sys.executable, "-c", script, kind]
    result = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    root = cann.parent.resolve()
    if result.returncode == 0:
        served, custom = [*result.stdout.splitlines(), ""][:2]
        relative = [f"ROOT/{Path(p).resolve().relative_to(root)}" for p in custom.split(":") if p]
        return (
            f"served by ROOT/{Path(served).resolve().relative_to(root)}; "
            f"ASCEND_CUSTOM_OPP_PATH={':'.join(relative)}"
        )
    errors = [line for line in result.stderr.strip().splitlines() if "Error: " in line]
    error = next((line for line in reversed(errors) if not line.startswith(" ")), "")
    return "stops: " + error.split("Error: ", 1)[-1].replace(str(root), "ROOT")
