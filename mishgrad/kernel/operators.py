"""An operator, as the twin builds and runs it: a folder under ``kernel/`` and a small spec.

The folder (``kernel/<name>``) is what is copied into ops-nn: ``op_host/``, ``op_kernel/`` with
the kernel entry ``<name>.cpp``, its CANN-free headers, tests and examples; beside them a
``twin/`` folder of glue that ops-nn never sees (what the twin library exports for the
operator: its tiling, its aclnn functions). An :class:`OperatorSpec` says the rest: the
entry's arguments, the tensors it reads and writes, its dtypes and the dtype each computes
in. :func:`mishgrad.kernel.twin_build.kernel_spec` builds any spec into a twin library, and
:func:`mishgrad.kernel.launcher.run_operator` runs its kernel on the twin's launcher, in this
process or isolated, with a trace. :data:`MISH_GRAD` is the book's operator, the default
everywhere; :data:`SILU_GRAD` is the capstone's (notebook 14), whose folder is a skeleton.
"""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Final

import numpy as np

from mishgrad.math.dtypes import TABLE
from mishgrad.math.errors import MISH_GRAD_REGIONS, Regions, subnormal_edge
from mishgrad.math.oracle import dsilu_oracle, mish_backward_oracle, silu_backward_oracle

from .source import KERNEL_DIR

#: The entry's arguments that are not tensors: its workspace and its tiling data.
WORKSPACE: Final = "workspace"
TILING: Final = "tiling"


def _widened() -> Mapping[str, str]:
    return MappingProxyType({name: "float32" for name in TABLE})


