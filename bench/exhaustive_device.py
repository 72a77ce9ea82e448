"""Where ``make exhaustive`` runs the kernel: a backend of :mod:`mishgrad.aclnn`, NPU or twin.

One code path for every backend (``twin``, ``ascend``, ``ascend-builtin``): a tile of inputs is
one call of :func:`mishgrad.aclnn.mish_backward` (both phases of ``aclnnMishBackward``, with
``grad`` = 1, so the result is d itself) on a session kept open for the whole run. The twin runs
the kernel once per numerics model of its ``Exp`` and ``Div`` (``MISHGRAD_TWIN_NUMERICS``, which
its ``aclnnMishBackward`` reads at each launch); an NPU runs it once, in its vector unit's own
arithmetic, as the model named after the backend. A :class:`Device` also says what a run's
summaries are computed from (the backend, the SoC, the kernel), so that a summary is resumed
only on the backend, chip and kernel that began it.
"""

import ctypes
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mishgrad import aclnn
from mishgrad.kernel import installed, launcher, twin, twin_build


def soc_name(backend: aclnn.Backend) -> str:
    """The SoC ``aclrtGetSocName`` of the backend's runtime names ("none" if it names none).

    The runtime is already loaded; this keeps its scope (global scope would let the twin's
    symbols stand in for those of any twin library this process loads later).
    """
    runtime = Path(backend.libraries["runtime"])
    try:
        return installed.soc_name(runtime, mode=ctypes.DEFAULT_MODE)
    except installed.PackageError:  # loaded already: only a runtime naming no SoC gets here
        return "none"


@contextmanager
def _numerics(model: str | None) -> Iterator[None]:
    """``MISHGRAD_TWIN_NUMERICS`` set to ``model`` meanwhile (None: left as it is)."""
    before = os.environ.get(launcher.NUMERICS_VARIABLE)
    if model is not None:
        os.environ[launcher.NUMERICS_VARIABLE] = model
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(launcher.NUMERICS_VARIABLE, None)
        else:
            os.environ[launcher.NUMERICS_VARIABLE] = before


@dataclass
class Device:
    """An open session on one backend, the SoC it names and which kernel its first call ran.

    Use :meth:`open` as a context manager; the session is closed on leaving.
    """

    session: aclnn.Session
    soc: str
    #: :func:`mishgrad.aclnn.which_kernel`'s report of a probe call, in words.
    kernel: str

    @classmethod
    def open(cls, backend: str) -> "Device":
        """A session on ``backend`` (a name for :func:`mishgrad.aclnn.load_backend`), probed.

        Raises
        ------
        ValueError, OSError
            As :func:`mishgrad.aclnn.load_backend` does, for an unknown or missing backend.
        RuntimeError
            If the probe call ran another kernel than the backend stands for (``ascend-builtin``:
            CANN's; the others: this repository's): a run would measure the wrong one.

        """
        session = aclnn.Session(backend)
        try:
            report = aclnn.which_kernel(session)
            # ascend-builtin: none of ours; the others: a build of ours, which the report names
            if (report.stamp is None) != (session.lib.name == "ascend-builtin"):
                raise RuntimeError(
                    f"MISHGRAD_BACKEND={session.lib.name} would measure the wrong kernel: {report}"
                )
            return cls(session, soc_name(session.lib), str(report))
        except BaseException:
            session.close()
            raise

    def __enter__(self) -> "Device":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.session.close()

    @property
    def name(self) -> str:
        """The backend's name: ``twin``, ``ascend`` or ``ascend-builtin``."""
        return self.session.lib.name

    @property
    def models(self) -> tuple[str, ...]:
        """The models the kernel runs as: the twin's numerics models, or the NPU (the backend)."""
        return twin.NUMERICS_MODELS if self.name == "twin" else (self.name,)

    def derivative(self, x: np.ndarray, model: str) -> np.ndarray:
        """d(x) as the kernel computes it under ``model``: ``aclnnMishBackward`` with grad = 1.

        Raises
        ------
        ValueError
            If ``model`` is not one of :attr:`models`.

        """
        if model not in self.models:
            known = ", ".join(self.models)
            raise ValueError(f"the {self.name} backend runs the kernel as {known}, not {model!r}")
        with _numerics(model if self.name == "twin" else None):
            return aclnn.mish_backward(np.ones_like(x), x, session=self.session)

    def kernel_identity(self) -> str:
        """What the kernel is built from; a run compares it after every tile.

        The twin: the build folder of ``kernel/``'s sources as they are now (its name carries
        their hash), so an edit during a run stops it. An NPU: the library that serves
        ``aclnnMishBackward`` and :attr:`kernel`, as found when the run began.
        """
        if self.name == "twin":
            return twin_build.build().parent.name
        return f"{self.session.lib.served_by}; {self.kernel}"

    def describe(self) -> dict[str, Any]:
        """The result file's ``backend`` entry: name, SoC and which kernel ran."""
        return {"name": self.name, "soc": self.soc, "kernel": self.kernel}
