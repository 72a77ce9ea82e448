"""Figures, tables and an explorer for the tiling notebook (notebook 04).

Everything here draws what :mod:`mishgrad.kernel.tiling` computes; nothing re-derives a plan.
Figure functions create their figure (or draw into ``ax``) and return it without showing it;
the notebook cell ends with ``plt.show()``.
"""

import base64
import io
from collections.abc import Iterable, Sequence
from typing import Final

import matplotlib.pyplot as plt
from IPython.display import Markdown
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from mishgrad.kernel import tiling
from mishgrad.kernel.platforms import PLATFORMS, Platform, platform
from mishgrad.kernel.tiling import core_kinds
from mishgrad.math.dtypes import DTYPES, as_dtype

from .i18n import translate
from .notebook_display import localize_figure
from .report import table

#: Where the figures put their legends: beside the axes, on the right.
LEGEND_BESIDE: Final = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "fontsize": 8}

#: Colour of each kind of UB buffer (:func:`mishgrad.kernel.tiling.buffer_kind`) in
#: :func:`budget_bars`.
BUFFER_KIND_COLORS: Final[dict[str, str]] = {
    "queue": "tab:blue",
    "float32 copy": "tab:green",
    "temp": "tab:orange",
    "mask": "tab:purple",
}
#: The style of the numbers :func:`budget_bars` writes above each row.
_NOTE: Final = {"fontsize": 7.5, "va": "bottom"}
#: The dtype sizes and branches :func:`budget_bars` draws, with their row labels.
BUDGET_CASES: Final[tuple[tuple[str, int, bool], ...]] = (
    ("float32, no tanhx", 4, False),
    ("float32, tanhx", 4, True),
    ("16-bit, no tanhx", 2, False),
    ("16-bit, tanhx", 2, True),
)


def _figure_and_axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    """``ax`` and its figure; without ``ax``, a new figure of ``figsize`` with one axes."""
    if ax is not None:
        return ax.get_figure(), ax
    figure = plt.figure(figsize=figsize)
    return figure, figure.add_subplot()


def budget_bars(on: str | Platform = "910B2", *, ax: Axes | None = None) -> Figure:
    """Draw the kernel's UB buffers for each row of :data:`BUDGET_CASES` on one platform.

    Each row stacks the buffers (in allocation order, at the tile length the tiling picks)
    from UB offset 0, marks the row's limit with a black bar, and writes the tile length
    and the bytes used beside it. The shaded band is Select's tensor-mode scratch area.
    """
    chip = platform(on)
    figure, ax = _figure_and_axes(ax, (9.0, 3.4))
    kib = 1024.0
    rows = len(BUDGET_CASES)
    for row, (_label, size, has_tanhx) in enumerate(BUDGET_CASES):
        y = rows - 1 - row
        tile = tiling.max_tile_length(size, has_tanhx, chip.ub_reported, chip.select_uses_scratch)
        offset = 0
        for buffer in tiling.budget(size, has_tanhx):
            width = buffer.bytes_for(tile)
            colour = BUFFER_KIND_COLORS[tiling.buffer_kind(buffer.name)]
            ax.barh(y, width / kib, left=offset / kib, height=0.6, color=colour, ec="white", lw=0.6)
            offset += width
        limit = tiling.ub_limit(chip.ub_reported, size, has_tanhx, chip.select_uses_scratch)
        ax.plot([limit / kib] * 2, [y - 0.4, y + 0.4], color="black", lw=2.0)
        ax.text(2.0, y + 0.42, f"tile {tile} elements: {offset} B used, limit {limit} B", **_NOTE)
    scratch = chip.select_scratch_begin
    ax.axvspan(scratch / kib, chip.ub_bytes / kib, color="tab:red", alpha=0.15, hatch="//", lw=0)
    ax.axvline(chip.ub_bytes / kib, color="0.3", lw=1.0, ls="--")
    handles = [Patch(color=c, label=k) for k, c in BUFFER_KIND_COLORS.items()]
    handles += [
        Patch(facecolor="tab:red", alpha=0.15, hatch="//", label="Select scratch area"),
        plt.Line2D([], [], color="black", lw=2.0, label="row's limit"),
        plt.Line2D([], [], color="0.3", lw=1.0, ls="--", label="end of UB"),
    ]
    ax.legend(handles=handles, **LEGEND_BESIDE)
    ax.set_yticks(range(rows), [case[0] for case in BUDGET_CASES][::-1])
    ax.set_ylim(-0.6, rows - 0.1)
    ax.set_xlim(0, chip.ub_bytes / kib * 1.02)
    ax.set_axisbelow(True)
    ax.set_xlabel("UB offset (KiB)")
    ax.set_title(f"UB budget of one vector core on {chip.name} ({chip.ub_bytes} B of UB)")
    ax.grid(axis="y", visible=False)
    figure.tight_layout()
    return figure


