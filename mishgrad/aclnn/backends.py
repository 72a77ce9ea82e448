"""Backend discovery: which libraries provide the C functions, the CPU twin's or CANN's.

See :mod:`mishgrad.aclnn` for the backends and ``MISHGRAD_BACKEND``.
"""

import ctypes
import os
from functools import cache
from pathlib import Path
from typing import Final

from mishgrad.kernel import installed, isolation, twin, twin_build, worker

from .binding import Backend, bind
from .binding import twin_at as _twin_backend_at
from .isolated import WorkerBackend


def twin_backend(
    kernel_dir: Path | None = None,
    *,
    isolated: bool | None = None,
    watchdog: isolation.Watchdog | None = None,
) -> Backend:
    """The twin built from ``kernel_dir`` (default ``kernel/``; a learner's copy), as a backend.

    The library is rebuilt, at a new path, whenever a source changed, so an edit to the
    contract or the kernel is picked up by the next session. A learner's copy (any
    ``kernel_dir`` but the repository's own) is loaded only in a worker process, which
    ``watchdog`` (default: :class:`~mishgrad.kernel.isolation.Watchdog`) watches
    (:mod:`~mishgrad.aclnn.isolated`); ``isolated`` decides instead when given, as in
    :func:`mishgrad.kernel.twin.run_kernel`. Inside a worker, it is loaded there.
    """
    path = str(twin_build.build(twin_build.kernel_spec(root=kernel_dir)))
    if worker.serving or not twin.runs_isolated(kernel_dir, isolated):
        return _twin_backend_at(path)
    return WorkerBackend.of(path, watchdog or isolation.Watchdog())


def _cann_root() -> Path:
    for candidate in (
        os.environ.get("ASCEND_HOME_PATH"),
        "/usr/local/Ascend/cann",
        "/usr/local/Ascend/ascend-toolkit/latest",
    ):
        if candidate and (Path(candidate) / "lib64" / "libascendcl.so").exists():
            return Path(candidate)
    raise OSError(
        "CANN not found: source its set_env.sh (sets ASCEND_HOME_PATH) or install the toolkit"
    )


def builtin_opapi(root: Path) -> Path:
    """CANN's built-in aclnn library (``libopapi_nn.so``; older CANN: ``libopapi.so``).

    Raises
    ------
    OSError
        Naming where it was looked for.
    """
    candidates = [
        root / folder / name
        for name in ("libopapi_nn.so", "libopapi.so")
        for folder in ("lib64", "opp/lib64")
    ]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    raise OSError(
        f"MISHGRAD_BACKEND=ascend-builtin: CANN's operator library is not installed: no "
        f"{' or '.join(map(str, candidates))} (install CANN's ops package)"
    )


#: The CANN kind this process loaded: nnopbase builds its kernel table once per process.
_loaded_kind: list[str] = []


@cache
def _ascend_backend(builtin: bool) -> Backend:
    kind = "ascend-builtin" if builtin else "ascend"
    if _loaded_kind and _loaded_kind[0] != kind:
        raise OSError(
            f"this process already loaded MISHGRAD_BACKEND={_loaded_kind[0]}; CANN chooses each "
            f"op's kernel once per process, so {kind} needs a process of its own (restart the "
            "Jupyter kernel)"
        )
    loaded = installed.loaded_nnopbase()  # before this process loads anything of CANN's
    root = _cann_root()
    op_path = builtin_opapi(root) if builtin else None  # first: a missing library is named
    # nnopbase reads ASCEND_CUSTOM_OPP_PATH only when it first looks for a kernel, after this
    soc = None if builtin else installed.soc_name(root / "lib64" / "libascendcl.so")
    found = installed.activation(kind, soc=soc)
    installed.require_unread(found, loaded)
    if found.package is not None:
        op_path = found.package.opapi
    # Before CANN is loaded: which MishGrad kernel nnopbase gives this process, and no other.
    if found.custom_opp_path:
        os.environ["ASCEND_CUSTOM_OPP_PATH"] = found.custom_opp_path
    else:
        os.environ.pop("ASCEND_CUSTOM_OPP_PATH", None)
    mode = ctypes.RTLD_GLOBAL  # the op libraries resolve runtime symbols from these
    paths = {
        "runtime": str(root / "lib64" / "libascendcl.so"),
        "tensors": str(root / "lib64" / "libnnopbase.so"),
        "op": str(op_path),
    }
    libraries = {role: ctypes.CDLL(path, mode=mode) for role, path in paths.items()}
    _loaded_kind.append(kind)
    return bind(kind, libraries, paths)


#: Backend names for MISHGRAD_BACKEND.
BACKENDS: Final = ("auto", "twin", "ascend", "ascend-builtin")


def load_backend(kind: str | None = None) -> Backend:
    """Load the backend named by ``kind`` or ``$MISHGRAD_BACKEND`` (see the module docstring).

    Raises
    ------
    ValueError
        For an unknown backend name.
    OSError
        If ``ascend`` or ``ascend-builtin`` is asked for (or ``auto`` finds CANN) and CANN's
        libraries or the operator's library cannot be found.
    """
    kind = kind or os.environ.get("MISHGRAD_BACKEND", "auto")
    if kind not in BACKENDS:
        raise ValueError(f"MISHGRAD_BACKEND must be one of {', '.join(BACKENDS)}, not {kind!r}")
    if kind == "auto":
        try:
            _cann_root()
        except OSError:
            return twin_backend()
        kind = "ascend"
    if kind == "twin":
        return twin_backend()
    return _ascend_backend(kind == "ascend-builtin")
