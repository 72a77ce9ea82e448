"""Which MishGrad kernel ran: the stamp this repository's kernel leaves in its workspace.

The library that serves ``aclnnMishBackward`` does not decide the kernel: nnopbase picks it
(:mod:`mishgrad.kernel.installed`). So core 0 of our kernel writes a 64-byte stamp into the
workspace its tiling asks for (``op_kernel/mish_grad_stamp.h``; the layout is read from
``op_kernel/mish_grad_tiling_data.h``): ``MISHGRAD``, a version, the element size, the plan it
ran (blockDim, tileLength, tanhx, n) and its build's :mod:`~mishgrad.kernel.identity`. No stamp
does not prove CANN's kernel ran: any other kernel writes none, and a kernel that runs later in
the call may reuse the workspace (opbase aa3cd74, ``src/nnopbase/common/utils/kernel_graph.cpp``
L198-L239); the evidence is nnopbase's INFO log of the kernel config it parsed
(``composite_op/aclnn_engine/kernel_mgr.cpp`` L209-L228), which the Ascend workflow reads.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from mishgrad.kernel import identity, source
from mishgrad.kernel.messages import translate

from .call import get_workspace_size, run
from .session import Session

_LAYOUT = source.OPERATOR_DIR / "op_kernel" / "mish_grad_tiling_data.h"
_CONSTANTS: Final = {
    name: int(value, 0)
    for name, value in re.findall(
        r"constexpr uint32_t kStamp(\w+) = (0x[0-9A-Fa-f]+|\d+)u?;", _LAYOUT.read_text()
    )
}
#: The stamp's words, its version and its first two words, as the kernel's header defines them.
STAMP_WORDS: Final = _CONSTANTS["Words"]
STAMP_VERSION: Final = _CONSTANTS["Version"]
STAMP_MAGIC: Final = (_CONSTANTS["MagicLow"], _CONSTANTS["MagicHigh"])
#: Words every version writes (magic, version, element size, plan, n), and the first version
#: that writes the build's identity after them (an old package's stamp is version 1).
_PLAN_WORDS, _IDENTIFIED = 8, 2
#: What :attr:`KernelReport.verdict` says.
THIS_BUILD, ANOTHER_BUILD = "this build", "another build of this kernel"
NOT_OURS: Final = "not this repository's kernel"


@dataclass(frozen=True)
class Stamp:
    """What the kernel wrote: its version, element size, the plan it ran and its build."""

    version: int
    element_bytes: int
    block_dim: int
    tile_length: int
    has_tanhx: bool
    length_low32: int
    identity: str  # the sources' SHA-256 in hex; "" in a version-1 stamp, which had none


def find_stamp(workspace: bytes) -> Stamp | None:
    """The first whole stamp in ``workspace`` (at any 4-byte offset), or None."""
    words = np.frombuffer(workspace[: len(workspace) // 4 * 4], dtype="<u4")
    starts = np.flatnonzero((words[:-1] == STAMP_MAGIC[0]) & (words[1:] == STAMP_MAGIC[1]))
    for start in starts:
        fields = words[start + 2 : start + _PLAN_WORDS]
        version = int(fields[0]) if fields.size else 0
        end = start + (STAMP_WORDS if version >= _IDENTIFIED else _PLAN_WORDS)
        if fields.size == _PLAN_WORDS - 2 and end <= words.size:
            _, size, block_dim, tile, tanhx, length = map(int, fields)
            build = words[start + _PLAN_WORDS : end].tobytes().hex()
            return Stamp(version, size, block_dim, tile, bool(tanhx), length, build)
    return None


@dataclass(frozen=True)
class KernelReport:
    """One probe call: which library served it, what its workspace held, whose sources count."""

    backend: str
    served_by: str
    length: int
    workspace_bytes: int
    stamp: Stamp | None
    checkout: str  # the identity a stamp must name to be this build

    @property
    def verdict(self) -> str:
        """:data:`THIS_BUILD`, :data:`ANOTHER_BUILD` or :data:`NOT_OURS`."""
        if self.stamp is None:
            return NOT_OURS
        return ANOTHER_BUILD if self._difference() else THIS_BUILD

    @property
    def ours(self) -> bool:
        """Whether this build of this repository's kernel ran, for this call's float32 elements."""
        return self.verdict == THIS_BUILD

    def _difference(self) -> str:
        """How the stamp differs from what this build writes for this call ("": it does not)."""
        stamp = self.stamp
        assert stamp is not None
        call = (stamp.version, stamp.element_bytes, stamp.length_low32)
        if call != (STAMP_VERSION, 4, self.length % 2**32):
            return translate(
                f"its stamp is version {stamp.version}, for {stamp.length_low32} elements of "
                f"{stamp.element_bytes} bytes; this build's for this call would be version "
                f"{STAMP_VERSION}, for {self.length} of 4"
            )
        if stamp.identity == self.checkout:
            return ""
        return translate(
            "its stamp names other sources than this checkout's (an older package, or a copy "
            "with edits)"
        )

    def __str__(self) -> str:
        """Which kernel ran, in the notebook's language: notebook 13 prints it."""
        if self.stamp is None:
            none = translate(
                f"not this repository's kernel: no stamp in the {self.workspace_bytes}-byte "
                "workspace"
            )
            if self.backend == "ascend-builtin":
                none += translate(
                    "; that it was CANN's own is inferred (ASCEND_GLOBAL_LOG_LEVEL=1 makes "
                    "nnopbase log the kernel config it parsed)"
                )
            return none
        if difference := self._difference():
            return translate(f"another build of this kernel ran: {difference}")
        return translate(
            f"this build of this repository's kernel ran: its stamp in the workspace (blockDim "
            f"{self.stamp.block_dim}, tileLength {self.stamp.tile_length})"
        )


def which_kernel(
    session: Session, length: int = 4096, sources: Path = source.OPERATOR_DIR
) -> KernelReport:
    """Run ``aclnnMishBackward`` on ``length`` float32 elements and read its zeroed workspace.

    ``sources``: the operator folder whose build counts as this one (a scratch copy's, for a
    session on its twin); the checkout's by default.
    """
    grad = session.tensor(np.ones(length, dtype=np.float32))
    x = session.tensor(np.linspace(-8, 8, length, dtype=np.float32))
    out = session.empty((length,), np.float32)
    try:
        phase1 = get_workspace_size(session, grad, x, out)
        workspace = np.zeros(phase1.workspace_size, dtype=np.uint8)
        address = session.malloc(max(workspace.nbytes, 1))
        try:
            session.upload(address, workspace)  # a stamp left by an earlier call would lie
            run(session, phase1, workspace=address)
            session.download(address, workspace)
        finally:
            session.free(address)
    finally:
        session.release(grad, x, out)
    stamp = find_stamp(workspace.tobytes())
    lib = session.lib
    return KernelReport(
        lib.name, lib.served_by, length, workspace.nbytes, stamp, identity.of(sources)
    )
