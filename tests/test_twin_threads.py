"""Threads that run the project's kernel in this process each get their own launch's results.

The twin keeps the last launch's error, log and trace for the caller to read after it returns;
without a lock, a thread read another launch's trace (10 of 24 runs on six threads).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from mishgrad.kernel import twin


def inputs(n: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(-20, 20, n, dtype=np.float32)
    return np.full_like(x, 0.5), x


def test_threads_in_this_process_read_their_own_trace_and_log():
    lengths = [1000 + 37 * i for i in range(24)]
    alone = {n: twin.run_kernel(*inputs(n), trace=True) for n in lengths}

    def together(n: int) -> twin.KernelRun:
        return twin.run_kernel(*inputs(n), trace=True)

    with ThreadPoolExecutor(6) as pool:
        runs = list(pool.map(together, lengths, timeout=1200))  # a hang guard only
    for n, run in zip(lengths, runs, strict=True):
        assert run.out.tobytes() == alone[n].out.tobytes()
        assert np.array_equal(run.trace, alone[n].trace) and run.log == alone[n].log
