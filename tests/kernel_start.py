"""nbval's kernel start, tried again when the kernel dies before it answers.

jupyter_client picks a kernel's five ports in the parent (bind to port 0, note the port, close)
and the kernel binds them a moment later. Another process can take one in between: the other
xdist worker starting a kernel of its own, or any outgoing connection, whose local port comes
from the same range. The kernel then exits with ZMQError "Address already in use" before it
answers, and nbval fails every cell of the notebook with "Kernel died before replying to
kernel_info" (jupyter/jupyter_client#154, jupyter/nbconvert#1066, treebeardtech/nbmake#129).
That is the known cause; the one such failure CI had here could not say which it was, as nbval
sends the kernel's stderr to /dev/null. Here it goes to a temporary file, whose last lines a
restart's warning quotes. A new start picks new ports. No cell of the notebook has run yet, so
starting again hides no fault of the book; any other failure is raised at once.
"""

import tempfile
import warnings
from collections.abc import Callable
from typing import Any

#: How many times a kernel is started before its death fails the notebook.
STARTS = 3
DIED = "Kernel died before replying to kernel_info"


class KernelRestarted(UserWarning):
    """A notebook's kernel died while starting and was started again."""


def retrying(start: Callable[..., Any]) -> Callable[..., Any]:
    """``start`` (``nbval.kernel.start_new_kernel``), started again up to :data:`STARTS` times."""

    def start_kernel(*arguments: Any, **keywords: Any) -> Any:
        for attempt in range(1, STARTS + 1):
            # The kernel keeps its own descriptor of the file: closing the parent's copy is safe.
            with tempfile.TemporaryFile("w+") as stderr:
                try:
                    return start(*arguments, **{**keywords, "stderr": stderr})
                except RuntimeError as error:
                    if DIED not in str(error) or attempt == STARTS:
                        raise
                    stderr.seek(0)
                    said = " | ".join(stderr.read().strip().splitlines()[-3:]) or "nothing"
                    message = f"start {attempt} of {STARTS}: {error}; its stderr: {said}"
                    warnings.warn(message, KernelRestarted, stacklevel=2)

    return start_kernel
