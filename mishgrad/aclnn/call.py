"""The two phases of ``aclnnMishBackward``, and the whole call in one function."""

import ctypes
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from mishgrad.math.dtypes import DTYPES, as_input, native_dtype

from .session import DeviceTensor, Session
from .status import STATUS_NAMES


@dataclass(eq=False)  # one executor, one Phase1: its session's set holds it by identity
class Phase1:
    """What ``aclnnMishBackwardGetWorkspaceSize`` returned, and the session it was asked through.

    Its executor refers to that session's device memory, so :func:`run` refuses it once the
    session is closed. Phase 2 frees the executor; one that will never run is freed by
    :meth:`close` (``with get_workspace_size(...) as phase1:`` does it on leaving), or by closing
    its session, which closes every executor of it that never ran.
    """

    status: int
    workspace_size: int
    executor: int | None
    session: Session = field(repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.executor is not None:
            self.session.pending.add(self)

    @property
    def name(self) -> str:
        """The status code's name."""
        return STATUS_NAMES.get(self.status, "UNKNOWN")

    @property
    def pending(self) -> bool:
        """Whether the executor still waits for phase 2 (neither run nor closed)."""
        return self in self.session.pending

    def taken(self) -> None:
        """Record that phase 2 took the executor (it runs once): nothing is left to free."""
        self.session.pending.discard(self)

    def close(self, *, check: bool = True) -> None:
        """Free the executor if it never ran (``aclDestroyAclOpExecutor``); otherwise nothing.

        Raises
        ------
        AclError
            If the library refuses to destroy it (unless ``check=False``).
        """
        if not self.pending:
            return
        self.taken()
        status = self.session.lib.aclDestroyAclOpExecutor(self.executor)
        if check:
            self.session.check(status, "aclDestroyAclOpExecutor")
        elif status != 0:  # read the refusal, so that no later error report carries it
            self.session.lib.aclGetRecentErrMsg()

    def __enter__(self) -> "Phase1":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


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
    A closed ``session``, or a tensor of a closed session, raises ``RuntimeError`` either way.
    """
    session.require_open()
    tensors = {"grad": grad, "x": x, "out": out}
    for name, tensor in tensors.items():
        if tensor is not None:  # None stays NULL
            tensor.session.require_open(name)
    handles = [None if tensor is None else tensor.handle for tensor in tensors.values()]
    size, executor = ctypes.c_uint64(), ctypes.c_void_p()
    status = session.lib.aclnnMishBackwardGetWorkspaceSize(
        *handles, ctypes.byref(size), ctypes.byref(executor)
    )
    if check:
        session.check(status, "aclnnMishBackwardGetWorkspaceSize")
    return Phase1(status, size.value, executor.value, session)


def run(
    session: Session, phase1: Phase1, *, check: bool = True, workspace: int | None = None
) -> int:
    """Phase 2: allocate the workspace, ``aclnnMishBackward`` on the session's stream, synchronize.

    Returns the first failing status (0 on success); raises it unless ``check=False``. A
    ``workspace`` the caller allocated (``phase1.workspace_size`` bytes) is used and left to it.
    A closed ``session``, or a ``phase1`` asked through a closed session, raises
    ``RuntimeError`` either way.
    """
    session.require_open()
    phase1.session.require_open("phase1")
    owned = workspace is None and phase1.workspace_size > 0
    if owned:
        workspace = session.malloc(phase1.workspace_size)
    try:
        status = session.lib.aclnnMishBackward(
            workspace, phase1.workspace_size, phase1.executor, session.stream
        )
        api = "aclnnMishBackward"
        if status == 0:
            phase1.taken()
            api = "aclrtSynchronizeStream"
            status = session.lib.aclrtSynchronizeStream(session.stream)
        if check:
            session.check(status, api)
        return status
    finally:
        if owned:
            session.free(workspace)


def result_dtype(grad: npt.DTypeLike, x: npt.DTypeLike) -> np.dtype:
    """The result's dtype: equal dtypes stay (native byte order), any other pair is float32."""
    grad, x = native_dtype(grad), native_dtype(x)
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
