"""A learner's kernel runs in a worker process, so nothing it does can take the notebook down.

A kernel built from a scratch copy of ``kernel/`` (:mod:`mishgrad.kernel.scratch`) may loop
forever, dereference a null pointer or divide by zero. Run in the notebook's own process
through ctypes, an endless loop hangs the Jupyter kernel for good (SIGINT cannot stop C++
code) and a crash kills it. Here a worker process loads the twin library instead, and the
tensors travel through shared memory, so a result is the very bytes an in-process launch
writes. The parent waits in short steps, and:

- a worker that dies (SIGSEGV, SIGBUS, SIGFPE, SIGABRT, ...) becomes a :class:`KernelError`
  that names the signal and, from the progress board the twin keeps in shared memory
  (``twin::ProgressSlot``), each core's last AscendC call;
- a launch in which no core makes an AscendC call for :attr:`Watchdog.stall` seconds, or that
  is still running after :attr:`Watchdog.limit` seconds (default: generous, and longer for
  longer inputs), is stopped and reported the same way, with what to look for;
- ``KeyboardInterrupt`` (JupyterLab's Interrupt) stops the worker at once and is raised
  again: the notebook's next cell runs as usual.

A stopped worker is replaced by a fresh one at the next call.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from multiprocessing.shared_memory import SharedMemory
from pathlib import Path
from typing import Any, Final

import numpy as np

from .twin_abi import PROGRESS_DTYPE, TilingData, TraceEvent, TwinConfig, load

#: How often the parent looks at the worker, in seconds: the interrupt latency.
STEP: Final = 0.05

#: What to look for, by the signal that stopped a kernel.
_HINTS: Final = {
    signal.SIGSEGV: "a pointer that is null or past its buffer (GetPhyAddr, an index past "
    "the end of a LocalTensor or GlobalTensor)",
    signal.SIGBUS: "a pointer past its buffer, or a misaligned one",
    signal.SIGFPE: "an integer division or modulo by zero (a count or a length that is 0?)",
    signal.SIGABRT: "a failed assert, or an exception nothing caught",
}


class KernelError(RuntimeError):
    """The kernel broke a rule of the hardware, crashed or hung; the message says where.

    ``log`` holds what the kernel's ``printf`` and ``DumpTensor`` wrote before it stopped.
    """

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log


@dataclass(frozen=True)
class Watchdog:
    """When the parent stops a launch that does not finish.

    Attributes
    ----------
    stall
        Seconds in which no core makes an AscendC call: an endless loop without one.
    limit
        Seconds the whole launch may take; ``None``: :meth:`limit_for` the input's size.

    """

    stall: float = 10.0
    limit: float | None = None

    def limit_for(self, elements: int) -> float:
        """The time limit for ``elements`` elements: 60 s, and 10 s more per million."""
        return self.limit if self.limit is not None else 60.0 + elements * 1e-5


# -- the worker ------------------------------------------------------------------------------


def _attach(name: str) -> SharedMemory:
    memory = SharedMemory(name=name)
    # The parent owns the block and unlinks it; without this, this process's resource
    # tracker would unlink it too when it exits, and warn of a leak.
    resource_tracker.unregister(memory._name, "shared_memory")  # type: ignore[attr-defined]
    return memory


def _address(memory: SharedMemory, keep: list[Any]) -> int:
    buffer = (ctypes.c_char * memory.size).from_buffer(memory.buf)
    keep.append(buffer)
    return ctypes.addressof(buffer)


def _tiling(library: ctypes.CDLL, arguments: tuple[int, ...]) -> tuple[int, bytes]:
    data = TilingData()
    status = library.mishgrad_tiling(*arguments, ctypes.byref(data))
    return status, bytes(data)


def _launch(library: ctypes.CDLL, request: dict[str, Any]) -> tuple[int, str, str, bytes]:
    memories: dict[str, SharedMemory] = {}
    buffers: list[Any] = []
    try:
        for role, name in request["blocks"].items():
            memories[role] = _attach(name)
        pointers = {role: _address(memory, buffers) for role, memory in memories.items()}
        board = memories["progress"]
        library.mishgrad_twin_set_progress(
            pointers["progress"], board.size // PROGRESS_DTYPE.itemsize
        )
        try:
            status = library.mishgrad_twin_launch(
                request["dtype"],
                pointers["grad"],
                pointers["x"],
                pointers.get("tanhx"),
                pointers["out"],
                ctypes.byref(TilingData.from_buffer_copy(request["tiling"])),
                ctypes.byref(TwinConfig.from_buffer_copy(request["config"])),
            )
        finally:
            library.mishgrad_twin_set_progress(None, 0)
        trace = b""
        if request["trace"]:
            events = (TraceEvent * library.mishgrad_twin_trace_size())()
            copied = library.mishgrad_twin_trace_copy(events, len(events))
            trace = bytes(events)[: copied * ctypes.sizeof(TraceEvent)]
        error = library.mishgrad_twin_last_error().decode()
        return status, error, library.mishgrad_twin_log().decode(), trace
    finally:
        buffers.clear()  # release the exported views before closing the blocks
        for memory in memories.values():
            memory.close()


def _serve(requests: Connection, replies: Connection) -> None:
    """The worker's loop: one request in, one reply out, until the parent goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what an interrupt does
    while True:
        try:
            kind, target, payload = requests.recv()  # target: a library's path, or a module
        except EOFError:
            return
        if kind == "call":
            replies.send(_run(target, *payload))
        elif kind == "tiling":
            replies.send(_tiling(load(Path(target)), payload))
        else:
            replies.send(_launch(load(Path(target)), payload))


