"""Waiting until a worker process runs a spinning kernel, by the CPU time it has used.

Shared by the Interrupt tests of tests/test_isolation.py and tests/test_aclnn_isolated.py: an
Interrupt sent before the kernel spins would prove nothing about stopping a running kernel.
"""

import os
import time
from pathlib import Path

#: How long the wait may last, in seconds: a hang guard only (a busy machine is slow to start).
PATIENCE = 600


def cpu_seconds(pid: int) -> float:
    """The user CPU time process ``pid`` has used (utime, the 14th field of /proc/pid/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / os.sysconf("SC_CLK_TCK")


def wait_until_spinning(pid: int) -> None:
    """Return once process ``pid`` has spun for one more second of CPU time."""
    spinning = cpu_seconds(pid) + 1.0
    deadline = time.monotonic() + PATIENCE
    while cpu_seconds(pid) < spinning and time.monotonic() < deadline:
        time.sleep(0.1)
