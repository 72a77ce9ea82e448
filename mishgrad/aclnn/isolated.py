"""The twin of a learner's copy as a backend whose library is loaded only in a worker process.

In the notebook's process, an endless loop in a copy's op_api, tiling or kernel would hang it
for good and a null pointer kill it. A :class:`WorkerBackend`'s functions send their name and
arguments to the worker of :mod:`mishgrad.kernel.isolation` instead, which keeps the library's
state (ACL, streams, device memory, executors) between calls, so sessions and both phases run
on it unchanged. Its watchdog, Interrupt and crash messages apply; phase 1 and phase 2 also
hand the library a progress board, so a tiling or kernel is stopped after
:attr:`~mishgrad.kernel.isolation.Watchdog.stall` seconds without an AscendC call.

Ints, None and bytes cross as they are; a ``byref`` out-parameter and a C array by value, the
former written back; aclrtMemcpy's host memory as bytes, sent, or returned and written into the
caller's array. Each calling thread has a thread in the worker: the library's error messages
are per thread.

The worker is the one ``run_kernel`` uses, not one per library: a learner edits one copy at a
time and every edit rebuilds the library at a new path, so processes would pile up, and one
lock, watchdog and rule for ending with the notebook serve both. A crash, stop or Interrupt ends
the worker and all state in it, whichever run caused it; later calls of a backend bound to it
raise, saying so (a release succeeds: what it frees is gone); the next session binds afresh.
"""

import ctypes
import os
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar, Final, NamedTuple

from mishgrad.kernel import isolation, worker
from mishgrad.kernel.messages import translate
from mishgrad.kernel.platforms import PLATFORMS
from mishgrad.kernel.shared_tensors import progress, shared_tensors

from .binding import SIGNATURES, TWIN_EXTRAS, Backend, twin_at

#: The progress board's slots: one per core of the platform with the most.
SLOTS: Final = max(chip.vector_cores for chip in PLATFORMS.values())
#: Names this worker process in each answer: a backend sees that its worker was replaced.
_TOKEN: Final = uuid.uuid4().hex
#: aclrtMemcpy's kinds (``ACL_MEMCPY_*``): whether its dst and its src are host memory.
_HOST_ENDS: Final = {0: (True, True), 1: (False, True), 2: (True, False)}
#: The calls that only release something: once the worker has ended, that is gone already.
_RELEASES: Final = frozenset(
    ("aclFinalize", "aclrtResetDevice", "aclrtDestroyStream", "aclrtFree", "aclDestroyTensor",
     "aclDestroyAclOpExecutor")
)  # fmt: skip
_BYREF: Final = type(ctypes.byref(ctypes.c_int()))


class _Out(NamedTuple):  # a byref out-parameter
    ctype: type
    value: Any


class _Array(NamedTuple):  # a C array
    ctype: type
    values: list[Any]


class _Host(NamedTuple):  # host memory: data to copy from, or (None) size bytes that come back
    data: bytes | None
    size: int


def _encode(name: str, arguments: tuple[Any, ...]) -> list[Any]:
    """``arguments`` as they cross to the worker (TypeError for another kind, a ``pointer()``)."""
    sent = [_value(argument) for argument in arguments]
    if name == "aclrtMemcpy" and len(sent) == 5:
        _, dest_max, _, count, kind = sent
        fits = type(dest_max) is int and type(count) is int and 0 <= count <= dest_max
        size = count if fits else 0  # the library refuses a count past destMax unread
        ends = _HOST_ENDS.get(kind, ()) if type(kind) is int else ()
        for index, host in zip((0, 2), ends, strict=False):
            data = _host(sent[index], size) if host and sent[index] else None
            if data is not None:  # else the library judges the address, as in this process
                sent[index] = _Host(data if index == 2 else None, size)
    return sent


def _value(argument: Any) -> Any:
    if argument is None or isinstance(argument, (int, bytes)):
        return argument
    if isinstance(argument, ctypes._SimpleCData):  # a handle kept in a c_void_p: the stream
        return argument.value
    if isinstance(argument, ctypes.Array):
        return _Array(argument._type_, list(argument))
    if isinstance(argument, _BYREF):
        return _Out(type(argument._obj), argument._obj.value)
    raise TypeError(
        "a worker's backend passes ints, None, bytes, ctypes values and arrays, and "
        f"byref(...) to the library, not a {type(argument).__name__}"
    )


def _host(address: Any, size: int) -> bytes | None:
    """``size`` bytes of this process's memory at ``address``; None unless all are mapped."""
    try:
        with open("/proc/self/mem", "rb", buffering=0) as memory:  # EIO where ctypes would crash
            data = os.pread(memory.fileno(), max(size, 1), address)
    except (OSError, OverflowError, TypeError):
        return None
    return data[:size] if len(data) == max(size, 1) else None


