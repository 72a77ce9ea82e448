"""The worker process of :mod:`mishgrad.kernel.isolation`: it loads a learner's library and runs it.

The parent sends one request at a time through a pipe: a tiling, a launch, or a call of a
module's function. The worker answers :data:`READY` once it has loaded the library (or imported
the module), which starts the parent's watchdog, and then the result. The tensors of a launch
are shared-memory blocks the parent made: the kernel writes the very bytes the parent reads.
Each tensor starts at an offset into its block, past a guard
(:mod:`mishgrad.kernel.shared_tensors`).
"""

import ctypes
import importlib
import os
import signal
import threading
import time
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from multiprocessing.shared_memory import SharedMemory
from pathlib import Path
from typing import Any, Final

from .twin_abi import PROGRESS_DTYPE, TwinConfig, load, results, run_entry, run_tiling

#: What the worker sends once it has loaded the library (or imported the function's module):
#: the watchdog's clocks start then.
READY: Final = "ready"
#: Whether this process is a worker: a learner's library it loads is isolated already.
serving = False


def attach(name: str) -> SharedMemory:
    """The shared-memory block ``name``, which the parent made and will unlink."""
    memory = SharedMemory(name=name)
    # The parent owns the block and unlinks it; without this, this process's resource
    # tracker would unlink it too when it exits, and warn of a leak.
    resource_tracker.unregister(memory._name, "shared_memory")  # type: ignore[attr-defined]
    return memory


def _launch(library: ctypes.CDLL, request: dict[str, Any]) -> tuple[int, str, str, bytes]:
    memories: dict[str, SharedMemory] = {}
    buffers: list[Any] = []
    try:
        pointers: dict[str, int] = {}
        for role, (name, offset) in request["blocks"].items():  # a tensor starts past its guard
            memory = memories[role] = attach(name)
            buffers.append((ctypes.c_char * memory.size).from_buffer(memory.buf))
            pointers[role] = ctypes.addressof(buffers[-1]) + offset
        slots = memories["progress"].size // PROGRESS_DTYPE.itemsize
        library.mishgrad_twin_set_progress(pointers["progress"], slots)
        regions = {name: (pointers[name], size) for name, size in request["sizes"].items()}
        config = TwinConfig.from_buffer_copy(request["config"])
        try:
            status = run_entry(library, request["launch"], regions, config)
        finally:
            library.mishgrad_twin_set_progress(None, 0)
        return (status, *results(library, request["trace"]))
    finally:
        buffers.clear()  # release the exported views before closing the blocks
        for memory in memories.values():
            memory.close()


def _serve(requests: Connection, replies: Connection) -> None:
    """The worker's loop, until the parent goes away: a request in; :data:`READY`, a reply out."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what an interrupt does
    while True:
        try:
            kind, target, payload = requests.recv()  # target: a library's path, or a module
        except EOFError:
            return
        if kind == "call":
            replies.send(_run(replies, target, *payload))
            continue
        library = load(Path(target))
        replies.send(READY)
        replies.send(
            run_tiling(library, *payload) if kind == "tiling" else _launch(library, payload)
        )


def _run(
    replies: Connection, module: str, name: str, arguments: tuple[Any, ...]
) -> tuple[bool, Any]:
    """``module.name(*arguments)``: (True, its result) or (False, the exception it raised).

    :data:`READY` goes out once the module is imported, before the function runs.
    """
    try:
        function = getattr(importlib.import_module(module), name)
        replies.send(READY)
        return True, function(*arguments)
    except Exception as error:  # handed to the parent, which raises it
        return False, error


def _exit_with(parent: int, every: float) -> None:
    """End this process once ``parent`` is gone (it is then no longer this process's parent)."""
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(1)


def main(parent: int, every: float = 0.5) -> None:
    """The worker process's entry point: requests on stdin, replies on the original stdout.

    A thread watches ``parent`` (the notebook's process): killed, even with SIGKILL, it takes
    the worker with it within ``every`` seconds, though the worker is running a learner's
    endless loop (ctypes releases the GIL during the call, so the thread runs). Not prctl's
    PR_SET_PDEATHSIG: that fires when the *thread* that started the worker ends, as a thread of
    a learner's pool does, and would kill a worker another thread is using.
    """
    global serving
    serving = True
    threading.Thread(target=_exit_with, args=(parent, every), daemon=True).start()
    replies = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)  # anything else the process prints goes to stderr, not into the pipe
    _serve(Connection(0, writable=False), replies)
