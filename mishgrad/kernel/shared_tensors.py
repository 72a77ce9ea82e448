"""The tensors of an isolated launch, in shared memory, each between two guards.

:mod:`mishgrad.kernel.isolation` copies a launch's tensors into shared-memory blocks that its
worker process (:mod:`mishgrad.kernel.worker`) hands the kernel. The twin checks every access an
AscendC call makes, but not a write through a raw pointer (``GetPhyAddr()``, arithmetic on a
``GM_ADDR``): so each tensor lies between two guards of a known pattern, and :func:`strays`
finds the guards and the inputs' bytes such a write changed.
"""

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from multiprocessing.shared_memory import SharedMemory
from typing import Final

import numpy as np

from .messages import translate
from .twin_abi import PROGRESS_DTYPE

#: Bytes of the guards before and after each tensor, where the tensor starts in its block: a
#: page, so that the tensor is as aligned as the block itself.
GUARD_BYTES: Final = 4096
#: The guards' pattern: no value a kernel computes in float32, float16 or bfloat16 is likely
#: to repeat it.
_GUARD: Final = np.frombuffer(b"\xa5\x5a\xc3\x7f" * (GUARD_BYTES // 4), np.uint8)


def tensor(block: SharedMemory, like: np.ndarray) -> np.ndarray:
    """The tensor of ``like``'s shape and dtype in ``block``, between its guards."""
    return np.ndarray(like.shape, like.dtype, buffer=block.buf, offset=GUARD_BYTES)


def strays(
    blocks: dict[str, SharedMemory], arrays: dict[str, np.ndarray], outputs: tuple[str, ...]
) -> list[str]:
    """Where a launch wrote outside its outputs (``arrays`` as sent): guards and inputs' bytes.

    Each finding names the tensor, the side and how many bytes, in the notebook's language.
    """
    found = []
    for role, array in arrays.items():
        raw = np.ndarray(blocks[role].size, np.uint8, buffer=blocks[role].buf)
        before = np.flatnonzero(raw[:GUARD_BYTES] != _GUARD)
        after = np.flatnonzero(raw[GUARD_BYTES + array.nbytes :] != _GUARD)
        if before.size:
            found.append(
                translate(
                    f"before the start of {role}: {GUARD_BYTES - before[0]} bytes before "
                    "its first element changed"
                )
            )
        if after.size:
            found.append(
                translate(
                    f"past the end of {role}: {after[-1] + 1} bytes after its last element changed"
                )
            )
        if role in outputs:
            continue
        rows = (-1, array.itemsize)
        sent, now = array.view(np.uint8).reshape(rows), tensor(blocks[role], array)
        changed = np.flatnonzero((now.view(np.uint8).reshape(rows) != sent).any(axis=1))
        if changed.size:
            found.append(
                translate(
                    f"into the input {role}: {changed.size * array.itemsize} bytes of it "
                    f"changed ({changed.size} elements, the first at index {changed[0]})"
                )
            )
    return found


def progress(board: SharedMemory, cores: int) -> np.ndarray:
    """A copy of the progress board in ``board``, one ``twin::ProgressSlot`` per core.

    A copy, never a view: numpy does not keep a block mapped, so a view that outlived the
    block (in a traceback's frames, say) would read unmapped memory when printed.
    """
    return np.frombuffer(board.buf, PROGRESS_DTYPE, count=max(cores, 1)).copy()


def _guarded(array: np.ndarray, stack: ExitStack) -> SharedMemory:
    """A block holding ``array`` between two guards; closed and unlinked when ``stack`` exits."""
    block = _block(array.nbytes + 2 * GUARD_BYTES, stack)
    raw = np.ndarray(block.size, np.uint8, buffer=block.buf)
    raw[:GUARD_BYTES] = raw[-GUARD_BYTES:] = _GUARD
    tensor(block, array)[...] = array
    return block


class SharedMemoryError(MemoryError):
    """``/dev/shm`` cannot hold a launch's tensors; the message says what to do instead."""


def _block(size: int, stack: ExitStack) -> SharedMemory:
    block = SharedMemory(create=True, size=size)  # zero-filled
    stack.callback(block.unlink)
    stack.callback(block.close)
    # The block's pages are only promised: writing one that /dev/shm has no room for (64 MB in
    # a default Docker container) kills this process with SIGBUS. Reserve them all now.
    try:
        os.posix_fallocate(block._fd, 0, size)  # type: ignore[attr-defined]
    except OSError as error:
        shm = os.statvfs("/dev/shm")
        free = shm.f_bavail * shm.f_frsize
        raise SharedMemoryError(
            translate(
                f"the isolated run needs {size / 2**20:,.1f} MB of shared memory for a tensor, "
                f"and /dev/shm has {free / 2**20:,.1f} MB free ({error.strerror}): run it in "
                "this process (isolated=False), use fewer elements, or give the container "
                "more shared memory (docker run --shm-size=1g)"
            )
        ) from error
    return block


@contextmanager
def shared_tensors(
    arrays: dict[str, np.ndarray], cores: int
) -> Iterator[tuple[dict[str, SharedMemory], SharedMemory]]:
    """Blocks holding ``arrays`` (by role), between guards, and a zeroed progress board.

    The blocks are unlinked on exit; no view of one is kept (see :func:`progress`).
    """
    with ExitStack() as stack:
        blocks = {role: _guarded(array, stack) for role, array in arrays.items()}
        yield blocks, _block(PROGRESS_DTYPE.itemsize * max(cores, 1), stack)
