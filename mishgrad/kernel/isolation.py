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
- a launch is stopped, and reported the same way, when no core makes an AscendC call for
  :attr:`Watchdog.stall` seconds (an endless loop that calls nothing), or when a core makes
  more AscendC calls than its tiles can need (:meth:`Watchdog.calls_for`: a loop that never
  advances). A launch whose cores keep calling is never stopped for its running time: after
  :attr:`Watchdog.tell` seconds the parent says once that it is still running, with each
  core's calls so far, and that Interrupt stops it;
- a request without a progress board (a tiling, or a :func:`call` given none) is stopped
  after :attr:`Watchdog.limit` seconds;
- ``KeyboardInterrupt`` (JupyterLab's Interrupt) stops the worker at once and is raised
  again: the notebook's next cell runs as usual;
- a write through a raw pointer (``GetPhyAddr``), which the twin's checks of AscendC calls do
  not see, is caught after the launch when it changed the guard bytes around a tensor or an
  input itself (:mod:`mishgrad.kernel.shared_tensors`).

There is one worker, and threads take turns (:func:`_call`). The watchdog's clocks start when
the worker says it is ready (the library loaded, or the function's module imported), so a busy
machine that is slow to start Python is not taken for a kernel that hangs. A stopped worker is
replaced by a fresh one at the next call.
"""

import atexit
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from multiprocessing.connection import Connection
from multiprocessing.shared_memory import SharedMemory
from pathlib import Path
from typing import Any, Final

import numpy as np

from .messages import translate
from .shared_tensors import GUARD_BYTES, progress, shared_tensors, strays, tensor
from .twin_abi import Launch, TwinConfig
from .worker import READY

#: A launch's progress board (``twin::ProgressSlot`` per core), read afresh at each call.
Board = Callable[[], np.ndarray]

#: How often the parent looks at the worker, in seconds: the interrupt latency.
STEP: Final = 0.05

#: How long a worker may take to become ready, as a multiple of the watchdog's limit: only a
#: hang guard (starting Python and loading a library take seconds even on a busy machine).
STARTUP_FACTOR: Final = 10

#: The AscendC calls a core may make per tile it is given, by default. The project's kernel
#: makes about 60 (its trace in notebook 05); a learner's may add debugging calls, or a loop
#: of instructions to measure their cost: a loop that never advances makes millions.
CALLS_PER_TILE: Final = 10_000

#: What to look for, by the signal that stopped a kernel.
_HINTS: Final = {
    signal.SIGSEGV: "a pointer that is null or past its buffer (GetPhyAddr, an index past "
    "the end of a LocalTensor or GlobalTensor)",
    signal.SIGBUS: "a pointer past its buffer, or a misaligned one",
    signal.SIGFPE: "an integer division or modulo by zero (a count or a length that is 0?)",
    signal.SIGABRT: "a failed assert, or an exception nothing caught",
}
_OTHER_HINT: Final = "memory the kernel does not own"
#: The worker's program (``python -c``); ``parent`` is this process's id.
START = "from mishgrad.kernel import worker; worker.main({parent})"


class KernelError(RuntimeError):
    """The kernel broke a rule of the hardware, crashed or hung; the message says where.

    ``log`` holds what the kernel's ``printf`` and ``DumpTensor`` wrote before it stopped;
    ``stalled`` the seconds without an AscendC call that the watchdog measured when it stopped
    a stalled launch (else None). A learner debugs with the message, so it is in the notebook's
    language (:func:`~mishgrad.kernel.messages.translate`).
    """

    def __init__(self, message: str, log: str = "", *, stalled: float | None = None) -> None:
        super().__init__(translate(message))
        self.log, self.stalled = log, stalled


@dataclass(frozen=True)
class Watchdog:
    """When the parent stops a request that does not finish (see the module's description)."""

    stall: float = 10.0  # seconds in which no core of a launch makes an AscendC call
    calls: int | None = None  # AscendC calls one core of a launch may make (None: calls_for)
    limit: float | None = None  # seconds a request without a board may take (None: limit_for)
    tell: float = 5.0  # seconds after which a launch that still runs says so, once

    def limit_for(self, elements: int) -> float:
        """The time limit for ``elements`` elements: 60 s, and 10 s more per million."""
        return self.limit if self.limit is not None else 60.0 + elements * 1e-5

    def calls_for(self, tiles: int) -> int:
        """The calls a core may make: :data:`CALLS_PER_TILE` per tile, and as many around them."""
        return self.calls if self.calls is not None else CALLS_PER_TILE * (tiles + 1)


class _Worker:
    """One worker process, started afresh (not forked: no copy of the notebook's threads).

    What it writes to stderr (a failed start, a C library's complaint) goes to a file, not to
    the server's console, so that a message about its end can quote it (:meth:`said`).
    """

    def __init__(self) -> None:
        command = [sys.executable, "-c", START.format(parent=os.getpid())]
        self.errors = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests = Connection(os.dup(self.process.stdin.fileno()), readable=False)
        self.replies = Connection(os.dup(self.process.stdout.fileno()), writable=False)
        self.process.stdin.close()
        self.process.stdout.close()

    def alive(self) -> bool:
        return self.process.poll() is None

    def said(self, lines: int = 6) -> str:
        """The last ``lines`` lines the worker wrote to stderr ("" if none)."""
        self.errors.seek(0)
        text = self.errors.read().decode(errors="replace").strip()
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        self.requests.close()
        self.replies.close()
        self.errors.close()


_worker: _Worker | None = None
_requests = threading.Lock()  # one request at a time on the one worker


def _stop_worker() -> None:
    global _worker
    if _worker is not None:
        _worker.stop()
        _worker = None


atexit.register(_stop_worker)  # a worker never outlives the notebook's Python


def _per_core(calls: np.ndarray, shown: int = 3) -> str:
    """Each core's calls (the first ``shown`` cores, then the total): a progress line."""
    counts = enumerate(calls[:shown])
    listed = ", ".join(translate(f"core {core}: {int(count):,}") for core, count in counts)
    if calls.size <= shown:
        return listed
    return listed + ", " + translate(f"… {int(calls.sum()):,} on all {calls.size} cores")


def _last_calls(board: np.ndarray | None) -> str:
    """Each core's last AscendC call, from the progress board, for a message."""
    if board is None or not board["calls"].any():
        return translate("before any AscendC call (in the tiling, or before Init's first one)")
    busy, idle = np.flatnonzero(board["calls"]), np.flatnonzero(board["calls"] == 0)
    calls = "; ".join(
        translate(f"core {c}: {board['op'][c].decode()} (call {board['calls'][c]})")
        for c in busy[:4]
    )
    if busy.size > 4:
        calls = translate(f"{calls} and {busy.size - 4} more cores")
    last = translate(f"after these last AscendC calls: {calls}")
    if not idle.size:
        return last
    cores = ", ".join(map(str, idle[:6]))
    if idle.size > 6:
        cores = translate(f"{cores} and {idle.size - 6} more")
    return translate(f"{last}; no call yet on core {cores}")


def _crashed(worker: _Worker, board: Board | None) -> str:
    code = worker.process.wait()
    calls = _last_calls(board() if board else None)
    said = worker.said()
    if code >= 0:
        ended = translate(f"the kernel's process exited with status {code} {calls}")
        return translate(f"{ended}. It wrote: {said}") if said else ended
    number = signal.Signals(-code)
    if number == signal.SIGKILL:
        return translate(
            f"the kernel's process was killed (SIGKILL) {calls}. A kernel cannot do that "
            "itself: something outside ended it, most often the system's out-of-memory killer "
            "(an input too large for this machine's memory?). The notebook is unharmed"
        )
    hint = translate(_HINTS.get(number, _OTHER_HINT))
    return translate(
        f"the kernel crashed with {number.name} ({signal.strsignal(number)}) "
        f"{calls}. Look for {hint}. The notebook is unharmed; fix the copy and "
        "run the cell again"
    )


class _Watch:
    """The watchdog's view of one request, from the moment the worker is ready.

    ``budget`` is the calls one core may make (a launch), ``board`` reads its progress board (None
    for requests without one).
    """

    def __init__(self, watchdog: Watchdog, limit: float, board: Board | None, budget: int):
        self.watchdog, self.limit, self.board, self.budget = watchdog, limit, board, budget
        self.start = self.last_change = time.monotonic()
        self.last_calls, self.told = 0, False

    def look(self) -> None:
        """Raise :class:`KernelError` if the request must stop now; say once that it runs long."""
        now = time.monotonic()
        if self.board is None:
            if now - self.start > self.limit:
                raise KernelError(
                    f"no result after {self.limit:g} s: an endless loop? The run was stopped "
                    "(Watchdog.limit sets the wait)"
                )
            return
        board = self.board()
        calls = board["calls"]
        total = int(calls.sum())
        if total != self.last_calls:
            self.last_calls, self.last_change = total, now
        if now - self.last_change > self.watchdog.stall:
            raise KernelError(
                f"no AscendC call on any core for {self.watchdog.stall:g} s, "
                f"{_last_calls(board)}: an endless loop that calls nothing, such as a "
                "`while` whose condition never changes? The run was stopped (Watchdog.stall "
                "sets the wait)",
                stalled=now - self.last_change,
            )
        busiest = int(np.argmax(calls))
        if int(calls[busiest]) > self.budget:
            raise KernelError(
                f"core {busiest} made {int(calls[busiest]):,} AscendC calls, more than the "
                f"{self.budget:,} its tiles can need, {_last_calls(board)}: a loop that "
                "never ends, such as a tile counter that never advances? The run was stopped "
                "(Watchdog.calls sets the budget)"
            )
        if now - self.start > self.watchdog.tell and not self.told:
            self.told = True
            said = translate(
                f"Still running after {self.watchdog.tell:g} s; AscendC calls so far: "
                f"{_per_core(calls)}. It is not stopped while they rise: Interrupt stops it."
            )
            print(said, flush=True)


def _await(worker: _Worker, board: Board | None, watch: _Watch | None, guard: float) -> Any:
    """The worker's next message, waited for in steps of :data:`STEP`.

    Without a ``watch`` (the worker is not ready yet) only ``guard`` seconds bound the wait.
    """
    start = time.monotonic()
    while not worker.replies.poll(STEP):
        if not worker.alive():
            raise KernelError(_crashed(worker, board))
        if watch is not None:
            watch.look()
        elif time.monotonic() - start > guard:
            raise KernelError(f"the worker process was not ready after {guard:g} s")
    return worker.replies.recv()


def _call(
    kind: str,
    target: str | Path,
    payload: Any,
    board: Board | None,
    watchdog: Watchdog,
    limit: float,
    budget: int = 0,
    check: Callable[[], None] = lambda: None,
) -> Any:
    """Send one request to the worker and wait for its reply, watching it once it is ready.

    Threads take turns. ``check`` runs when the reply has come, still in turn: a
    :class:`KernelError` it raises stops the worker, as a crash does.
    """
    global _worker
    with _requests:
        if _worker is None or not _worker.alive():
            _worker = _Worker()
        worker = _worker
        try:
            worker.requests.send((kind, str(target), payload))
            message = _await(worker, board, None, STARTUP_FACTOR * limit)
            if message != READY:  # a call whose module could not be imported
                return message
            reply = _await(worker, board, _Watch(watchdog, limit, board, budget), 0.0)
            check()
            return reply
        except (KeyboardInterrupt, KernelError):
            _stop_worker()
            raise
        except (EOFError, OSError) as error:  # the worker died between the poll and the reply
            message = _crashed(worker, board)
            _stop_worker()
            raise KernelError(message) from error


def _check_strays(
    blocks: dict[str, SharedMemory], arrays: dict[str, np.ndarray], outputs: tuple[str, ...]
) -> None:
    """Raise :class:`KernelError` if a launch wrote outside its output.

    The findings are :func:`~mishgrad.kernel.shared_tensors.strays`'s; raised inside
    :func:`_call`'s turn, the error stops the worker, whose memory a raw write may have hit too.
    """
    found = strays(blocks, arrays, outputs)
    if found:
        wrote = found[0] + "".join(translate(f"; and {more}") for more in found[1:])
        raise KernelError(
            "the kernel wrote " + wrote + ". No AscendC call wrote there (the "
            "twin checks those): a raw pointer did, from GetPhyAddr or arithmetic on a GM_ADDR. "
            "On an NPU such a write corrupts whatever lies there. The notebook is unharmed; "
            "fix the copy and run the cell again"
        )


def call(
    function: Callable[..., Any],
    *arguments: Any,
    watchdog: Watchdog = Watchdog(),
    board: Board | None = None,
) -> Any:
    """``function(*arguments)`` in the worker: for code that loads a learner's library itself.

    ``function`` must be a module's top-level function, and its arguments and result
    picklable. An exception it raises is raised here; a crash, or no result within
    ``watchdog``'s limit, becomes :class:`KernelError`. With the progress ``board`` of a launch
    the function makes, the watchdog watches it as a launch's instead (no time limit; the
    calls a core may make are :attr:`Watchdog.calls`, unbounded if None).
    """
    task = (function.__qualname__, arguments)
    limit = watchdog.limit_for(0)
    budget = sys.maxsize if watchdog.calls is None else watchdog.calls
    returned, value = _call("call", function.__module__, task, board, watchdog, limit, budget)
    if not returned:
        raise value
    return value


def tiling(path: Path, function: str, arguments: tuple[int, ...]) -> tuple[int, bytes]:
    """MishGrad's tiling ``function(*arguments)`` in the worker: its status and data's bytes."""
    watchdog = Watchdog()
    return _call("tiling", path, (function, arguments), None, watchdog, watchdog.limit_for(0))


def launch(
    path: Path, launch: Launch, config: TwinConfig, watchdog: Watchdog = Watchdog()
) -> tuple[int, str, str, bytes]:
    """``launch`` (any operator's entry) on the library at ``path``, in the worker.

    The tensors travel through shared memory and the outputs come back into ``launch.tensors``.
    Returns the status, the twin's error message, the kernel's log and the trace's bytes.

    Raises
    ------
    KernelError
        If the kernel crashed, stalled, made more AscendC calls than its tiles can need, or
        wrote outside its outputs (:func:`~mishgrad.kernel.shared_tensors.strays`); the worker
        is stopped.
    KeyboardInterrupt
        Raised again after the worker is stopped.
    """
    cores = launch.block_dim
    sent = dict(launch.tensors)
    with shared_tensors(sent, cores) as (blocks, board_block):
        request = {
            "blocks": {role: (block.name, GUARD_BYTES) for role, block in blocks.items()}
            | {"progress": (board_block.name, 0)},
            "sizes": {role: array.nbytes for role, array in sent.items()},
            "launch": replace(launch, tensors={}),
            "config": bytes(config),
            "trace": bool(config.trace),
        }
        budget = watchdog.calls_for(launch.tiles)
        limit = watchdog.limit_for(max(array.size for array in sent.values()))
        board = partial(progress, board_block, cores)
        check = partial(_check_strays, blocks, sent, launch.outputs)
        reply = _call("launch", path, request, board, watchdog, limit, budget, check)
        for name in launch.outputs:
            launch.tensors[name][...] = tensor(blocks[name], launch.tensors[name])
        return reply
