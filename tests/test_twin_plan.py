"""A plan passed to run_kernel is checked against the arrays, and runs in the worker.

Notebooks 04 and 07 pass plans on purpose (``run_kernel(..., plan=...)``). A plan whose total is
not the arrays' length makes the twin bounds-check the wrong bytes (2N on N corrupted the notebook's
heap; N/2 on N left half the output unwritten), a huge blockDim aborted the process, and a tail
too short left elements unwritten: each is now a ValueError naming the field. The crash cases
run in a child process, so that a regression fails the test instead of killing pytest.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from mishgrad.kernel import isolation, platforms, tiling, twin

A2 = platforms.platform("910B2")
N = 10_007  # several cores, the last one short


def inputs(n: int = N) -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(-20, 20, n, dtype=np.float32)
    return np.full_like(x, 0.5), x


def plan_for(n: int = N) -> tiling.TilingPlan:
    return twin.native_tiling(n, 4, False, A2.ub_reported, A2.vector_cores)


PLAN = plan_for()

CHILD = """
import dataclasses, json, sys
import numpy as np
from mishgrad.kernel import platforms, twin
n, changes = int(sys.argv[1]), json.loads(sys.argv[2])
chip = platforms.platform("910B2")
plan = twin.native_tiling(int(sys.argv[3]), 4, False, chip.ub_reported, chip.vector_cores)
x = np.linspace(-20, 20, n, dtype=np.float32)
try:
    twin.run_kernel(np.ones_like(x), x, plan=dataclasses.replace(plan, **changes))
    print("ran")
except Exception as error:
    print(type(error).__name__, error)
"""


def in_a_child(n: int, planned_for: int, **changes: int) -> str:
    """What ``run_kernel`` with the changed plan says in a fresh process (it must survive)."""
    command = [sys.executable, "-c", CHILD, str(n), json.dumps(changes), str(planned_for)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1200, check=False)
    assert result.returncode == 0, f"the process died ({result.returncode}): {result.stderr}"
    return result.stdout


@pytest.mark.parametrize(
    ("planned_for", "changes", "expected"),
    [
        (2 * N, {}, f"ValueError plan.totalLength is {2 * N}, but x has {N} elements"),
        (N // 2, {}, f"ValueError plan.totalLength is {N // 2}, but x has {N} elements"),
        (N, {"blockDim": 2**32 - 1}, "ValueError plan.blockDim is 4294967295"),
    ],
)
def test_a_plan_for_another_length_or_too_many_cores_is_refused(planned_for, changes, expected):
    assert in_a_child(N, planned_for, **changes).startswith(expected)


@pytest.mark.parametrize(
    ("changes", "pattern"),
    [
        ({"lastTailLength": PLAN.lastTailLength - 8}, r"plan\.lastTailLength.*8 elements"),
        ({"lastTileNum": 0}, r"plan\.lastTileNum is 0, not 1.*151 elements would never"),
        ({"smallTailLength": PLAN.smallTailLength - 64}, r"plan\.smallTailLength.*64 elements"),
        ({"lastCoreLength": PLAN.lastCoreLength - 8}, r"plan\.lastCoreLength.*8 elements"),
        ({"bigCoreNum": PLAN.blockDim + 1}, r"plan\.bigCoreNum is \d+, more than its blockDim"),
        ({"lastTailLength": PLAN.tileLength + 1}, r"plan\.lastTailLength is \d+, longer than"),
        ({"tileLength": 0}, r"plan\.tileLength is 0"),
        ({"tileLength": 2**30}, r"plan\.tileLength is 1073741824.*196608 bytes of UB"),
        ({"blockDim": 0}, r"plan\.blockDim is 0"),
        ({"hasTanhx": 1}, r"plan\.hasTanhx is 1, but no tanhx was given"),
        ({"smallCoreLength": -64}, r"plan\.smallCoreLength is -64"),
        ({"tileLength": 4096.5}, r"plan\.tileLength is 4096\.5, not an integer"),
    ],
)
def test_an_inconsistent_plan_names_the_field_and_why(changes, pattern):
    with pytest.raises(ValueError, match=pattern):
        twin.run_kernel(*inputs(), plan=dataclasses.replace(PLAN, **changes))


def test_a_plan_without_tanhx_is_refused_for_a_call_with_it():
    grad, x = inputs()
    with pytest.raises(ValueError, match=r"plan\.hasTanhx is 0, but tanhx was given"):
        twin.run_kernel(grad, x, np.tanh(x), plan=PLAN)


def test_a_plan_must_be_a_tiling_plan():
    with pytest.raises(TypeError, match="plan must be a TilingPlan, not dict"):
        twin.run_kernel(*inputs(), plan=dataclasses.asdict(PLAN))


def test_a_supplied_plan_runs_in_the_worker_unless_told_otherwise(monkeypatch):
    assert twin.runs_isolated(None, plan_supplied=True)
    assert not twin.runs_isolated(None, False, plan_supplied=True)
    launches = []
    launch = isolation.launch

    def counted(*arguments, **keywords):
        launches.append(arguments)
        return launch(*arguments, **keywords)

    monkeypatch.setattr(isolation, "launch", counted)
    grad, x = inputs()
    here = twin.run_kernel(grad, x).out
    assert not launches  # the project's kernel with its own plan: in this process
    assert twin.run_kernel(grad, x, plan=PLAN).out.tobytes() == here.tobytes()
    assert len(launches) == 1
    assert twin.run_kernel(grad, x, plan=PLAN, isolated=False).out.tobytes() == here.tobytes()
    assert len(launches) == 1


def test_a_plan_that_reaches_past_the_end_is_left_to_the_twin_which_stops_it():
    # Notebook 04's v1 tail: the last core widened past n; the twin's bounds checks stop it
    # (the plan's total is right, so they check the right bytes), in the worker.
    widened = dataclasses.replace(
        PLAN, lastCoreLength=PLAN.lastCoreLength + 61, lastTailLength=PLAN.lastTailLength + 61
    )
    with pytest.raises(twin.KernelError, match="SetGlobalBuffer"):
        twin.run_kernel(*inputs(), plan=widened)
    longer_tail = dataclasses.replace(PLAN, lastTailLength=PLAN.lastTailLength + 8)
    with pytest.raises(twin.KernelError, match="remain in the GlobalTensor"):
        twin.run_kernel(*inputs(), plan=longer_tail)
