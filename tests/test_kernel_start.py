"""nbval's kernel start is tried again only when the kernel dies starting (kernel_start.py)."""

import sys

import kernel_start
import nbval.kernel
import pytest


def flaky(deaths: int, other: str | None = None):
    """A stand-in for nbval's start: ``deaths`` deaths first (each saying why on its stderr)."""
    calls: list[object] = []

    def start(startup_timeout=60, kernel_name="python", **keywords):
        calls.append(keywords["stderr"])
        if other is not None:
            raise RuntimeError(other)
        if len(calls) <= deaths:
            print("zmq.error.ZMQError: Address already in use", file=keywords["stderr"], flush=True)
            raise RuntimeError(kernel_start.DIED)
        return "manager", "client"

    return start, calls


def test_a_kernel_that_dies_starting_is_started_again_and_the_warning_quotes_it():
    start, calls = flaky(deaths=1)
    with pytest.warns(kernel_start.KernelRestarted, match="start 1 of 3: .*Address already in use"):
        assert kernel_start.retrying(start)(kernel_name="k", stderr=sys.stderr) == (
            "manager",
            "client",
        )
    assert len(calls) == 2 and sys.stderr not in calls  # its stderr is caught, not nbval's


def test_a_kernel_that_keeps_dying_fails_after_the_last_start():
    start, calls = flaky(deaths=kernel_start.STARTS)
    with pytest.warns(kernel_start.KernelRestarted), pytest.raises(RuntimeError, match="died"):
        kernel_start.retrying(start)()
    assert len(calls) == kernel_start.STARTS


def test_any_other_failure_is_raised_at_once():
    start, calls = flaky(deaths=0, other="Kernel didn't respond in 60 seconds")
    with pytest.raises(RuntimeError, match="didn't respond"):
        kernel_start.retrying(start)()
    assert len(calls) == 1


def test_the_test_run_starts_nbvals_kernels_through_it():
    assert nbval.kernel.start_new_kernel.__qualname__ == "retrying.<locals>.start_kernel"
