"""Diagrams of ideas the book otherwise states in words, drawn from code so they can be fixed.

- :func:`vector_core_data_path`: one vector core's data path, GM → MTE2 → the UB's input
  queues (two buffers each) → the vector unit → the output queue → MTE3 → GM (notebook 05);
- :func:`aclnn_sequence`: the two-phase aclnn call as a sequence diagram with lifelines
  (notebook 08).

The diagram computed from the book's numbers (the tiling split) is in
:mod:`mishgrad.book.number_diagrams`.

Every word on a diagram passes through :func:`mishgrad.book.i18n.translate` when it is drawn, so
the Chinese notebooks show Chinese diagrams (their entries are in
``translations/zh-CN/mishgrad.md``); the font comes from :mod:`mishgrad.book.notebook_display`.
Each function creates its figure through pyplot and returns it without showing it; the
notebook cell ends with ``plt.show()``.
"""

from typing import Final

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Rectangle

from .i18n import translate

Point = tuple[float, float]
Rect = tuple[float, float, float, float]
_CENTERED: Final = {"ha": "center", "va": "center"}
#: Fill colours of the data path's parts.
PATH_COLORS: Final = {"gm": "#dfe7f2", "queue": "#fde9c8", "vector": "#d8efd3", "ub": "#f6f6f6"}


