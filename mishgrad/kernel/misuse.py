"""Kernels that break one rule each, run live on the twin, beside what an NPU shows for them.

``tests/twin/misuse_kernels.cpp`` holds small AscendC programs, each making one classic mistake
(a misaligned UB offset, a read past a tensor, queue misuse, ...). :func:`run` returns the
twin's message for one; :data:`MISUSES` says what each mistake is and what an Ascend NPU shows
for it, with the public source. "Twin-only" marks a check the NPU does not make: it runs on, and
what it computes is undefined (stale or overwritten data), or it fails later, elsewhere.
"""

import ctypes
from dataclasses import dataclass
from functools import cache
from typing import Final

from mishgrad.citations import ASC_DEVKIT, permalink

from . import source, twin_build

#: The misuse programs (C++ against the twin's AscendC headers).
SOURCE: Final = source.REPOSITORY / "tests" / "twin" / "misuse_kernels.cpp"

#: Folders of asc-devkit's documentation (the API reference, the debugging guide).
_API = "docs/zh/api/SIMD-API/基础API/"
_NPU_DEBUG = "docs/zh/guide/编程指南/调试调优/功能调试/NPU域上板调试.md"
#: An AI Core / vector core exception: what the console, the plog and the status code show.
AIVEC_ERROR: Final = (
    "https://www.hiascend.com/document/detail/en/canncommercial/800/maintenref/"
    "troubleshooting/troubleshooting_0003.html"
)
#: msSanitizer's checks (memory, race, uninitialised, synchronisation) on the NPU.
MSSANITIZER: Final = permalink(ASC_DEVKIT, _NPU_DEBUG, (53, 83))


@dataclass(frozen=True)
class Misuse:
    """One mistake: the program that makes it, and what an NPU shows for it."""

    case: str  # the program's name in misuse_kernels.cpp
    mistake: str
    npu: str  # what the NPU shows: a status code and log line, or silent damage
    source: str  # the public page or lines that say so
    twin_only: bool = True  # False: the NPU stops at this call too

    @property
    def source_link(self) -> str:
        """The source as a Markdown link, for a table cell."""
        return f"[source]({self.source})"


MISUSES: Final = (
    Misuse(
        "ub_over_capacity",
        "InitBuffer past the end of the UB",
        "nothing at run time: TPipe::InitBuffer checks the size only when compiled for CANN's "
        "CPU debug mode; on the NPU the buffers lie past the UB's end",
        permalink(ASC_DEVKIT, "impl/basic_api/kernel_tpipe_impl.h", (295, 298)),
    ),
    Misuse(
        "misaligned_ub",
        "a UB operand not on a 32-byte boundary",
        "vector core exception: EZ9999 'there is an aivec error exception … error code = "
        "0x10', 'Illegal instruction, which is usually caused by unaligned UB addresses', plog "
        "'Aicore kernel execute failed'; aclrtSynchronizeStream returns an exception code "
        "(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, 507035)",
        AIVEC_ERROR,
        twin_only=False,
    ),
    Misuse(
        "partial_block_datacopy",
        "DataCopy of 7 floats (28 bytes, not whole 32-byte blocks)",
        "nothing: the length is silently rounded down to whole 32-byte blocks",
        permalink(
            ASC_DEVKIT, _API + "Memory矢量计算/数据搬运/DataCopy（GM与UB连续数据搬运）.md", 79
        ),
    ),
    Misuse(
        "ub_buffer_overrun",
        "a vector instruction over more elements than its buffer holds",
        "nothing at the call: the next buffer is overwritten (silent corruption); "
        "msSanitizer's memory check finds it",
        MSSANITIZER,
    ),
    Misuse(
        "gm_read_past_end",
        "DataCopy reading 8 elements past a tensor's end",
        "nothing on a plain run (the bytes after the tensor are read); msSanitizer reports "
        "'illegal read of size …'; outside mapped memory, a vector core exception",
        MSSANITIZER,
    ),
    Misuse(
        "gm_buffer_outside_tensor",
        "SetGlobalBuffer over memory the host did not pass",
        "nothing: SetGlobalBuffer only records an address; later accesses behave as above",
        MSSANITIZER,
    ),
    Misuse(
        "queue_alloc_full",
        "AllocTensor with every buffer of the queue in use",
        "no documented message: 'allocating resources may fail' (AllocTensor/FreeTensor)",
        permalink(ASC_DEVKIT, _API + "资源管理/TQue/TQue简介.md", 96),
    ),
    Misuse(
        "queue_deque_empty",
        "DeQue from a queue nothing was enqueued to",
        "no documented error; our reading: the DeQue waits for a synchronisation event no "
        "EnQue set (a hang) or proceeds on stale data; msSanitizer's synchronisation check "
        "looks for unpaired synchronisation",
        MSSANITIZER,
    ),
    Misuse(
        "queue_enque_beyond_depth",
        "two EnQue without a DeQue on a queue of depth 1",
        "no documented message: the depth must be the number of consecutive EnQue",
        permalink(ASC_DEVKIT, _API + "资源管理/TQue/TQue简介.md", 29),
    ),
    Misuse(
        "free_twice",
        "FreeTensor twice on one buffer",
        "no documented error; our reading: the buffer's synchronisation events get out of "
        "step, then stale data or a hang; msSanitizer's race and synchronisation checks",
        MSSANITIZER,
    ),
    Misuse(
        "use_after_free",
        "a vector instruction on a buffer after FreeTensor",
        "nothing at the call; our reading: the bytes belong to whichever tile reuses the "
        "buffer (stale data, silently); msSanitizer's race check",
        MSSANITIZER,
    ),
    Misuse(
        "select_scratch_overlap",
        "buffers reaching into the 8 KB Select uses as scratch (Atlas A2)",
        "nothing: Select overwrites the buffers there (silent corruption)",
        permalink(ASC_DEVKIT, _API + "Memory矢量计算/比较与选择/Select.md", (231, 236)),
    ),
    Misuse(
        "dump_past_tensor",
        "DumpTensor of more elements than the tensor holds",
        "nothing: the bytes after the tensor are printed as if they were its elements",
        permalink(ASC_DEVKIT, _API + "调试接口/上板打印/DumpTensor.md", 95),
    ),
)


@cache
def library() -> ctypes.CDLL:
    """The misuse programs, built against the twin (once per process)."""
    lib = twin_build.build_extra("mishgrad_misuse", [SOURCE])
    lib.misuse_run.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint64]
    lib.misuse_run.restype = ctypes.c_int32
    return lib


def run(case: str) -> tuple[int, str]:
    """Run one program on an Atlas A2 twin's core: (0, "") if clean, (1, the twin's message) if not.

    Raises
    ------
    KeyError
        If no program has that name.
    """
    message = ctypes.create_string_buffer(1024)
    status = library().misuse_run(case.encode(), message, len(message))
    if status < 0:
        raise KeyError(f"no misuse program named {case!r}")
    return status, message.value.decode()
