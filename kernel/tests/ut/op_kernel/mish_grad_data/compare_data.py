"""Compare the kernel's output with the golden by CANN's precision standard.

Usage: ``python3 compare_data.py DTYPE`` reads ``output.bin`` and ``golden.bin`` from the
current folder and prints two verdicts (:mod:`mishgrad.evaluation.precision`): the standard
in force,
a mixed tolerance (at least 99 % of the elements within atol + rtol |golden|, no error above
the cap), which decides the exit status (0 pass, 1 fail); and, for reference, MERE and MARE of
the standard as first released.
"""

from __future__ import annotations

import sys

import numpy as np

from mishgrad.evaluation import precision
from mishgrad.math.dtypes import as_dtype, dtype_name


def current_line(report: precision.MixedToleranceReport) -> str:
    """The mixed-tolerance verdict of ``report``."""
    return (
        f"  mixed tolerance (in force): matched {100 * report.matched_ratio:.4f} % "
        f"(at least {100 * precision.REQUIRED_MATCHED_RATIO:g} %), largest absolute error "
        f"{report.max_abs_error:.3g} within the cap: {report.cap_passed}: {report.verdict}"
    )


def first_release_line(report: precision.PrecisionReport) -> str:
    """MERE and MARE of ``report`` against their limits."""
    return (
        f"  MERE/MARE (first release): MERE {report.mere:.3g} (limit {report.mere_limit:.3g}), "
        f"MARE {report.mare:.3g} (limit {report.mare_limit:.3g}): {report.verdict}"
    )


def main(argv: list[str]) -> int:
    """Print the verdicts for ``argv = [_, DTYPE]``; return the exit status."""
    dtype = as_dtype(argv[1])
    output = np.fromfile("output.bin", dtype=dtype)
    golden = np.fromfile("golden.bin", dtype=dtype)
    if output.shape != golden.shape:
        print(f"output has {output.size} elements, golden {golden.size}")
        return 1
    current = precision.mixed_tolerance(output, golden, dtype)
    print(f"{dtype_name(dtype)}, {output.size} elements")
    print(current_line(current))
    print(first_release_line(precision.evaluate(output, golden, dtype)))
    return 0 if current.passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
