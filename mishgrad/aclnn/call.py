"""The two phases of ``aclnnMishBackward``, and the whole call in one function."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mishgrad.math.dtypes import DTYPES, as_input

from .session import DeviceTensor, Session
from .status import STATUS_NAMES


@dataclass
class Phase1:
    """What ``aclnnMishBackwardGetWorkspaceSize`` returned."""

    status: int
    workspace_size: int
    executor: int | None

    @property
    def name(self) -> str:
        """The status code's name."""
        return STATUS_NAMES.get(self.status, "UNKNOWN")


def _handle(tensor: DeviceTensor | None) -> int | None:
    return None if tensor is None else tensor.handle


def get_workspace_size(
    session: Session,
    grad: DeviceTensor | None,
    x: DeviceTensor | None,
    out: DeviceTensor | None,
    *,
    check: bool = True,
) -> Phase1:
    """Phase 1: ``aclnnMishBackwardGetWorkspaceSize(grad, x, out, &size, &executor)``.

    With ``check=False`` the status is returned instead of raised (to show the raw codes).
    """
    size, executor = ctypes.c_uint64(), ctypes.c_void_p()
    status = session.lib.aclnnMishBackwardGetWorkspaceSize(
        _handle(grad), _handle(x), _handle(out), ctypes.byref(size), ctypes.byref(executor)
    )
    if check:
        session.check(status, "aclnnMishBackwardGetWorkspaceSize")
    return Phase1(status, size.value, executor.value)


def run(
    session: Session, phase1: Phase1, *, check: bool = True, workspace: int | None = None
) -> int:
    """Phase 2: allocate the workspace, ``aclnnMishBackward`` on the session's stream, synchronize.

    Returns the first failing status (0 on success); raises it unless ``check=False``. A
    ``workspace`` the caller allocated (``phase1.workspace_size`` bytes) is used and left to it.
    """
    owned = workspace is None and phase1.workspace_size > 0
    if owned:
        workspace = session.malloc(phase1.workspace_size)
    try:
        status = session.lib.aclnnMishBackward(
            workspace, phase1.workspace_size, phase1.executor, session.stream
        )
        if status == 0:
            status = session.lib.aclrtSynchronizeStream(session.stream)
            api = "aclrtSynchronizeStream"
        else:
            api = "aclnnMishBackward"
        if check:
            session.check(status, api)
        return status
    finally:
        if owned:
            session.free(workspace)


def result_dtype(grad: np.dtype, x: np.dtype) -> np.dtype:
    """The promoted dtype of the result: equal dtypes stay, any other pair is float32."""
    return grad if grad == x else DTYPES["float32"]


def mish_backward(
    grad: npt.ArrayLike,
    x: npt.ArrayLike,
    *,
    session: Session | None = None,
    backend: str | None = None,
) -> np.ndarray:
    """``grad * dmish/dx(x)`` through the seven steps of the aclnn call, in one function.

    Broadcasts ``grad`` and ``x``, promotes their dtypes, and returns a new array. Inputs go
    through :func:`mishgrad.math.dtypes.as_input` (any byte order; lists become float32). With a
    long-lived ``session`` the call's device tensors are released when it returns, so memory
    stays flat over any number of calls.
    """
    grad, x = as_input(grad), as_input(x)
    own = session is None
    session = session or Session(backend)
    tensors: list[DeviceTensor] = []
    try:
        out_shape = np.broadcast_shapes(grad.shape, x.shape)
        tensors += [session.tensor(grad), session.tensor(x)]
        tensors.append(session.empty(out_shape, result_dtype(grad.dtype, x.dtype)))
        run(session, get_workspace_size(session, *tensors))
        return tensors[2].to_numpy()
    finally:
        if own:
            session.close()
        else:
            session.release(*tensors)
