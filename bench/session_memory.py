"""A long-lived aclnn session over many calls: memory and time per call stay flat.

``aclnn.mish_backward(..., session=s)`` releases each call's device tensors when it returns
(notebook 09 calls it in a loop). This runs 5,000 calls on one session with the CPU twin's
runtime and prints the process's resident memory and the time per call every 1,000 calls;
it exits with status 1 if memory grew by more than 10 MB or the last 1,000 calls took more
than twice as long as the first. Run with ``make bench``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from mishgrad import aclnn

CALLS = 5_000
REPORT_EVERY = 1_000
#: Growth allowed over the run: the allocator's noise, far below one call's tensors x CALLS.
MAX_GROWTH_MB = 10.0


def resident_mb() -> float:
    """The process's resident memory in MB (Linux ``/proc``)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 2**20


def main() -> int:
    rng = np.random.default_rng(8)
    grad = rng.normal(size=(16, 1000)).astype(np.float32)
    x = rng.uniform(-20, 20, (16, 1000)).astype(np.float32)
    print(f"{CALLS} calls of aclnn.mish_backward on one session, 16 x 1000 float32")
    print(f"  {'calls':>6s} {'resident MB':>12s} {'ms per call':>12s}")
    rates = []
    with aclnn.Session() as session:
        start_mb = resident_mb()
        start = time.perf_counter()
        for call in range(1, CALLS + 1):
            aclnn.mish_backward(grad, x, session=session)
            if call % REPORT_EVERY == 0:
                elapsed = time.perf_counter() - start
                rates.append(1e3 * elapsed / REPORT_EVERY)
                print(f"  {call:6d} {resident_mb():12.1f} {rates[-1]:12.3f}")
                start = time.perf_counter()
        growth = resident_mb() - start_mb
        live = len(session._tensors)  # the session's tensors not yet released
    flat = growth <= MAX_GROWTH_MB and rates[-1] <= 2 * rates[0] and live == 0
    print(
        f"  memory grew by {growth:.1f} MB (limit {MAX_GROWTH_MB:g}); tensors still held: {live}; "
        f"{'flat' if flat else 'NOT FLAT'}"
    )
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main())
