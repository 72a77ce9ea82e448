"""A diagram drawn from the book's numbers: a real tiling plan (notebook 04).

:func:`tiling_split`: n elements → 256-byte units → big, small and last cores → each core's
tiles and tail, every number taken from a real :class:`mishgrad.kernel.tiling.TilingPlan`.

As in :mod:`mishgrad.book.diagrams`, every word passes through
:func:`mishgrad.book.i18n.translate`, and the function returns its figure without showing it.
"""

from __future__ import annotations

from typing import Final

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from mishgrad.kernel import tiling

from .i18n import translate

#: Colour of each kind of core in :func:`tiling_split` (as :mod:`mishgrad.book.tiling_viz`).
CORE_COLORS: Final[dict[str, str]] = {"big": "tab:blue", "small": "tab:green", "last": "tab:purple"}
TAIL_COLOR: Final = "tab:orange"
#: The small launch :func:`tiling_split` draws by default: float32, no tanhx, 4 cores and a
#: UB that holds one 256-element tile, so that every tile of every core can be labelled.
SMALL_PLAN: Final = {"total_length": 2150, "dtype_size": 4, "cores": 4, "ub_reported": 16384}


def small_plan() -> tiling.TilingPlan:
    """The plan of :data:`SMALL_PLAN`: 2150 float32 elements on 4 cores, tiles of 256."""
    return tiling.plan(
        SMALL_PLAN["total_length"],
        SMALL_PLAN["dtype_size"],
        False,
        SMALL_PLAN["ub_reported"],
        SMALL_PLAN["cores"],
        select_scratch=False,
    )


def core_kind(plan: tiling.TilingPlan, core: int) -> str:
    """``"big"``, ``"small"`` or ``"last"``: the kind of core ``core`` in ``plan``."""
    if core == plan.blockDim - 1:
        return "last"
    return "big" if core < plan.bigCoreNum else "small"


def core_tiles(plan: tiling.TilingPlan, core: int) -> list[int]:
    """The lengths of core ``core``'s tiles in ``plan``, in order (the last is its tail)."""
    count, tail = {
        "big": (plan.bigTileNum, plan.bigTailLength),
        "small": (plan.smallTileNum, plan.smallTailLength),
        "last": (plan.lastTileNum, plan.lastTailLength),
    }[core_kind(plan, core)]
    return [plan.tileLength] * (count - 1) + [tail]


def tiling_split(plan: tiling.TilingPlan | None = None, dtype_size: int = 4) -> Figure:
    """Draw how a plan splits n elements into units, cores, tiles and tails.

    Three rows on one element axis: the tensor's n elements cut into 256-byte units; each
    core's slice, coloured by kind (big cores take one unit more, the last core ends at n);
    each core's tiles, the tail hatched when it is shorter than a tile. Every number on the
    figure is a field of ``plan`` (or follows from it).

    Parameters
    ----------
    plan
        The plan to draw; default :func:`small_plan`. Meant for a few cores and tiles: every
        core and every tile gets a label.
    dtype_size
        Bytes per element of the plan's tensor (4 or 2): the unit is ``256 / dtype_size``.

    Returns
    -------
    matplotlib.figure.Figure
        One axes; x is the element index, rows from the top: units, cores, tiles.

    """
    plan = plan or small_plan()
    unit = tiling.REPEAT_BYTES // dtype_size
    n = plan.totalLength
    units = -(-n // unit)
    figure = plt.figure(figsize=(10.0, 3.9))
    ax = figure.add_subplot()
    rows = {"units": 2.0, "cores": 1.0, "tiles": 0.0}
    # The n elements in units of 256 bytes.
    ax.barh(rows["units"], n, height=0.6, color="0.85", ec="0.3", lw=0.8)
    ax.vlines(
        [k * unit for k in range(1, units)],
        rows["units"] - 0.3,
        rows["units"] + 0.3,
        color="white",
        lw=1.0,
    )
    ax.text(
        n / 2,
        rows["units"],
        translate(f"n = {n} elements = {units} units of {tiling.REPEAT_BYTES} B ({unit} elements)"),
        ha="center",
        va="center",
        fontsize=8.5,
    )
    for core, (start, length) in enumerate(plan.core_slices()):
        kind = core_kind(plan, core)
        colour = CORE_COLORS[kind]
        ax.barh(rows["cores"], length, left=start, height=0.6, color=colour, ec="white", lw=1.5)
        ax.text(
            start + length / 2,
            rows["cores"],
            translate(f"core {core}: {length}")
            + "\n"
            + (translate("ends at n") if kind == "last" else translate(f"{length // unit} units")),
            ha="center",
            va="center",
            fontsize=8,
            color="white",
            weight="bold",
        )
        offset = start
        for index, tile_length in enumerate(core_tiles(plan, core)):
            is_tail = index == len(core_tiles(plan, core)) - 1 and tile_length < plan.tileLength
            ax.barh(
                rows["tiles"],
                tile_length,
                left=offset,
                height=0.6,
                color="white" if is_tail else colour,
                alpha=1.0 if is_tail else 0.55,
                hatch="///" if is_tail else None,
                ec=TAIL_COLOR if is_tail else "white",
                lw=1.2,
            )
            ax.text(
                offset + tile_length / 2,
                rows["tiles"] - 0.42,
                str(tile_length),
                ha="center",
                va="top",
                fontsize=7.5,
            )
            offset += tile_length
    ax.set_yticks(
        list(rows.values()),
        [
            translate(f"256-byte units ({unit} elements)"),
            translate("cores (blockIdx)"),
            translate(f"tiles of {plan.tileLength}, tails"),
        ],
    )
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
    handles = [Patch(color=CORE_COLORS[k], label=translate(f"{k} core")) for k in CORE_COLORS]
    handles.append(Patch(fc="white", hatch="///", ec=TAIL_COLOR, label=translate("tail tile")))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    figure.tight_layout()
    return figure


# 4. t and p cancel at the zero of d