def _run(module: str, name: str, arguments: tuple[Any, ...]) -> tuple[bool, Any]:
    """``module.name(*arguments)``: (True, its result) or (False, the exception it raised)."""
    try:
        return True, getattr(importlib.import_module(module), name)(*arguments)
    except Exception as error:  # handed to the parent, which raises it
        return False, error


def main() -> None:
    """The worker process's entry point: requests on stdin, replies on the original stdout."""
    replies = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)  # anything else the process prints goes to stderr, not into the pipe
    _serve(Connection(0, writable=False), replies)


# -- the parent ------------------------------------------------------------------------------


class _Worker:
    """One worker process, started afresh (not forked: no copy of the notebook's threads)."""

    def __init__(self) -> None:
        command = [sys.executable, "-c", "from mishgrad.kernel import isolation; isolation.main()"]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests = Connection(os.dup(self.process.stdin.fileno()), readable=False)
        self.replies = Connection(os.dup(self.process.stdout.fileno()), writable=False)
        self.process.stdin.close()
        self.process.stdout.close()

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        self.requests.close()
        self.replies.close()


_worker: _Worker | None = None


def _current_worker() -> _Worker:
    global _worker
    if _worker is None or not _worker.alive():
        _worker = _Worker()
    return _worker


def _stop_worker() -> None:
    global _worker
    if _worker is not None:
        _worker.stop()
        _worker = None


def _cores(indices: np.ndarray, limit: int = 6) -> str:
    listed = ", ".join(map(str, indices[:limit]))
    return listed + (f" and {indices.size - limit} more" if indices.size > limit else "")


def _last_calls(board: np.ndarray | None) -> str:
    """Each core's last AscendC call, from the progress board, for a message."""
    if board is None or not board["calls"].any():
        return "before any AscendC call (in the tiling, or before Init's first one)"
    busy, idle = np.flatnonzero(board["calls"]), np.flatnonzero(board["calls"] == 0)
    shown = [f"core {c}: {board['op'][c].decode()} (call {board['calls'][c]})" for c in busy[:4]]
    more = f" and {busy.size - 4} more cores" if busy.size > 4 else ""
    quiet = f"; no call yet on core {_cores(idle)}" if idle.size else ""
    return "after these last AscendC calls: " + "; ".join(shown) + more + quiet


def _crashed(worker: _Worker, board: np.ndarray | None) -> str:
    code = worker.process.wait()
    if code >= 0:
        return f"the kernel's process exited with status {code} {_last_calls(board)}"
    number = signal.Signals(-code)
    hint = _HINTS.get(number, "memory the kernel does not own")
    return (
        f"the kernel crashed with {number.name} ({signal.strsignal(number)}) "
        f"{_last_calls(board)}. Look for {hint}. The notebook is unharmed; fix the copy and "
        "run the cell again"
    )


