"""Runs part of the twin test suite in the process the sanitizer test starts.

Started by tests/test_sanitizers.py with MISHGRAD_TWIN_FLAVOUR=asan and the sanitizer
runtimes preloaded: any heap overflow, use after free or undefined behaviour in the twin or
the kernel aborts this process with a report.
"""

import ctypes
import sys
from pathlib import Path

import numpy as np

from mishgrad import numerics, oracle, twin


def main() -> int:
    rng = np.random.default_rng(3)
    for dtype in ("float32", "float16", "bfloat16"):
        for n in (1, 33, 257, 4609, 48 * 64 + 5, 100_003):
            x = rng.uniform(-100, 100, n).astype(dtype)
            grad = rng.normal(size=n).astype(dtype)
            for tanhx in (None, oracle.tanh_softplus_oracle(x)):
                out = twin.run_kernel(grad, x, tanhx, trace=n < 300).out
                model = numerics.mish_backward(grad, x, tanhx)
                gap = np.abs(out.astype(np.float64) - model.astype(np.float64))
                assert np.all(gap <= 1e-2 * np.abs(model.astype(np.float64)) + 1e-6), (dtype, n)
    misuse = twin.build_extra("mishgrad_misuse", [Path(__file__).parent / "misuse_kernels.cpp"])
    misuse.misuse_run.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint64]
    message = ctypes.create_string_buffer(512)
    for case in (b"clean", b"gm_read_past_end", b"use_after_free", b"ub_over_capacity"):
        misuse.misuse_run(case, message, len(message))
    print("sanitized run: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
