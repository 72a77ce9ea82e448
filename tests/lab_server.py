"""`make lab` started on a free local port with a token, for the tests that talk to it."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "mishgrad-test"
#: How long a wait on a server or a browser may last, in seconds. Each wait ends as soon as
#: what it waits for holds, so this is a hang guard only: a busy machine may take minutes.
PATIENCE = 600


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url: str, seconds: float = PATIENCE) -> tuple[int, bytes]:
    """GET ``url`` until it answers (or ``seconds`` pass); return status and body."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=seconds) as response:
                return response.status, response.read()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


@contextlib.contextmanager
def running_lab(
    workdir: Path, extra_args: Sequence[str] = (), make_vars: Sequence[str] = ()
) -> Iterator[str]:
    """Run `make lab` (the user's command) until the block ends; yield its base URL.

    ``make_vars`` are more variables for make, e.g. ``["LAB_LANGUAGE=zh-CN"]``.

    Jupyter's runtime and config files go to ``workdir``; the server is stopped with its
    whole process group.
    """
    port = free_port()
    args = " ".join(
        ["--no-browser --ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={TOKEN}", *extra_args]
    )
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(workdir), "JUPYTER_CONFIG_DIR": str(workdir)}
    server = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"LAB_PORT={port}", f"LAB_ARGS={args}", *make_vars],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(f"{base}/lab?token={TOKEN}")
        yield base
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
