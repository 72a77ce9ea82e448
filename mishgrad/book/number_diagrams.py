"""A diagram drawn from the book's numbers: a real tiling plan (notebook 04).

:func:`tiling_split`: n elements → 256-byte units → big, small and last cores → each core's
tiles and tail, every number taken from a real :class:`mishgrad.kernel.tiling.TilingPlan`.

As in :mod:`mishgrad.book.diagrams`, every word passes through
:func:`mishgrad.book.i18n.translate`, and the function returns its figure without showing it.
"""

from typing import Final

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from mishgrad.kernel import tiling

from .i18n import translate
from .tiling_viz import CORE_COLORS, LEGEND_BESIDE, TAIL_COLOR, legend_handles

#: The rows of :func:`tiling_split` on its y axis: units, cores, tiles.
_UNITS_Y, _CORES_Y, _TILES_Y = 2.0, 1.0, 0.0
_CENTERED: Final = {"ha": "center", "va": "center"}
#: How a tile is drawn: a whole one in its core's colour, a tail hatched.
_TAIL_STYLE: Final = {"color": "white", "alpha": 1.0, "hatch": "///", "ec": TAIL_COLOR}


def core_tiles(plan: tiling.TilingPlan, core: int) -> list[int]:
    """The lengths of core ``core``'s tiles in ``plan``, in order (the last is its tail)."""
    kind = next(k for k in tiling.core_kinds(plan) if k.kind == plan.core_kind(core))
    return [plan.tileLength] * (kind.tiles - 1) + [kind.tail]


def _draw_core(ax: Axes, plan: tiling.TilingPlan, core: int, unit: int) -> None:
    """Core ``core``'s slice on the cores' row, and its tiles on the tiles' row."""
    kind = plan.core_kind(core)
    tiles = core_tiles(plan, core)
    start, length = plan.core_slices()[core]
    ax.barh(_CORES_Y, length, left=start, height=0.6, color=CORE_COLORS[kind], ec="white", lw=1.5)
    units = translate("ends at n") if kind == "last" else translate(f"{length // unit} units")
    label = translate(f"core {core}: {length}") + "\n" + units
    style = {"fontsize": 8, "color": "white", "weight": "bold"}
    ax.text(start + length / 2, _CORES_Y, label, **_CENTERED, **style)
    whole = {"color": CORE_COLORS[kind], "alpha": 0.55, "ec": "white"}
    for index, tile_length in enumerate(tiles):
        tail = index == len(tiles) - 1 and tile_length < plan.tileLength
        ax.barh(
            _TILES_Y, tile_length, left=start, height=0.6, lw=1.2, **_TAIL_STYLE if tail else whole
        )
        middle = start + tile_length / 2
        ax.text(middle, _TILES_Y - 0.42, str(tile_length), ha="center", va="top", fontsize=7.5)
        start += tile_length


def tiling_split(plan: tiling.TilingPlan, dtype_size: int = 4) -> Figure:
    """Draw how a plan splits n elements into units, cores, tiles and tails.

    Three rows on one element axis: the 256-byte units, each core's slice coloured by kind, and
    each core's tiles, a tail hatched (meant for a few cores and tiles, each labelled);
    ``dtype_size`` is the tensor's bytes per element (4 or 2).
    """
    unit = tiling.REPEAT_BYTES // dtype_size
    n = plan.totalLength
    units = -(-n // unit)
    figure = plt.figure(figsize=(10.0, 3.9))
    ax = figure.add_subplot()
    ax.barh(_UNITS_Y, n, height=0.6, color="0.85", ec="0.3", lw=0.8)
    ax.vlines([k * unit for k in range(1, units)], 1.7, 2.3, color="white", lw=1.0)
    label = translate(
        f"n = {n} elements = {units} units of {tiling.REPEAT_BYTES} B ({unit} elements)"
    )
    ax.text(n / 2, _UNITS_Y, label, **_CENTERED, fontsize=8.5)
    for core in range(plan.blockDim):
        _draw_core(ax, plan, core, unit)
    rows = [
        translate(f"256-byte units ({unit} elements)"),
        translate("cores (blockIdx)"),
        translate(f"tiles of {plan.tileLength}, tails"),
    ]
    ax.set_yticks([_UNITS_Y, _CORES_Y, _TILES_Y], rows)
    ax.set_ylim(-0.85, 2.5)
    ax.set_xlim(0, n)
    ax.set_xticks([start for start, _ in plan.core_slices()] + [n])
    ax.set_xlabel(translate("element index"))
    ax.grid(False)
    ax.set_title(
        translate(
            f"{plan.blockDim} cores: {plan.bigCoreNum} big ({plan.bigCoreLength} elements), "
            f"small ({plan.smallCoreLength}), last ({plan.lastCoreLength}, ends at n); "
            f"tile {plan.tileLength}"
        ),
        fontsize=9,
    )
    ax.legend(handles=legend_handles(CORE_COLORS), **LEGEND_BESIDE)
    figure.tight_layout()
    return figure