@dataclass(frozen=True)
class OperatorSpec:
    """What the twin needs to know of an operator beyond its folder.

    Attributes
    ----------
    name
        The folder's name under ``kernel/``, the kernel entry's (``op_kernel/<name>.cpp``
        defines ``<name>``), and the ops-nn operator's.
    arguments
        The entry's arguments in order: tensor names, :data:`WORKSPACE` and :data:`TILING`.
    inputs, outputs
        The tensors it reads and writes, by name (each among ``arguments``).
    optional
        Inputs a launch may leave out (the entry then gets a null pointer).
    compute
        The dtype each supported dtype computes in (widening: 16-bit types in float32).
    glue_includes
        Folders of the operator (relative to it) on the include path of its twin glue.
    library
        The twin library's name (``lib<library>.so``; a one-dtype build adds ``_<dtype>``).
    tiling_function
        What the glue exports to compute the tiling from Python ("" if the spec's user
        computes it).
    folder
        Where the folder is (default: ``kernel/<name>``).
    reference
        The correctly rounded outputs for inputs given by name (None: not known): what a
        launch is judged against. The roofline's cost of any spec is
        :func:`mishgrad.evaluation.roofline.operator_cost` (:meth:`tensors_moved`).
    regions
        Where its float32 results are judged by absolute error: around a zero of the
        reference and where it is subnormal (for :func:`mishgrad.math.errors.misses_target`;
        None: not known).
    stamped
        Whether its kernel writes the stamp that names its build, so that every build first
        writes the identity header (:mod:`mishgrad.kernel.identity`) of the folder it compiles.
    """

    name: str
    arguments: tuple[str, ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    optional: tuple[str, ...] = ()
    compute: Mapping[str, str] = field(default_factory=_widened)
    glue_includes: tuple[str, ...] = ("op_kernel", "common")
    library: str = ""
    tiling_function: str = ""
    folder: Path | None = None
    reference: Callable[..., np.ndarray] | None = field(default=None, compare=False)
    regions: Regions | None = None
    stamped: bool = False

    def __post_init__(self) -> None:
        """Check that the tensors are the entry's and the dtypes are known.

        Raises
        ------
        ValueError
            If a tensor is not among the arguments, an optional tensor is not an input, or
            a dtype has no kernel type.
        """
        tensors = set(self.inputs) | set(self.outputs)
        if not tensors <= set(self.arguments) or not set(self.optional) <= set(self.inputs):
            raise ValueError(
                f"{self.name}: inputs {self.inputs} and outputs {self.outputs} must be among "
                f"the arguments {self.arguments}, and optional {self.optional} among the inputs"
            )
        unknown = (set(self.compute) | set(self.compute.values())) - set(TABLE)
        if unknown:
            raise ValueError(f"{self.name}: no kernel type for {sorted(unknown)}")

    @property
    def directory(self) -> Path:
        """The operator's folder."""
        return self.folder or KERNEL_DIR / self.name

    @property
    def library_name(self) -> str:
        """The twin library's name: :attr:`library`, or ``<name>_twin``."""
        return self.library or f"{self.name}_twin"

    @property
    def dtypes(self) -> tuple[str, ...]:
        """The dtypes the operator supports, each with a kernel of its own."""
        return tuple(self.compute)

    def tensors_moved(self, given: Iterable[str] | None = None) -> tuple[int, int]:
        """Tensors a launch reads and writes per element: the inputs ``given`` and the outputs.

        ``None`` gives every input but the optional ones.

        Raises
        ------
        ValueError
            If ``given`` names something that is not an input, or leaves out a required one.
        """
        required = [name for name in self.inputs if name not in self.optional]
        given = set(required if given is None else given)
        if not set(required) <= given <= set(self.inputs):
            raise ValueError(
                f"{self.name} reads {', '.join(required)} and may read "
                f"{', '.join(self.optional) or 'nothing else'}, not {sorted(given)}"
            )
        return len(given), len(self.outputs)

    def entry(self, dtype: str) -> str:
        """The kernel entry compiled for ``dtype``: ``<name>_<suffix>``.

        Raises
        ------
        ValueError
            If the operator does not support ``dtype``.
        """
        if dtype not in self.compute:
            raise ValueError(f"{self.name} supports {', '.join(self.dtypes)}, not {dtype!r}")
        return f"{self.name}_{TABLE[dtype].entry_suffix}"

    def defines(self, dtype: str) -> tuple[str, ...]:
        """The flags that compile the entry for ``dtype``: its C type and its name."""
        return (f"-DDTYPE_X={TABLE[dtype].c_type}", f"-D{self.name}={self.entry(dtype)}")


#: MishGrad: x_grad = grad * dmish/dx(x), with tanhx(x) optionally given (the book's operator).
MISH_GRAD: Final = OperatorSpec(
    name="mish_grad",
    arguments=("grad", "x", "tanhx", "x_grad", WORKSPACE, TILING),
    inputs=("grad", "x", "tanhx"),
    outputs=("x_grad",),
    optional=("tanhx",),
    glue_includes=("op_kernel", "common", "op_host/op_api"),
    library="mishgrad_twin",
    tiling_function="mishgrad_tiling",
    reference=lambda grad, x, tanhx=None: mish_backward_oracle(grad, x),  # tanhx adds nothing
    regions=MISH_GRAD_REGIONS,
    stamped=True,
)

#: SiluGrad's regions: the window around the zero of its d, x0 = -1 - W(1/e) ~ -1.27846, and
#: where its d is subnormal (below x ~ -91.8).
SILU_GRAD_REGIONS: Final = Regions((-1.33, -1.23), subnormal_edge(dsilu_oracle))
#: SiluGrad: x_grad = grad * dsilu/dx(x), the operator the learner writes in notebook 14. Its
#: folder is a skeleton (its Compute is empty) that the learner copies; the host computes its
#: tiling (:func:`mishgrad.book.exercises.nb14.tiling`).
SILU_GRAD: Final = OperatorSpec(
    name="silu_grad",
    arguments=("grad", "x", "x_grad", WORKSPACE, TILING),
    inputs=("grad", "x"),
    outputs=("x_grad",),
    reference=silu_backward_oracle,
    regions=SILU_GRAD_REGIONS,
)