def _canvas(width: float, height: float, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    figure = plt.figure(figsize=figsize)
    ax = figure.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return figure, ax


def _box(ax: Axes, rect: Rect, text: str, color: str, **kwargs: object) -> None:
    """A rounded box at ``rect`` (x, y, width, height), ``text`` in its middle."""
    x, y, w, h = rect
    style = {"boxstyle": "round,pad=0.02,rounding_size=0.12", "fc": color, "ec": "0.3"}
    ax.add_patch(FancyBboxPatch((x, y), w, h, **style, **kwargs))
    if text:
        ax.text(x + w / 2, y + h / 2, text, **_CENTERED, fontsize=9)


def _arrow(ax: Axes, start: Point, end: Point, *, dashed: bool = False) -> None:
    style = {"arrowstyle": "-|>", "color": "0.15", "lw": 1.3, "shrinkA": 0, "shrinkB": 0}
    if dashed:
        style["linestyle"] = (0, (4, 3))
    ax.annotate("", xy=end, xytext=start, arrowprops=style)


def _queue(ax: Axes, x: float, y: float, name: str, tiles: tuple[str, str]) -> None:
    """A queue: its name above two buffers, each labelled with the tile it holds."""
    _box(ax, (x, y, 2.6, 1.5), "", PATH_COLORS["queue"])
    ax.text(x + 1.3, y + 1.22, name, **_CENTERED, fontsize=8.5)
    for k, tile in enumerate(tiles):
        left = x + 0.15 + k * 1.2
        ax.add_patch(Rectangle((left, y + 0.15), 1.1, 0.8, fc="white", ec="0.4", lw=0.8))
        ax.text(
            left + 0.55, y + 0.55, translate(f"buffer {k}") + "\n" + tile, **_CENTERED, fontsize=7.5
        )


def vector_core_data_path() -> Figure:
    """Draw one vector core's data path for a tile, with its queues and double buffering.

    The queues' buffers are labelled with the tile each holds in the steady state. The figure has
    one axes without frame, in data coordinates 0–16 × 0–6.
    """
    figure, ax = _canvas(16.0, 6.2, (10.0, 3.9))
    gm = translate("Global Memory (GM)") + "\n\n"
    _box(ax, (0.1, 1.2, 2.2, 3.4), gm + translate("inputs:") + "\ngrad, x", PATH_COLORS["gm"])
    _box(ax, (13.7, 1.2, 2.2, 3.4), gm + translate("output:") + "\nx_grad", PATH_COLORS["gm"])
    _box(ax, (3.3, 0.35, 9.4, 5.2), "", PATH_COLORS["ub"], ls="--")
    ub = translate("Unified Buffer (UB) of one vector core")
    ax.text(8.0, 5.25, ub, **_CENTERED, fontsize=9.5, weight="bold")
    current, following, previous = (translate(f"tile {i}") for i in ("i", "i+1", "i−1"))
    _queue(ax, 3.6, 3.0, translate("gradQueue_ (VECIN)"), (current, following))
    _queue(ax, 3.6, 0.9, translate("xQueue_ (VECIN)"), (current, following))
    _box(ax, (7.0, 1.9, 2.0, 1.9), translate("vector unit") + "\n(Compute)", PATH_COLORS["vector"])
    _queue(ax, 9.8, 2.1, translate("xGradQueue_ (VECOUT)"), (current, previous))
    # MTE2: GM → both input queues; MTE3: output queue → GM.
    _arrow(ax, (2.3, 3.75), (3.6, 3.75))
    _arrow(ax, (2.3, 1.65), (3.6, 1.65))
    ax.text(2.95, 2.7, "MTE2\nDataCopy\n(CopyIn)", **_CENTERED, fontsize=8)
    _arrow(ax, (12.4, 2.85), (13.7, 2.85))
    ax.text(13.05, 1.95, "MTE3\nDataCopy\n(CopyOut)", **_CENTERED, fontsize=8)
    # The vector unit takes tile i from both input queues and puts it into the output queue.
    _arrow(ax, (6.2, 3.75), (7.0, 3.3))
    _arrow(ax, (6.2, 1.65), (7.0, 2.4))
    ax.text(6.75, 2.85, "DeQue", **_CENTERED, fontsize=7.5)
    _arrow(ax, (9.0, 2.85), (9.8, 2.85))
    ax.text(9.4, 3.1, "EnQue", ha="center", va="bottom", fontsize=7.5)
    ax.text(
        8.0,
        0.08,
        translate(
            "double buffering: MTE2 fills tile i+1 while the vector unit computes tile i "
            "and MTE3 copies tile i−1 out"
        ),
        ha="center",
        va="bottom",
        fontsize=8.5,
        style="italic",
    )
    return figure


#: The lifelines of :func:`aclnn_sequence`, left to right.
LIFELINE_LABELS: Final = ("host application", "aclnn library", "runtime (aclrt)", "stream / device")


def aclnn_sequence() -> Figure:
    """Draw the two-phase aclnn call as a sequence diagram with lifelines.

    Solid arrows are calls, dashed ones returns; the bars mark when a lifeline is busy. The
    figure has one axes without frame; the lifelines' heads are its first texts.
    """
    figure, ax = _canvas(16.0, 9.2, (10.0, 5.8))
    xs = (1.9, 6.4, 10.6, 14.2)
    top, bottom = 8.3, 0.2
    for x, label in zip(xs, LIFELINE_LABELS, strict=True):
        _box(ax, (x - 1.5, top, 3.0, 0.75), translate(label), "#e8edf5")
        ax.plot([x, x], [bottom, top], color="0.55", lw=1.0, ls=(0, (5, 4)), zorder=0)
    app, lib, runtime, stream = xs

    def bar(x: float, y_top: float, y_bottom: float, color: str = "0.85") -> None:
        ax.add_patch(Rectangle((x - 0.12, y_bottom), 0.24, y_top - y_bottom, fc=color, ec="0.3"))

    def message(y: float, start: float, end: float, text: str, *, dashed: bool = False) -> None:
        _arrow(ax, (start, y), (end, y), dashed=dashed)
        ax.text((start + end) / 2, y + 0.08, text, ha="center", va="bottom", fontsize=8)

    def phase(y_top: float, y_bottom: float, text: str) -> None:
        ax.add_patch(
            Rectangle((0.1, y_bottom), 15.8, y_top - y_bottom, fc="#fff7e0", ec="none", zorder=-1)
        )
        ax.text(0.2, y_top - 0.08, text, ha="left", va="top", fontsize=8.5, weight="bold")

    phase(8.1, 6.05, translate("phase 1 (host only)"))
    message(7.3, app, lib, "aclnnMishBackwardGetWorkspaceSize(gradOutput, self, out)")
    bar(lib, 7.3, 6.45)
    ax.text(lib + 0.25, 6.85, translate("checks the arguments, plans the work"), fontsize=7.5)
    message(6.45, lib, app, translate("workspace size, executor"), dashed=True)
    ax.text(0.2, 5.75, translate("the caller allocates the workspace"), fontsize=8.5, weight="bold")
    message(5.3, app, runtime, translate("aclrtMalloc(workspace size)"))
    message(4.8, runtime, app, translate("the workspace (device memory)"), dashed=True)
    phase(4.55, 2.75, translate("phase 2"))
    message(3.95, app, lib, "aclnnMishBackward(workspace, size, executor, stream)")
    bar(lib, 3.95, 3.2)
    message(3.45, lib, stream, translate("queue the kernel on the stream"))
    message(3.2, lib, app, translate("returns at once"), dashed=True)
    bar(stream, 3.45, 1.2, color="#cfe8c9")
    running = translate("the kernel runs\non the vector cores")
    ax.text(stream - 0.25, 2.3, running, ha="right", va="center", fontsize=7.5)
    message(2.2, app, runtime, "aclrtSynchronizeStream(stream)")
    bar(runtime, 2.2, 1.0)
    _arrow(ax, (stream, 1.2), (runtime + 0.12, 1.2), dashed=True)
    ax.text((stream + runtime) / 2, 1.28, translate("done"), ha="center", va="bottom", fontsize=8)
    message(0.75, runtime, app, translate("work done (or its error)"), dashed=True)
    return figure
