"""Runs part of the twin test suite in the process the sanitizer test starts.

Started by tests/test_sanitizers.py with MISHGRAD_TWIN_FLAVOUR=asan and the sanitizer
runtimes preloaded: any heap overflow, use after free or undefined behaviour in the twin or
the kernel aborts this process with a report.
"""

import ctypes
import sys
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import hostile
from aclnn_cases import cases, check_case

from mishgrad import aclnn
from mishgrad.kernel import twin, twin_build
from mishgrad.math import numerics, oracle


def aclnn_calls() -> None:
    """The C ABI: the seven steps, broadcasting and views, error rows, an early free."""
    with aclnn.Session("twin") as session:
        grad = np.arange(8, dtype=np.float32).reshape(4, 2)
        x = np.linspace(-3, 3, 8, dtype=np.float32)[::-1].reshape(4, 2)
        aclnn.mish_backward(grad.astype(np.float16), x[:, :1], session=session)
        tensors = [session.tensor(grad), session.tensor(x), session.tensor(np.zeros(3, np.float32))]
        assert aclnn.get_workspace_size(session, *tensors, check=False).status == 161002
        phase1 = aclnn.get_workspace_size(session, *tensors[:2], session.tensor(grad))
        session.free(tensors[0].address)
        tensors[0].address = None
        assert aclnn.run(session, phase1, check=False) == 507015
        seen = []

        @settings(max_examples=150, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))  # fmt: skip
        @given(tensors=cases())
        def fuzz(tensors: list) -> None:
            seen.append(check_case(session, tensors, seed=len(seen)))

        fuzz()


def hostile_calls(views: int, lifecycles: int) -> dict[str, int]:
    """tests/hostile.py's cases: int64-limit views, random lifecycles, threads (each forked)."""
    counts = {"views": 0, "lifecycles": 0, "thread calls": 0}

    def quick(examples: int) -> settings:
        return settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                        suppress_health_check=list(HealthCheck))  # fmt: skip

    @quick(views)
    @given(view=hostile.raw_views())
    def view_case(view: hostile.RawView) -> None:
        hostile.run_view_case(view, seed=counts["views"])
        counts["views"] += 1

    @quick(lifecycles)
    @given(calls=hostile.lifecycle_calls())
    def lifecycle_case(calls: list) -> None:
        hostile.run_lifecycle(calls)
        counts["lifecycles"] += 1

    view_case()
    lifecycle_case()
    counts["thread calls"] = hostile.run_threads()
    return counts


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
    misuse = twin_build.build_extra(
        "mishgrad_misuse", [Path(__file__).parent / "misuse_kernels.cpp"]
    )
    misuse.misuse_run.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint64]
    message = ctypes.create_string_buffer(512)
    for case in (b"clean", b"gm_read_past_end", b"use_after_free", b"ub_over_capacity"):
        misuse.misuse_run(case, message, len(message))
    aclnn_calls()
    print(f"hostile cases under the sanitizers: {hostile_calls(views=100, lifecycles=40)}")
    print("sanitized run: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
