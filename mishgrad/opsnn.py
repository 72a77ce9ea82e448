"""How CANN's ops-nn builds an operator directory: names, paths and per-target include dirs.

``kernel/`` is a drop-in ops-nn operator directory. These constants say where it goes in an
ops-nn checkout, what the custom package it builds is called, and which directories of the
operator ops-nn puts on each compiler's include path. The twin's build (:mod:`mishgrad.twin`,
:mod:`mishgrad.example`) and ``make cann-check`` (``tools/cann_check.py``) take the operator's
include directories from here, so a source that compiles here compiles in ops-nn too.

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
