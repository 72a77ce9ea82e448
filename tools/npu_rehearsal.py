"""The test run of an Ascend runner, rehearsed on a stand-in CANN that poses as an Atlas A2 910B3.

``make npu-rehearsal`` runs tests and notebooks as the Ascend workflow's last step runs them on an
NPU (``MISHGRAD_BACKEND=ascend``, one worker, the NPU's nbval sanitizers: ``tests/conftest.py``),
against a CANN made of the twin. :func:`stand_in` lays out ``build/npu-rehearsal/opp``, the
package as ``--install-path`` leaves it (:func:`mishgrad.kernel.opsnn.stand_in_package`), and
``cann/lib64``, whose runtime and nnopbase are links to the package's library: the twin is one
library that plays all three roles, and the dynamic loader maps a file once, whatever name it is
opened by, so the three share one runtime's state. (Copies, which
:func:`~mishgrad.kernel.opsnn.stand_in_install` makes to tell the roles apart, would not: a tensor
of one copy's ``aclCreateTensor`` is unknown to another's ``aclnnMishBackward``.) There is no
built-in operator; ``tests/test_ascend_backend.py`` tests ``ascend-builtin`` on stand-ins of its
own. The stand-in runtime names itself a 910B3 (``aclrtGetSocName``: ``MISHGRAD_TWIN_SOC_NAME``)
and launches on that chip's 40 vector cores (``MISHGRAD_TWIN_VECTOR_CORES``), where the
notebooks' outputs were recorded on the twin's 910B2, with 48.

What it rehearses: the activation of the private package on a SoC it is built for, every call
of the selected backend going to it, one worker, and nbval with the NPU's sanitizers. What it
cannot: CANN's own code (nnopbase, its messages, its workspace sizes) and the vector unit's
arithmetic, which only a run on the NPU shows.

Usage: ``python -m tools.npu_rehearsal COMMAND [ARG...]`` runs COMMAND in :func:`environment`
and exits with its status.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

from mishgrad.kernel import opsnn, twin_build
from mishgrad.kernel.installed import SOC_FOLDERS
from mishgrad.kernel.platforms import PLATFORMS
from mishgrad.paths import REPOSITORY

#: Where the stand-in CANN and the private install are laid out (replaced on every run).
FOLDER: Final = REPOSITORY / "build" / "npu-rehearsal"
#: The chip the stand-in poses as: its ``aclrtGetSocName`` and its key in ``PLATFORMS``.
SOC_NAME: Final = "Ascend910B3"
CHIP: Final = "910B3"
#: Variables of the calling shell that would point the run at another install.
_CLEARED: Final = ("ASCEND_CUSTOM_OPP_PATH", "ASCEND_OPP_PATH")


def stand_in(folder: Path, library: Path | None = None) -> dict[str, str]:
    """Lay out the stand-in CANN and the private install in ``folder``; return the variables.

    ``library`` is the package's library (default: the twin of ``kernel/``); ``folder`` must not
    hold a stand-in yet.

    Raises
    ------
    ValueError
        If the chip's SoC name is not one the package is built for (a misconfigured rehearsal).

    """
    if SOC_FOLDERS.get(SOC_NAME) not in opsnn.SOCS:
        raise ValueError(f"{SOC_NAME} is not a SoC of the package ({', '.join(opsnn.SOCS)})")
    opp = folder / "opp"
    package = opsnn.stand_in_package(
        opp / "vendors" / opsnn.VENDOR_DIR, library or twin_build.build()
    )
    cann = folder / "cann"
    (cann / "lib64").mkdir(parents=True)
    for name in ("libascendcl.so", "libnnopbase.so"):
        (cann / "lib64" / name).symlink_to(package / "op_api" / "lib" / "libcust_opapi.so")
    return {
        "MISHGRAD_BACKEND": "ascend",
        "ASCEND_HOME_PATH": str(cann),
        "MISHGRAD_OPP_PATH": str(opp),
        "MISHGRAD_TWIN_SOC_NAME": SOC_NAME,
        "MISHGRAD_TWIN_VECTOR_CORES": str(PLATFORMS[CHIP].vector_cores),
    }


def environment(folder: Path, library: Path | None = None) -> dict[str, str]:
    """The variables of this process, with :func:`stand_in`'s laid out in ``folder``.

    ``ASCEND_CUSTOM_OPP_PATH`` and ``ASCEND_OPP_PATH`` are removed: a fresh CANN environment has
    neither, and either would point the run at another install.
    """
    kept = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    return kept | stand_in(folder, library)


def main(argv: list[str]) -> int:
    """Lay out the stand-in, then run ``argv`` in its environment; return its exit status."""
    if not argv:
        print("usage: python -m tools.npu_rehearsal COMMAND [ARG...]", file=sys.stderr)
        return 2
    shutil.rmtree(FOLDER, ignore_errors=True)
    variables = environment(FOLDER)
    print(f"npu-rehearsal: a stand-in CANN posing as {SOC_NAME} at {FOLDER}", flush=True)
    return subprocess.run(argv, env=variables, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
