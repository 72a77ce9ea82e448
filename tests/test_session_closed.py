"""A closed aclnn.Session refuses every call, and so do its tensors and phase-1 results, whether or
not another session keeps the device set (issue 28, item 8).

ACL's device stays set while any session holds it, so the library alone would serve a closed
session's calls as long as another one is open: the Python layer has to say no.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import error_checks
import numpy as np
import pytest

from mishgrad import aclnn
from mishgrad.aclnn.call import Phase1
from mishgrad.math import oracle

ONES = np.ones(4, np.float32)


class Closed:
    """A twin session with a tensor and a phase-1 result, closed before the test uses them."""

    def __init__(self) -> None:
        self.session = aclnn.Session("twin")
        self.tensor = self.session.tensor(np.linspace(-3, 3, 4, dtype=np.float32))
        self.phase1 = aclnn.get_workspace_size(self.session, self.tensor, self.tensor, self.tensor)
        self.address = self.session.malloc(16)
        self.session.close()


@pytest.fixture(params=["alone", "while another is open"])
def closed(request: pytest.FixtureRequest) -> Iterator[tuple[Closed, Callable[[], aclnn.Session]]]:
    """A closed session, and how to get an open one for the calls that take two.

    "alone": no other session is open until a call asks for one; "while another is open": one
    was opened first and holds the device throughout.
    """
    with ExitStack() as stack:
        others: list[aclnn.Session] = []
        if request.param == "while another is open":
            others.append(stack.enter_context(aclnn.Session("twin")))
        item = Closed()

        def other() -> aclnn.Session:
            if not others:
                others.append(stack.enter_context(aclnn.Session("twin")))
            return others[0]

        yield item, other


#: Every call through a closed session, or with its tensor or phase-1 result, and the message.
CALLS: dict[str, tuple[Callable[[Closed, Callable[[], aclnn.Session]], Any], str]] = {
    "Session.tensor": (lambda c, _: c.session.tensor(ONES), "this Session is closed"),
    "Session.empty": (lambda c, _: c.session.empty((4,), np.float32), "this Session is closed"),
    "Session.malloc": (lambda c, _: c.session.malloc(16), "this Session is closed"),
    "Session.free": (lambda c, _: c.session.free(c.address), "this Session is closed"),
    "Session.upload": (lambda c, _: c.session.upload(c.address, ONES), "this Session is closed"),
    "Session.download": (
        lambda c, _: c.session.download(c.address, np.empty(4, np.float32)),
        "this Session is closed",
    ),
    "Session.synchronize": (lambda c, _: c.session.synchronize(), "this Session is closed"),
    "DeviceTensor.describe": (
        lambda c, _: aclnn.DeviceTensor.describe(c.session, c.address, (4,), (1,), 0, 4, "float32"),
        "this Session is closed",
    ),
    "DeviceTensor.to_numpy": (lambda c, _: c.tensor.to_numpy(), "this tensor belongs to a closed"),
    "mish_backward": (
        lambda c, _: aclnn.mish_backward(ONES, ONES, session=c.session),
        "this Session is closed",
    ),
    "get_workspace_size, closed session": (
        lambda c, o: aclnn.get_workspace_size(c.session, *(o().tensor(ONES) for _ in range(3))),
        "this Session is closed",
    ),
    "get_workspace_size, a closed session's tensor": (
        lambda c, o: aclnn.get_workspace_size(o(), o().tensor(ONES), c.tensor, o().tensor(ONES)),
        "x belongs to a closed Session",
    ),
    "run, closed session": (lambda c, _: aclnn.run(c.session, c.phase1), "this Session is closed"),
    "run, a closed session's phase 1": (
        lambda c, o: aclnn.run(o(), c.phase1),
        "phase1 belongs to a closed Session",
    ),
    "which_kernel": (lambda c, _: aclnn.which_kernel(c.session), "this Session is closed"),
}


@pytest.mark.parametrize("call", CALLS)
def test_a_closed_session_refuses_every_call_and_says_what_to_do(closed, call):
    item, other = closed
    work, message = CALLS[call]
    with pytest.raises(RuntimeError, match=message) as raised:
        work(item, other)
    assert "open a new aclnn.Session" in str(raised.value)
    assert item.session.closed
    out = aclnn.mish_backward(ONES, ONES, session=other())  # the open session is unaffected
    assert np.all(error_checks.operator_close(out, oracle.mish_backward_oracle(ONES, ONES)))


def test_closing_and_releasing_stay_harmless_after_close(closed):
    item, _ = closed
    item.session.close()
    item.session.release(item.tensor)
    item.tensor.release()
    assert item.session.closed and not item.session._tensors


UNKNOWN_EXECUTOR = 161002  # ACLNN_ERR_PARAM_INVALID: the twin knows no such executor


def _plan(session: aclnn.Session) -> Phase1:
    tensors = [session.tensor(ONES) for _ in range(3)]
    return aclnn.get_workspace_size(session, *tensors)


def test_a_phase1_that_never_runs_is_freed_by_close_or_with():
    with aclnn.Session("twin") as session:
        lib = session.lib
        with _plan(session) as phase1:
            assert phase1.pending
        assert not phase1.pending
        assert lib.aclDestroyAclOpExecutor(phase1.executor) == UNKNOWN_EXECUTOR  # freed
        closed = _plan(session)
        closed.close()
        closed.close()  # twice is harmless
        assert lib.aclDestroyAclOpExecutor(closed.executor) == UNKNOWN_EXECUTOR
        lib.aclGetRecentErrMsg()


def test_a_phase1_that_ran_is_not_pending_and_close_leaves_it():
    with aclnn.Session("twin") as session:
        phase1 = _plan(session)
        aclnn.run(session, phase1)
        assert not phase1.pending and not session.pending
        phase1.close()  # nothing to free: phase 2 took the executor


def test_closing_a_session_frees_the_executors_it_never_ran():
    with aclnn.Session("twin") as keeper:  # keeps the device, so the library answers
        session = aclnn.Session("twin")
        never_run = [_plan(session) for _ in range(3)]
        ran = _plan(session)
        aclnn.run(session, ran)
        assert session.pending == set(never_run)
        session.close()
        assert not session.pending
        for phase1 in never_run:
            assert keeper.lib.aclDestroyAclOpExecutor(phase1.executor) == UNKNOWN_EXECUTOR
        keeper.lib.aclGetRecentErrMsg()


def test_memory_a_launch_still_uses_is_not_freed_before_the_stream_is_synchronized():
    """On an NPU the kernel may still run after aclnnMishBackward returns; the twin says so."""
    with aclnn.Session("twin") as session:
        lib = session.lib
        grad, x, out = (session.tensor(ONES) for _ in range(3))
        phase1 = aclnn.get_workspace_size(session, grad, x, out)
        workspace = session.malloc(phase1.workspace_size)
        assert (
            lib.aclnnMishBackward(workspace, phase1.workspace_size, phase1.executor, session.stream)
            == 0
        )
        assert lib.aclrtFree(workspace) == 107000  # ACL_ERROR_RT_PARAM_INVALID
        assert lib.aclrtFree(x.address) == 107000
        message = lib.aclGetRecentErrMsg().decode()
        assert "aclnnMishBackward" in message and "aclrtSynchronizeStream" in message
        with pytest.raises(aclnn.AclError, match="still uses this block"):
            x.release()
        assert lib.aclrtSynchronizeStream(session.stream) == 0
        x.release()  # now they may go
        assert x.address is None
        session.free(workspace)
        assert np.array_equal(out.to_numpy(), oracle.mish_backward_oracle(ONES, ONES))


def test_a_closed_sessions_unread_refusals_do_not_reach_the_next_error():
    with aclnn.Session("twin") as session:
        assert session.lib.aclrtFree(ctypes.c_void_p(12345)) != 0  # its message never read
    with aclnn.Session("twin") as session:
        tensors = [session.tensor(np.zeros(4, dtype=name)) for name in ("float32", "int32")]
        with pytest.raises(aclnn.AclError) as refused:
            aclnn.get_workspace_size(session, tensors[0], tensors[1], session.empty([4], "float32"))
    assert "INT32" in refused.value.message and "aclrtFree" not in refused.value.message
