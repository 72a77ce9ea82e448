"""Which MishGrad kernel ran: the stamp this repository's kernel leaves in its workspace.

The library that serves ``aclnnMishBackward`` (:attr:`Backend.served_by`) does not decide the
kernel: on a CANN host nnopbase picks the kernel for op type MishGrad from every installed
package (:mod:`mishgrad.kernel.installed`). So the kernel says it itself. Its tiling function
asks for a workspace of its own beyond CANN's system workspace, and core 0 writes a 32-byte
stamp there (``kernel/mish_grad/op_kernel/mish_grad_stamp.h``; the layout is in
``kernel/mish_grad/op_kernel/mish_grad_tiling_data.h``, read from there): the magic ``MISHGRAD``, a
version, the element size, and the plan the kernel ran (blockDim, tileLength, tanhx, n).
:func:`which_kernel` zeroes a call's workspace, runs it, and looks for the stamp. CANN's own
kernel writes none, and a workspace without the stamp means another kernel ran.
"""

import re
from dataclasses import dataclass
from typing import Final

import numpy as np

from mishgrad.kernel import source
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


@dataclass(frozen=True)
class Stamp:
    """What the kernel wrote: its version, element size and the plan it ran."""

    version: int
    element_bytes: int
    block_dim: int
    tile_length: int
    has_tanhx: bool
    length_low32: int


def find_stamp(workspace: bytes) -> Stamp | None:
    """The first stamp in ``workspace`` (at any 4-byte offset), or None."""
    words = np.frombuffer(workspace[: len(workspace) // 4 * 4], dtype="<u4")
    starts = np.flatnonzero((words[:-1] == STAMP_MAGIC[0]) & (words[1:] == STAMP_MAGIC[1]))
    for start in starts:
        fields = words[start + 2 : start + STAMP_WORDS]
        if fields.size == STAMP_WORDS - 2:
            version, size, block_dim, tile, tanhx, length = map(int, fields)
            return Stamp(version, size, block_dim, tile, bool(tanhx), length)
    return None


@dataclass(frozen=True)
class KernelReport:
    """One probe call: which library served it and what its workspace held afterwards."""

    backend: str
    served_by: str
    length: int
    workspace_bytes: int
    stamp: Stamp | None

    @property
    def ours(self) -> bool:
        """Whether this repository's kernel ran: its stamp, for this call's float32 elements."""
        stamp = self.stamp
        return (
            stamp is not None
            and stamp.version == STAMP_VERSION
            and stamp.element_bytes == 4
            and stamp.length_low32 == self.length % 2**32
        )

    def __str__(self) -> str:
        """Which kernel ran, in the notebook's language: notebook 13 prints it."""
        if self.ours:
            assert self.stamp is not None
            return translate(
                f"this repository's kernel ran: its stamp in the workspace (blockDim "
                f"{self.stamp.block_dim}, tileLength {self.stamp.tile_length})"
            )
        return translate(
            f"not this repository's kernel: no stamp in the {self.workspace_bytes}-byte workspace"
        )


def which_kernel(session: Session, length: int = 4096) -> KernelReport:
    """Run ``aclnnMishBackward`` on ``length`` float32 elements and read its zeroed workspace."""
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
    return KernelReport(session.lib.name, session.lib.served_by, length, workspace.nbytes, stamp)