#: Colour of each kind of core in :func:`core_split`.
CORE_COLORS: Final[dict[str, str]] = {"big": "tab:blue", "small": "tab:green", "last": "tab:purple"}
TAIL_COLOR: Final = "tab:orange"
#: Above this many tiles per core, tile boundaries are not drawn (they would be a solid fill).
MAX_DRAWN_TILES: Final = 200


def plan_table(plan: tiling.TilingPlan) -> Markdown:
    """A Markdown table of a plan by kind of core: which cores, elements, tiles, tail, range."""
    rows, first_core, first_element = [], 0, 0
    for kind in core_kinds(plan):
        last_core = first_core + kind.cores - 1
        end = first_element + kind.cores * kind.length
        cores = str(first_core) if kind.cores == 1 else f"{first_core}-{last_core}"
        span = f"[{first_element}, {end})"
        rows.append([kind.kind, kind.cores, cores, kind.length, kind.tiles, kind.tail, span])
        first_core, first_element = last_core + 1, end
    headers = ["core kind", "cores", "blockIdx", "elements each", "tiles each", "tail", "elements"]
    return table(rows, headers)


def legend_handles(kinds: Iterable[str]) -> list[Patch]:
    """A legend of these kinds of core (:data:`CORE_COLORS`) and of the tail tile."""
    handles = [Patch(color=CORE_COLORS[k], label=translate(f"{k} core")) for k in kinds]
    handles.append(Patch(fc="white", hatch="///", ec=TAIL_COLOR, label=translate("tail tile")))
    return handles


def core_split(plan: tiling.TilingPlan, *, ax: Axes | None = None, title: str = "") -> Figure:
    """Draw every core of ``plan`` as a bar (one row per core) cut into its tiles.

    The x axis is the element offset inside the core's own slice, so the bars of big,
    small and last cores can be compared. Bars are filled in the core kind's colour;
    tiles are separated by white lines (up to :data:`MAX_DRAWN_TILES` tiles per core),
    and a tail tile shorter than the tile length is hatched orange. The row of core ``i``
    is drawn at ``y = i`` from the top.
    """
    figure, ax = _figure_and_axes(ax, (8.0, 3.6))
    tile = plan.tileLength
    slices = plan.core_slices()
    boundaries = []
    by_kind = {kind.kind: kind for kind in core_kinds(plan)}
    for core, (_, length) in enumerate(slices):
        kind = by_kind[plan.core_kind(core)]
        ax.barh(core, length, height=0.8, color=CORE_COLORS[kind.kind], lw=0)
        if kind.tail < tile:
            full = (kind.tiles - 1) * tile
            tail = {"fill": False, "hatch": "///", "ec": TAIL_COLOR, "lw": 0}
            ax.barh(core, length - full, left=full, height=0.8, **tail)
        if kind.tiles <= MAX_DRAWN_TILES:
            boundaries += [
                [(k * tile, core - 0.4), (k * tile, core + 0.4)] for k in range(1, kind.tiles)
            ]
    if boundaries:
        ax.add_collection(LineCollection(boundaries, colors="white", linewidths=1.0))
    ax.set_xlim(0, max(length for _, length in slices) * 1.02)
    ax.set_ylim(plan.blockDim - 0.5, -0.5)
    ticks = [0, plan.blockDim - 1]
    if all(abs(plan.bigCoreNum - t) >= plan.blockDim / 8 for t in ticks):
        ticks.append(plan.bigCoreNum)  # the first small core, when its label has room
    ax.set_yticks(sorted(set(ticks)))
    ax.set_axisbelow(True)
    ax.set_xlabel("element offset inside the core's slice")
    ax.set_ylabel("core (blockIdx)")
    ax.grid(axis="y", visible=False)
    ax.legend(handles=legend_handles(by_kind), **LEGEND_BESIDE)
    ax.set_title(title or f"n = {plan.totalLength}: {plan.blockDim} cores, tile {tile}", fontsize=9)
    return figure


