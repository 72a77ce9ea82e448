"""The aclnn two-phase call from Python: a ctypes binding of CANN's C ABI and a thin layer on top.

One code path for both backends. The binding declares each C function once, with CANN's
signature; :func:`load_backend` decides only *which libraries* provide them, as
``MISHGRAD_BACKEND=auto|twin|ascend|ascend-builtin`` says (the README tells what each runs):

``twin``
    The CPU twin library (``kernel/twin``), which exports the same symbols with the same
    signatures; device memory is host memory. Built from a learner's copy of the kernel, it
    is loaded only in a worker process (:func:`twin_backend`, :mod:`~mishgrad.aclnn.isolated`).
``ascend``
    CANN's runtime (``libascendcl.so``, ``libnnopbase.so``) and this repository's operator,
    from its custom package installed privately (:mod:`mishgrad.kernel.installed`) and active
    for this process alone; never CANN's operator.
``ascend-builtin``
    The same runtime with CANN's own ``aclnnMishBackward`` and kernel, to compare with. One
    process runs one of the two: CANN picks each op's kernel once.
``auto`` (default)
    ``ascend`` when CANN is installed, else ``twin``.

:attr:`Backend.libraries` says what was loaded, :attr:`Backend.served_by` which file's
``aclnnMishBackward`` is bound, and :func:`which_kernel` which kernel ran (from the stamp this
repository's kernel leaves). Status codes become :class:`AclError` (code, name and the
library's message); every call is also available raw, returning its status, through
:attr:`Session.lib`.

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

# `name as name`: the package's public names, re-exported.
from .backends import load_backend as load_backend
from .backends import twin_backend as twin_backend
from .binding import ACL_DTYPE as ACL_DTYPE
from .binding import ACL_FORMAT_ND as ACL_FORMAT_ND
from .binding import MALLOC_HUGE_FIRST as MALLOC_HUGE_FIRST
from .binding import MEMCPY_DEVICE_TO_HOST as MEMCPY_DEVICE_TO_HOST
from .binding import MEMCPY_HOST_TO_DEVICE as MEMCPY_HOST_TO_DEVICE
from .binding import SIGNATURES as SIGNATURES
from .binding import Backend as Backend
from .call import get_workspace_size as get_workspace_size
from .call import mish_backward as mish_backward
from .call import result_dtype as result_dtype
from .call import run as run
from .provenance import KernelReport as KernelReport
from .provenance import which_kernel as which_kernel
from .session import DeviceTensor as DeviceTensor
from .session import Session as Session
from .status import STATUS_NAMES as STATUS_NAMES
from .status import AclError as AclError
