"""Compare the kernel's output with the golden by CANN's precision standard.

Usage: ``python3 compare_data.py DTYPE`` reads ``output.bin`` and ``golden.bin`` from the
current folder and prints two verdicts (``mish_grad_golden``; NumPy only): the standard in
force, a mixed tolerance (at least 99 % of the elements within atol + rtol |golden|, no error
above the cap), which decides the exit status (0 pass, 1 fail); and, for reference, MERE and
MARE of the standard as first released. The same lines go to ``compare_report.txt``, which the
test prints (ops-nn's runner discards the script's output).
"""

from __future__ import annotations

import sys
from pathlib import Path

import mish_grad_golden as mg
import numpy as np

REPORT = Path("compare_report.txt")


def current_line(report: mg.MixedTolerance) -> str:
    """The mixed-tolerance verdict of ``report``."""
    return (
        f"  mixed tolerance (in force): matched {100 * report.matched_ratio:.4f} % "
        f"(at least {100 * mg.REQUIRED_MATCHED_RATIO:g} %), largest absolute error "
        f"{report.max_abs_error:.3g} within the cap: {report.cap_passed}: "
        f"{mg.verdict(report.passed)}"
    )


def first_release_line(report: mg.FirstRelease) -> str:
    """MERE and MARE of ``report`` against their limits."""
    return (
        f"  MERE/MARE (first release): MERE {report.mere:.3g} (limit {report.threshold:.3g}), "
        f"MARE {report.mare:.3g} (limit {report.mare_limit:.3g}): {mg.verdict(report.passed)}"
    )


def main(argv: list[str]) -> int:
    """Print (and write) the verdicts for ``argv = [_, DTYPE]``; return the exit status."""
    dtype = mg.check_dtype(argv[1])
    output = np.fromfile("output.bin", dtype=mg.STORAGE[dtype])
    golden = np.fromfile("golden.bin", dtype=mg.STORAGE[dtype])
    if output.shape != golden.shape:
        lines = [f"output has {output.size} elements, golden {golden.size}"]
        passed = False
    else:
        current = mg.mixed_tolerance(output, golden, dtype)
        lines = [
            f"{dtype}, {output.size} elements",
            current_line(current),
            first_release_line(mg.first_release(output, golden, dtype)),
        ]
        passed = current.passed
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    REPORT.write_text(text)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