def _call(
    kind: str,
    target: str | Path,
    payload: Any,
    board: np.ndarray | None,
    limit: float,
    stall: float,
) -> Any:
    """Send one request to the worker and wait for its reply, watching it."""
    worker = _current_worker()
    worker.requests.send((kind, str(target), payload))
    start = last_change = time.monotonic()
    last_calls = -1
    try:
        while not worker.replies.poll(STEP):
            if not worker.alive():
                message = _crashed(worker, board)
                _stop_worker()
                raise KernelError(message)
            now = time.monotonic()
            calls = -1 if board is None else int(board["calls"].sum())
            if calls != last_calls:
                last_calls, last_change = calls, now
            if now - last_change > stall and board is not None:
                _stop_worker()
                raise KernelError(
                    f"no AscendC call on any core for {stall:g} s, {_last_calls(board)}: an "
                    "endless loop that calls nothing, such as a `while` whose condition never "
                    "changes? The run was stopped (Watchdog.stall sets the wait)"
                )
            if now - start > limit:
                _stop_worker()
                raise KernelError(
                    f"no result after {limit:g} s, {_last_calls(board)}: an endless loop in "
                    "Process, one whose tile counter never advances? The run was stopped "
                    "(Watchdog.limit sets the wait)"
                )
        return worker.replies.recv()
    except KeyboardInterrupt:
        _stop_worker()
        raise
    except (EOFError, OSError) as error:  # the worker died between the poll and the reply
        message = _crashed(worker, board)
        _stop_worker()
        raise KernelError(message) from error


@contextmanager
def _shared(arrays: dict[str, np.ndarray | None], cores: int) -> Iterator[dict[str, Any]]:
    """Shared-memory copies of ``arrays`` and a zeroed progress board, unlinked on exit."""
    with ExitStack() as stack:
        blocks: dict[str, SharedMemory] = {}
        for role, array in arrays.items():
            if array is None:
                continue
            block = SharedMemory(create=True, size=max(array.nbytes, 1))
            stack.callback(block.unlink)
            stack.callback(block.close)
            np.ndarray(array.shape, array.dtype, buffer=block.buf)[...] = array
            blocks[role] = block
        board_block = SharedMemory(create=True, size=PROGRESS_DTYPE.itemsize * max(cores, 1))
        stack.callback(board_block.unlink)
        stack.callback(board_block.close)
        board = np.ndarray(max(cores, 1), PROGRESS_DTYPE, buffer=board_block.buf)
        board[...] = np.zeros(board.size, PROGRESS_DTYPE)
        state = {"blocks": blocks, "board": board, "board_block": board_block}
        try:
            yield state
        finally:
            state.clear()  # no view of a block may outlive it: close() refuses while one does
            del board


def call(function: Callable[..., Any], *arguments: Any, watchdog: Watchdog = Watchdog()) -> Any:
    """``function(*arguments)`` in the worker: for code that loads a learner's library itself.

    ``function`` must be a module's top-level function, and its arguments and result
    picklable. An exception it raises is raised here; a crash, or no result within
    ``watchdog``'s limit, becomes :class:`KernelError`.
    """
    task = (function.__qualname__, arguments)
    limit = watchdog.limit_for(0)
    returned, value = _call("call", function.__module__, task, None, limit, watchdog.stall)
    if not returned:
        raise value
    return value


def tiling(
    path: Path, arguments: tuple[int, ...], watchdog: Watchdog = Watchdog()
) -> tuple[int, bytes]:
    """``mishgrad_tiling(*arguments)`` of the library at ``path``, in the worker.

    Returns the status and the ``MishGradTilingData`` bytes.
    """
    return _call("tiling", path, arguments, None, watchdog.limit_for(0), watchdog.stall)


def launch(
    path: Path,
    dtype: int,
    arrays: dict[str, np.ndarray | None],
    out: np.ndarray,
    tiling_data: TilingData,
    config: TwinConfig,
    watchdog: Watchdog = Watchdog(),
) -> tuple[int, str, str, bytes]:
    """``mishgrad_twin_launch`` of the library at ``path``, in the worker; ``out`` is written.

    ``arrays`` maps ``grad``, ``x`` and ``tanhx`` (or None) to C-contiguous arrays. Returns the
    status, the twin's error message, the kernel's log and the trace's bytes.

    Raises
    ------
    KernelError
        If the kernel crashed, stalled or ran out of time (the worker is stopped).
    KeyboardInterrupt
        Raised again after the worker is stopped.

    """
    cores = int(tiling_data.blockDim)
    with _shared({**arrays, "out": out}, cores) as shared:
        request = {
            "blocks": {role: block.name for role, block in shared["blocks"].items()}
            | {"progress": shared["board_block"].name},
            "dtype": dtype,
            "tiling": bytes(tiling_data),
            "config": bytes(config),
            "trace": bool(config.trace),
        }
        limit = watchdog.limit_for(out.size)
        reply = _call("launch", path, request, shared["board"], limit, watchdog.stall)
        block = shared["blocks"]["out"]
        out[...] = np.ndarray(out.shape, out.dtype, buffer=block.buf)
        return reply
