"""The long fuzz run of the aclnn call on the twin (make test runs a subset).

Draws cases from tests/aclnn_cases.py (hypothesis): shapes of 0-9 dimensions, broadcastable
or not, random strides and offsets (overlapping and out-of-storage views among them), every
aclDataType, null pointers. Each must give the documented status, and the oracle's result
where it succeeds. Then tests/hostile.py's cases, each in a forked child: views with element
counts, strides and offsets near INT64_MAX and unknown enum values (N / 10), random lifecycle
sequences against the documented state model (N / 20), and error messages from four threads.
Prints the number of cases by outcome. Usage: python bench/fuzz_aclnn.py [N]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import hostile
from aclnn_cases import cases, check_case

from mishgrad import aclnn


def _long_run(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def hostile_cases(views: int, lifecycles: int) -> Counter[str]:
    """tests/hostile.py's cases; returns the number of cases by outcome."""
    outcomes: Counter[str] = Counter()

    @_long_run(views)
    @given(view=hostile.raw_views())
    def view_case(view: hostile.RawView) -> None:
        outcomes["view: " + hostile.run_view_case(view, seed=outcomes.total())] += 1

    @_long_run(lifecycles)
    @given(calls=hostile.lifecycle_calls())
    def lifecycle_case(calls: list) -> None:
        hostile.run_lifecycle(calls)
        outcomes["lifecycle"] += 1
        outcomes["lifecycle calls"] += len(calls)

    view_case()
    lifecycle_case()
    outcomes["thread calls"] = hostile.run_threads()
    return outcomes


def main(count: int) -> int:
    outcomes: Counter[str] = Counter()
    with aclnn.Session("twin") as session:

        @_long_run(count)
        @given(tensors=cases())
        def fuzz(tensors: list) -> None:
            outcomes[check_case(session, tensors, seed=sum(outcomes.values()))] += 1

        fuzz()
    total = sum(outcomes.values())
    print(f"aclnn fuzz on the twin: {total} cases, 0 crashes, 0 mismatches")
    for outcome, number in sorted(outcomes.items()):
        print(f"  {outcome:16s} {number}")
    extra = hostile_cases(views=max(count // 10, 1), lifecycles=max(count // 20, 1))
    print("hostile calls, each in a forked child: 0 crashes, 0 mismatches")
    for outcome, number in sorted(extra.items()):
        print(f"  {outcome:22s} {number}")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000))
