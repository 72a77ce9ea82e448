"""The long fuzz run of the aclnn call on the twin (make test runs a subset).

Draws cases from tests/aclnn_cases.py (hypothesis): shapes of 0-9 dimensions, broadcastable
or not, random strides and offsets (overlapping and out-of-storage views among them), every
aclDataType, null pointers. Each must give the documented status, and the oracle's result
where it succeeds. Prints the number of cases by outcome. Usage: python bench/fuzz_aclnn.py [N]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from aclnn_cases import cases, check_case

from mishgrad import acl


def main(count: int) -> int:
    outcomes: Counter[str] = Counter()
    with acl.Session("twin") as session:

        @settings(
            max_examples=count,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(tensors=cases())
        def fuzz(tensors: list) -> None:
            outcomes[check_case(session, tensors, seed=sum(outcomes.values()))] += 1

        fuzz()
    total = sum(outcomes.values())
    print(f"aclnn fuzz on the twin: {total} cases, 0 crashes, 0 mismatches")
    for outcome, number in sorted(outcomes.items()):
        print(f"  {outcome:16s} {number}")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000))
