"""Kernel benchmark: vector instructions per tile, and the twin's throughput.

Prints, for each dtype and branch, the vector instructions of one full tile as the twin's
trace counts them (Exp and Div separately) and the share of the bandwidth roof they allow on
an Atlas A2 at 1.6 TB/s (``bench/instruction_budget.py``), how many of them the root window takes
(counted in its source), the targets for float32 without tanhx (1 Exp, at most 2 Div, and
few enough instructions to stay bandwidth-bound on an Atlas A2 at the bandwidth of ops-nn's
migration guide, by the roofline of ``mishgrad.evaluation.roofline``) and ops-nn v1's float32
no-tanhx path, counted from this project's description of its operation order
(``mishgrad.evaluation.upstream``).
Then the throughput of the kernel on the CPU twin and of the NumPy model on this machine,
in elements per second, the median of several runs, and what running a launch in the worker
process of :mod:`mishgrad.kernel.isolation` adds to it; and the twin's cold build against its
rebuild after a one-line edit of the kernel (target: at most 40 %). Run with ``make bench``.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Final

import build_times
from instruction_budget import bandwidth_share, instruction_headroom, method_instructions
from throughput import inputs, median_rate

from mishgrad.evaluation import roofline, upstream
from mishgrad.kernel import source, trace, twin
from mishgrad.math import numerics

DTYPES = ("float32", "float16", "bfloat16")
V1_FLOAT32 = upstream.V1_FLOAT32_NO_TANHX  # counted from the described operation order
TARGET = {"exp": 1, "div": 2}  # no-tanhx float32; the total: bandwidth-bound on the A2


def instruction_table() -> bool:
    window = method_instructions(source.OPERATOR_DIR / "op_kernel" / "mish_grad.h", "RootWindow")
    a2 = roofline.Roofline.for_chip()
    print("Vector instructions per tile (twin trace, core 0, tile 0), and the share of the")
    print(f"bandwidth roof on {a2.chip.name} at {a2.model.hbm_bytes_per_second / 1e12:g} TB/s")
    print(f"  {'dtype':9s} {'branch':9s} {'total':>5s} {'Exp':>4s} {'Div':>4s} {'roof':>5s}  by op")
    for dtype in DTYPES:
        for has_tanhx in (False, True):
            grad, x, tanhx = inputs(20_000, dtype)
            run = twin.run_kernel(grad, x, tanhx if has_tanhx else None, cores=1, trace=True)
            counts = trace.instruction_counts(run.trace)
            branch = "tanhx" if has_tanhx else "no tanhx"
            ops = ", ".join(f"{op} {n}" for op, n in counts.by_op.items())
            cost = roofline.cost_from_counts(counts, x.itemsize, has_tanhx)
            share = f"{bandwidth_share(a2, cost):5.0%}"
            exp, div = (counts.by_op.get(op, 0) for op in ("Exp", "Div"))
            numbers = f"{counts.total:5d} {exp:4d} {div:4d} {share}"
            print(f"  {dtype:9s} {branch:9s} {numbers}  {ops}")
            if dtype == "float32" and not has_tanhx:
                float32 = counts
    print(
        f"  of float32's no-tanhx total, the root window (RootWindow) takes {window}; without "
        f"it float32 runs {float32.total - window} (the 16-bit path, NarrowDerivative, has none)"
    )
    print(
        f"  ops-nn v1, float32 no tanhx: {V1_FLOAT32.total} instructions, "
        f"{V1_FLOAT32.counts()['Exp']} Exp, {V1_FLOAT32.counts()['Div']} Div ({V1_FLOAT32.link})"
    )
    cost = roofline.cost_from_counts(float32, 4, False)
    allowed = float32.total + math.floor(instruction_headroom(a2, cost))
    exp, div = (float32.by_op.get(op, 0) for op in ("Exp", "Div"))
    met = exp == TARGET["exp"] and div <= TARGET["div"] and a2.bound(cost) == "bandwidth"
    bandwidth = a2.model.hbm_bytes_per_second / 1e12
    print(
        f"  target for float32 no tanhx: {TARGET['exp']} Exp, <= {TARGET['div']} Div, and at most "
        f"{allowed} instructions (bandwidth-bound on {a2.chip.name} at {bandwidth:g} TB/s; ridge "
        f"{a2.ridge_bandwidth(cost) / 1e12:.3g} TB/s): {exp}, {div}, "
        f"{float32.total}: {'met' if met else 'MISSED'}"
    )
    return met


def throughput_table(n: int = 4_000_000) -> None:
    threads = os.cpu_count() or 1
    print(f"\nThroughput on this machine, n = {n:,}, median of 7 runs, {threads} host threads")
    print(f"  {'dtype':9s} {'branch':9s} {'twin (elem/s)':>15s} {'NumPy model (elem/s)':>21s}")
    for dtype in DTYPES:
        grad, x, tanhx = inputs(n, dtype)
        for has_tanhx in (False, True):
            arguments = (grad, x, tanhx if has_tanhx else None)
            kernel_rate = median_rate(twin.run_kernel, arguments)
            model_rate = median_rate(numerics.mish_backward, arguments)
            branch = "tanhx" if has_tanhx else "no tanhx"
            print(f"  {dtype:9s} {branch:9s} {kernel_rate:15.3g} {model_rate:21.3g}")


def isolation_overhead(n: int = 1_000_000) -> None:
    """The same launch in this process and in the worker process a learner's copy runs in."""
    grad, x, _ = inputs(n, "float32")
    here = median_rate(twin.run_kernel, (grad, x))
    isolated = median_rate(lambda g, v: twin.run_kernel(g, v, isolated=True), (grad, x))
    print(f"\nIsolation (mishgrad.kernel.isolation), float32, n = {n:,}, median of 7 runs")
    print(
        f"  in process {1e3 * n / here:8.2f} ms, in the worker {1e3 * n / isolated:8.2f} ms: ",
        end="",
    )
    print(f"{1e3 * n * (1 / isolated - 1 / here):+.2f} ms per launch ({here / isolated - 1:+.0%})")


#: What the rebuild after a one-line edit may take, as a share of the cold build.
REBUILD_TARGET: Final = 0.40


def rebuild_times() -> bool:
    """A cold build of what a float32 launch needs, then the rebuild after a one-line edit."""
    times = build_times.twin_build_times()
    cold, edit = times.cold, times.edit
    met = edit <= REBUILD_TARGET * cold
    print(f"\nBuilding the twin for a float32 launch, {os.cpu_count()} cores")
    print(
        f"  cold {cold:.1f} s; after a one-line edit of op_kernel/mish_grad.h {edit:.1f} s = "
        f"{edit / cold:.0%} of cold (target <= {REBUILD_TARGET:.0%}): {'met' if met else 'MISSED'}"
    )
    return met


def main() -> int:
    met = instruction_table()
    met = rebuild_times() and met
    throughput_table()
    isolation_overhead()
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
