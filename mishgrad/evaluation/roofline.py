"""A roofline model of MishGrad on Atlas A2: bandwidth- or vector-bound, and how fast.

MishGrad reads ``grad`` and ``x`` (and ``tanhx``) once and writes the output once: every
element costs a fixed number of bytes of global memory (HBM) traffic and a fixed number of
vector instructions. Whichever takes longer bounds the kernel:

- **memory**: bytes per element (the tensors' sizes: the kernel moves exactly those,
  as notebook 05 checks on the trace) divided by the HBM bandwidth;
- **vector**: every vector instruction of the kernel works on float32 in 256-byte repeats,
  64 elements per repeat, so one instruction costs ``cycles_per_repeat / 64`` cycles per
  element on one vector core. The instruction counts come from the twin's trace
  (:func:`mishgrad.kernel.trace.instruction_counts`), i.e. from the kernel source as it is now.

The cost parameters (bandwidth, clock, cycles per repeat, vector cores; every core gets an
equal share of the bandwidth) are those of notebook 06's pipeline model,
:class:`mishgrad.kernel.pipeline.PipelineModel`, so both models make the same assumptions
(:data:`PLATFORM_GUIDE` is the source of the clock and the bandwidth). Notebook 12 adds the
pipeline's fill and drain to the busiest core's roofline to time one launch.
"""

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import numpy as np

from mishgrad.citations import OPS_NN, permalink
from mishgrad.kernel import tiling
from mishgrad.kernel.operators import OperatorSpec
from mishgrad.kernel.pipeline import PipelineModel
from mishgrad.kernel.platforms import DEFAULT_PLATFORM, Platform, platform
from mishgrad.kernel.trace import InstructionCounts, instruction_counts
from mishgrad.math.dtypes import as_dtype

#: ops-nn's cross-platform migration guide: for a representative Atlas A2 configuration
#: (line 21), 24 AI cores at 1.8 (GHz, lines 29-39) and a memory bandwidth of 1.6 TB/s
#: (lines 56-60). The source of the model's default clock and bandwidth.
PLATFORM_GUIDE: Final = permalink(
    OPS_NN, "docs/zh/develop/cross_platform_migration_guide.md", (19, 61)
)
#: HBM bandwidth, bytes per second: the guide's 1.6 TB/s is a peak figure of one
#: configuration; a kernel streams at less, so the model also runs at an assumed 1.2 TB/s
#: (the low end of third-party reports) and notebook 12 shows how the verdicts move.
HBM_BANDWIDTH_RANGE: Final = (1.2e12, 1.6e12)
#: Elements one 256-byte repeat of a float32 vector instruction processes.
ELEMENTS_PER_REPEAT: Final = tiling.REPEAT_BYTES // 4


@dataclass(frozen=True)
class KernelCost:
    """What one element costs the kernel: global-memory bytes and vector instructions."""

    dtype_size: int  # bytes per element of the tensors (4 or 2)
    has_tanhx: bool  # whether the kernel reads ``tanhx`` (MishGrad's tiling plans for it)
    instructions: Mapping[str, int]  # vector instructions per tile by op (each covers the tile)
    label: str = ""  # a name for tables and plots
    #: Tensors read and written per element, for any operator (:func:`operator_cost`);
    #: ``None``: MishGrad's, ``grad`` and ``x`` (and ``tanhx``) read, ``x_grad`` written.
    tensors: tuple[int, int] | None = None

    @property
    def read_bytes(self) -> int:
        """Bytes read per element (the inputs)."""
        return (self.tensors[0] if self.tensors else 3 if self.has_tanhx else 2) * self.dtype_size

    @property
    def write_bytes(self) -> int:
        """Bytes written per element (the outputs)."""
        return (self.tensors[1] if self.tensors else 1) * self.dtype_size

    @property
    def bytes_per_element(self) -> int:
        """Global-memory bytes per element, read and written."""
        return self.read_bytes + self.write_bytes

    @property
    def instruction_count(self) -> int:
        """Vector instructions per tile (= per element: each covers the tile)."""
        return sum(self.instructions.values())

    def cycles_per_repeat(self, model: PipelineModel, op_cycles: Mapping[str, float]) -> float:
        """Cycles of all instructions for one 256-byte repeat (64 elements)."""
        default = model.vector_cycles_per_repeat
        return sum(n * op_cycles.get(op, default) for op, n in self.instructions.items())


def cost_from_counts(
    counts: InstructionCounts | Mapping[str, int], dtype_size: int, has_tanhx: bool, label: str = ""
) -> KernelCost:
    """A :class:`KernelCost` from instruction counts (a trace's or cited ones)."""
    by_op = counts.by_op if isinstance(counts, InstructionCounts) else counts
    return KernelCost(dtype_size, has_tanhx, dict(by_op), label)