@dataclass
class WorkerBackend(Backend):
    """A twin library loaded in the worker, each of its functions called there."""

    watchdog: isolation.Watchdog = field(default=isolation.Watchdog(), repr=False)
    #: The token of the worker that answered the first call: the one the backend is bound to.
    worker: str | None = field(default=None, repr=False)
    in_worker: ClassVar[bool] = True

    @classmethod
    def of(cls, path: str, watchdog: isolation.Watchdog) -> "WorkerBackend":
        """The library at ``path``, loaded in the worker at the first call."""
        roles = dict.fromkeys(role for role, _, _ in SIGNATURES.values())
        backend = cls("twin", dict.fromkeys(roles, path), {}, watchdog=watchdog)
        backend.functions = {
            name: partial(backend.call, name) for name in [*SIGNATURES, *TWIN_EXTRAS]
        }
        return backend

    @property
    def served_by(self) -> str:
        """The library file, which serves ``aclnnMishBackward`` in the worker."""
        return os.path.realpath(self.op_library)

    def for_session(self) -> "WorkerBackend":
        """A backend of the same library, bound to the worker that runs at its first call."""
        return WorkerBackend.of(self.op_library, self.watchdog)

    def call(self, name: str, *arguments: Any) -> Any:
        """``name(*arguments)`` in the worker; out-parameters and host memory are written back."""
        if self.ended is not None:
            if name in _RELEASES:
                return 0
            raise RuntimeError(
                translate(
                    f"the worker process that held this library ended ({self.ended}), and with "
                    "it ACL's state, the streams, device memory and executors: open a new "
                    "aclnn.Session"
                )
            )
        sent = _encode(name, arguments)
        token, result, after = self._send(name, sent)
        if token != (self.worker or token):  # a fresh worker answered: the call was not made
            self.ended = translate(
                "it ended between two calls: another run crashed, hung or was interrupted, "
                "or it was killed"
            )
            return self.call(name, *arguments)
        self.worker = token
        for argument, encoded, value in zip(arguments, sent, after, strict=True):
            if isinstance(encoded, _Out):
                argument._obj.value = value
            elif isinstance(encoded, _Host) and encoded.data is None and result == 0:
                ctypes.memmove(argument, value, len(value))
        return result

    def _send(self, name: str, sent: list[Any]) -> tuple[str, Any, list[Any]]:
        with ExitStack() as stack:
            block, board = None, None
            if SIGNATURES.get(name, ("",))[0] == "op":  # may run the copy's tiling or kernel
                _, block = stack.enter_context(shared_tensors({}, SLOTS))
                board = partial(progress, block, SLOTS)
            task = (self.op_library, block and block.name, threading.get_ident(), self.worker)
            try:
                return isolation.call(serve, *task, name, sent, watchdog=self.watchdog, board=board)
            except isolation.KernelError:  # its message went to the caller
                self.ended = translate("a KernelError stopped it")
                raise
            except KeyboardInterrupt:
                self.ended = translate("Interrupt stopped it")
                raise


# In the worker process: a thread per calling thread of the notebook's.
_threads: dict[int, ThreadPoolExecutor] = {}


def serve(
    path: str, board: str | None, thread: int, bound: str | None, name: str, sent: list[Any]
) -> tuple[str, Any, list[Any]]:
    """In the worker: ``name(*sent)`` of the library at ``path``, on ``thread``'s own thread.

    Returns this worker's token, the result and each argument's value afterwards (None but for
    out-parameters and host memory to fill). A call ``bound`` to another worker is not made.
    The library counts its cores' AscendC calls meanwhile on ``board`` (a block's name), if any.
    """
    if bound not in (None, _TOKEN):
        return _TOKEN, None, []
    library = twin_at(path)
    if thread not in _threads:
        _threads[thread] = ThreadPoolExecutor(1)
    memory = worker.attach(board) if board else None
    view = None if memory is None else (ctypes.c_char * memory.size).from_buffer(memory.buf)
    library.mishgrad_twin_set_progress(None if view is None else ctypes.addressof(view), SLOTS)
    try:
        return _TOKEN, *_threads[thread].submit(_perform, library.functions[name], sent).result()
    finally:
        library.mishgrad_twin_set_progress(None, 0)
        del view  # no export of the block may outlive it
        if memory is not None:
            memory.close()


def _perform(function: Callable[..., Any], sent: list[Any]) -> tuple[Any, list[Any]]:
    passed = [_in_c(argument) for argument in sent]
    result = function(*(value for value, _ in passed))
    return result, [read() for _, read in passed]


def _in_c(argument: Any) -> tuple[Any, Callable[[], Any]]:
    """What the worker passes for ``argument``, and what reads its value after the call."""
    if isinstance(argument, _Out):
        value = argument.ctype(argument.value)
        return ctypes.byref(value), lambda: value.value
    if isinstance(argument, _Array):
        return (argument.ctype * len(argument.values))(*argument.values), lambda: None
    if isinstance(argument, _Host):
        buffer = ctypes.create_string_buffer(argument.data or argument.size, argument.size)
        return ctypes.addressof(buffer), lambda: None if argument.data else buffer.raw
    return argument, lambda: None
