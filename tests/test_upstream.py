"""mishgrad.evaluation.upstream: the described operation orders and the counts from them."""

from __future__ import annotations

import numpy as np
import pytest

from mishgrad import citations
from mishgrad.evaluation import upstream

ORDERS = list(upstream.ORDERS.values())


def test_v1_counts_as_read_from_its_kernel():
    # v1, float32: 42 calls with 4 Exp and 4 Div without tanhx; 11, 1, 1 with it.
    no_tanhx, tanhx = upstream.V1_FLOAT32_NO_TANHX.counts(), upstream.V1_FLOAT32_TANHX.counts()
    assert (sum(no_tanhx.values()), no_tanhx["Exp"], no_tanhx["Div"]) == (42, 4, 4)
    assert (sum(tanhx.values()), tanhx["Exp"], tanhx["Div"]) == (11, 1, 1)
    assert no_tanhx["Select"] == 3 and no_tanhx["CompareScalar"] == 2


def test_v2_counts_as_read_from_its_kernel():
    no_tanhx, tanhx = upstream.V2_FLOAT32_NO_TANHX, upstream.V2_FLOAT32_TANHX
    counts, tail = no_tanhx.counts(), tanhx.counts()
    assert (no_tanhx.total, counts["Exp"], counts["Div"]) == (18, 2, 1)
    assert counts["Tanh"] == 1 and counts["Ln"] == 1
    assert (tanhx.total, tail["Exp"], tail["Div"]) == (10, 1, 1)
    assert no_tanhx.steps[-tanhx.total :] == tanhx.steps  # the shared tail


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.label)
def test_steps_lie_in_the_cited_lines_one_call_a_line(order):
    assert all(order.lines[0] <= step.line <= order.lines[1] for step in order.steps)
    assert len({step.line for step in order.steps}) == order.total
    assert sum(order.counts().values()) == order.total


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.label)
def test_links_pin_the_commit_and_lines(order):
    first, last = order.lines
    assert order.link == citations.permalink(citations.OPS_NN, order.path, order.lines)
    assert order.link.endswith(f"{order.path}#L{first}-L{last}")
    assert citations.OPS_NN[1] in order.link


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.label)
def test_notebook_12s_count_of_a_description_is_the_orders(order):
    """Notebook 12 counts a described path in NumPy (np.unique of its steps' calls); the
    OperationOrder's counts and total say the same."""
    names, times = np.unique([step.op for step in order.steps], return_counts=True)
    counted = dict(zip(names.tolist(), times.tolist(), strict=True))
    assert counted == order.counts()
    assert int(times.sum()) == order.total
