"""The aclnn two-phase call from Python: a ctypes binding of CANN's C ABI and a thin layer on top.

One code path for both backends. The binding declares each C function once, with CANN's
signature; :func:`load_backend` decides only *which libraries* provide them:

``twin``
    The CPU twin library (``kernel/twin``), which exports the same symbols with the same
    signatures; device memory is host memory. Built from a learner's copy of the kernel, it
    is loaded only in a worker process (:func:`twin_backend`, :mod:`~mishgrad.aclnn.isolated`).
``ascend``
    CANN's ``libascendcl.so`` (runtime) and ``libnnopbase.so`` (tensors), and for
    ``aclnnMishBackward`` this repository's operator: the custom package's
    ``libcust_opapi.so``, installed privately (:mod:`mishgrad.kernel.installed`), whose kernel
    the process activates for itself alone (``ASCEND_CUSTOM_OPP_PATH``) before CANN loads.
    Without the package it stops with an error that says how to build and install it; it never
    falls back to CANN's operator.
``ascend-builtin``
    The same runtime, with CANN's built-in ``aclnnMishBackward`` (``libopapi_nn.so``; older
    CANN: ``libopapi.so``) and CANN's own kernel: the package is kept off this process's path,
    and it stops if an install shared by every process replaces CANN's kernel. An explicit
    choice, to compare with. One process runs one of the two: CANN picks each op's kernel once.
``auto`` (default)
    ``ascend`` when CANN is installed, else ``twin``.

Choose with ``MISHGRAD_BACKEND=auto|twin|ascend|ascend-builtin``. :attr:`Backend.libraries`
says what was loaded, :attr:`Backend.served_by` which file's ``aclnnMishBackward`` is bound,
and :func:`which_kernel` which kernel ran (from the stamp this repository's kernel leaves).
Status codes become :class:`AclError` (code, name and the library's message); every
call is also available raw, returning its status, through :attr:`Session.lib`.

Read it in this order, one short module at a time:

- :mod:`~mishgrad.aclnn.status`: the status codes and :class:`AclError`;
- :mod:`~mishgrad.aclnn.binding`: every C function's signature, bound with ctypes;
- :mod:`~mishgrad.aclnn.backends`: which libraries provide them;
- :mod:`~mishgrad.aclnn.isolated`: a learner's copy's library, called in a worker process;
- :mod:`~mishgrad.aclnn.session`: ACL initialized, a stream, and device tensors;
- :mod:`~mishgrad.aclnn.call`: phase 1, phase 2, and :func:`mish_backward`, the seven steps in
  one function;
- :mod:`~mishgrad.aclnn.provenance`: which kernel ran;
- :mod:`~mishgrad.aclnn.example`: the same call in C++ (``kernel/mish_grad/examples``), built
  and run against the twin.

May import: :mod:`mishgrad.kernel`, :mod:`mishgrad.math`, :mod:`mishgrad.citations`,
:mod:`mishgrad.paths`.
"""

from .backends import load_backend, twin_backend, twin_library
from .binding import (
    ACL_DTYPE,
    ACL_FORMAT_ND,
    MALLOC_HUGE_FIRST,
    MEMCPY_DEVICE_TO_HOST,
    MEMCPY_HOST_TO_DEVICE,
    SIGNATURES,
    Backend,
    checked_ints,
)
from .call import get_workspace_size, mish_backward, result_dtype, run
from .provenance import KernelReport, Stamp, which_kernel
from .session import DeviceTensor, Session
from .status import STATUS_NAMES, AclError

__all__ = [
    "ACL_DTYPE",
    "ACL_FORMAT_ND",
    "MALLOC_HUGE_FIRST",
    "MEMCPY_DEVICE_TO_HOST",
    "MEMCPY_HOST_TO_DEVICE",
    "SIGNATURES",
    "STATUS_NAMES",
    "AclError",
    "Backend",
    "DeviceTensor",
    "KernelReport",
    "Session",
    "Stamp",
    "checked_ints",
    "get_workspace_size",
    "load_backend",
    "mish_backward",
    "result_dtype",
    "run",
    "twin_backend",
    "twin_library",
    "which_kernel",
]