def operator_cost(
    spec: OperatorSpec,
    counts: InstructionCounts | Mapping[str, int],
    dtype: str,
    given: Iterable[str] | None = None,
    label: str = "",
) -> KernelCost:
    """The cost of any operator's kernel: its tensors from ``spec``, its instructions counted.

    ``given`` names the inputs a launch passes (default: all but the optional ones); every
    tensor moves once per element in ``dtype``.
    """
    size, tensors = as_dtype(dtype).itemsize, spec.tensors_moved(given)
    cost = cost_from_counts(counts, size, False, label or f"{spec.name}, {dtype}")
    return dataclasses.replace(cost, tensors=tensors)


def measure_cost(dtype: str, has_tanhx: bool, *, kernel_dir: Path | None = None) -> KernelCost:
    """Count the kernel's instructions on the twin (one traced launch of two tiles, one core).

    The kernel is built from the sources as they are now (``kernel_dir``: a scratch copy's),
    with the default platform's tile size, so an edit to ``op_kernel/mish_grad.h`` shows up
    here. The cost is labelled ``"<dtype>, <branch>"``.
    """
    from mishgrad.kernel import twin  # the twin needs a compiler: import it only when measuring

    resolved, chip = as_dtype(dtype), platform(DEFAULT_PLATFORM)
    size = resolved.itemsize
    tile = tiling.max_tile_length(size, has_tanhx, chip.ub_reported, chip.select_uses_scratch)
    x = np.linspace(-20.0, 20.0, 2 * tile).astype(resolved)
    tanhx = np.full_like(x, 0.5) if has_tanhx else None
    run = twin.run_kernel(
        np.ones_like(x), x, tanhx, on=chip, cores=1, trace=True, kernel_dir=kernel_dir
    )
    label = f"{dtype}, {'tanhx' if has_tanhx else 'no tanhx'}"
    return cost_from_counts(instruction_counts(run.trace), size, has_tanhx, label)


@dataclass(frozen=True)
class Roofline:
    """Atlas A2 (or another platform) as the roofline sees it."""

    #: The platform: its vector cores and UB (for the tiling).
    chip: Platform = field(default_factory=lambda: platform(DEFAULT_PLATFORM))
    #: Bandwidth, clock and cycles per repeat; its ``vector_cores`` must equal the chip's.
    model: PipelineModel = field(default_factory=PipelineModel)
    #: Cycles per repeat of particular ops (e.g. ``{"Exp": 4}``); the others cost
    #: ``model.vector_cycles_per_repeat``.
    op_cycles_per_repeat: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.model.vector_cores != self.chip.vector_cores:
            raise ValueError(
                f"the model assumes {self.model.vector_cores} vector cores, {self.chip.name} "
                f"has {self.chip.vector_cores}: use Roofline.for_chip"
            )

    @classmethod
    def for_chip(
        cls,
        chip: str | Platform = DEFAULT_PLATFORM,
        op_cycles_per_repeat: Mapping[str, float] | None = None,
        **parameters: float,
    ) -> "Roofline":
        """The roofline of ``chip``: PipelineModel's defaults, overridden by ``parameters``.

        ``chip`` is a key of :data:`mishgrad.kernel.platforms.PLATFORMS` or a Platform;
        ``parameters`` are fields of :class:`~mishgrad.kernel.pipeline.PipelineModel`, e.g.
        ``hbm_bytes_per_second=1.2e12``.
        """
        resolved = platform(chip)
        model = PipelineModel(vector_cores=resolved.vector_cores, **parameters)
        return cls(resolved, model, dict(op_cycles_per_repeat or {}))

    def vector_cycles_per_element(self, cost: KernelCost) -> float:
        """Vector cycles one core spends per element."""
        return cost.cycles_per_repeat(self.model, self.op_cycles_per_repeat) / ELEMENTS_PER_REPEAT

    def vector_elements_per_second(self, cost: KernelCost) -> float:
        """Elements per second the vector units of all cores can process."""
        cores = self.model.vector_cores
        return cores * self.model.clock_hz / self.vector_cycles_per_element(cost)

    def memory_elements_per_second(self, cost: KernelCost) -> float:
        """Elements per second the HBM bandwidth can feed."""
        return self.model.hbm_bytes_per_second / cost.bytes_per_element

    def bound(self, cost: KernelCost) -> str:
        """``"bandwidth"`` or ``"vector"`` for large n."""
        memory = self.memory_elements_per_second(cost)
        return "bandwidth" if memory <= self.vector_elements_per_second(cost) else "vector"

    def ridge_bandwidth(self, cost: KernelCost) -> float:
        """Bytes per second at which memory and vector time are equal (bandwidth-bound below)."""
        return self.vector_elements_per_second(cost) * cost.bytes_per_element
