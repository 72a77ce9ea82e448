"""Property-based fuzzing of the aclnn call on the twin.

A fast subset; bench/fuzz_aclnn.py runs 10,000 and more.
"""

from __future__ import annotations

from collections import Counter

import pytest
from aclnn_cases import cases, check_case
from hypothesis import HealthCheck, given, settings

from mishgrad import aclnn

OUTCOMES: Counter[str] = Counter()

pytestmark = pytest.mark.slow  # random calls by the thousand


@pytest.fixture(scope="module")
def session():
    with aclnn.Session("twin") as s:
        yield s


@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
@given(tensors=cases())
def test_every_case_returns_the_documented_status_and_result(session, tensors):
    OUTCOMES[check_case(session, tensors, seed=sum(OUTCOMES.values()))] += 1


def test_the_fuzz_covers_every_outcome(session):
    if not OUTCOMES:  # run on its own: generate the cases here
        test_every_case_returns_the_documented_status_and_result(session)
    assert OUTCOMES["created-invalid"] > 0 and OUTCOMES["status"] > 0 and OUTCOMES["computed"] > 0