def _output(data: dict[str, str]) -> dict:
    """A Jupyter ``display_data`` output of ``data`` (by MIME type)."""
    return {"output_type": "display_data", "data": data, "metadata": {}}


def _png_output(figure: Figure) -> dict:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return _output({"image/png": data, "text/plain": "<Figure>"})


def _markdown_output(markdown: str) -> dict:
    return _output({"text/markdown": markdown, "text/plain": markdown})


def explorer_outputs(n: int, dtype: str, has_tanhx: bool, on: str) -> tuple[dict, ...]:
    """The explorer's outputs for one setting: a summary line, :func:`plan_table`, the figure.

    Returned as Jupyter output dicts (the ``outputs`` of an ipywidgets ``Output``), built
    without pyplot, so nothing leaks into the notebook cell that created the explorer.
    """
    size = as_dtype(dtype).itemsize
    try:
        plan = tiling.plan_for(n, size, has_tanhx, on)
    except tiling.TilingError as error:
        return (_markdown_output(translate(f"no plan: {error}")),)
    chip = platform(on)
    summary = translate(
        f"**{chip.name}**, n = {n} {dtype}, {'with' if has_tanhx else 'without'} tanhx: "
        f"unit {tiling.REPEAT_BYTES // size} elements, {plan.blockDim} of "
        f"{chip.vector_cores} cores, {plan.bigCoreNum} big, tile {plan.tileLength} elements."
    )
    figure = Figure(figsize=(8.0, 3.4))
    core_split(plan, ax=figure.add_subplot(), title=f"n = {n} {dtype} on {chip.name}")
    figure.tight_layout()
    localize_figure(figure)  # the explorer draws outside pyplot: no display hook sees it
    return _markdown_output(summary), _markdown_output(plan_table(plan).data), _png_output(figure)


def split_explorer(
    n: int = 48 * 64 + 5, dtype: str = "float32", has_tanhx: bool = False, on: str = "910B2"
):
    """An ipywidgets panel that redraws :func:`explorer_outputs` when a control changes.

    The drawing is written into the ``Output`` widget's state (not printed while a cell
    runs), and the panel's text form is a fixed sentence, so a notebook that displays it
    stores deterministic output. It needs a live kernel to react; a static figure of the
    same content belongs beside it.
    """
    import ipywidgets as widgets

    class Explorer(widgets.VBox):
        def __repr__(self) -> str:
            return translate(
                "Tiling explorer: change n, dtype, tanhx or platform (needs a live kernel)"
            )

    length = widgets.BoundedIntText(value=n, min=1, max=10**12, description="n")
    dtype_box = widgets.Dropdown(options=list(DTYPES), value=dtype, description="dtype")
    tanhx_box = widgets.Checkbox(value=has_tanhx, description="tanhx")
    chip_box = widgets.Dropdown(options=list(PLATFORMS), value=on, description="platform")
    out = widgets.Output()
    controls: Sequence[widgets.Widget] = (length, dtype_box, tanhx_box, chip_box)

    def redraw(_change: object = None) -> None:
        out.outputs = explorer_outputs(*(control.value for control in controls))

    for control in controls:
        control.observe(redraw, names="value")
    redraw()
    return Explorer([widgets.HBox(list(controls[:2])), widgets.HBox(list(controls[2:])), out])
