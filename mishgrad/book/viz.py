"""Reusable figures of the book: where formulas fail, error maps, ULP envelopes.

Each creates its figure through pyplot and returns it without showing it: the notebook cell
ends with ``plt.show()``, and tests inspect the returned axes, labels and artists (then close
the figure). Display settings and the figures' language are :mod:`mishgrad.book.notebook_display`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from mishgrad.math.errors import ulp_distance

#: Colour of each failure kind of :data:`mishgrad.math.errors.FAILURE_KINDS`.
FAILURE_COLORS: Final[dict[str, str]] = {
    "NaN": "tab:red",
    "±Inf": "tab:orange",
    "wrong sign": "tab:purple",
    "inaccurate": "tab:blue",
}

#: Colour of NaN/Inf markers in error maps.
NONFINITE_COLOR: Final = "tab:red"


def _new_axes(ax: Axes | None, figsize: tuple[float, float] | None = None) -> tuple[Figure, Axes]:
    if ax is not None:
        return ax.get_figure(), ax
    figure = plt.figure(figsize=figsize)
    return figure, figure.add_subplot()


def merge_intervals(
    intervals: Sequence[tuple[float, float]], gap: float
) -> list[tuple[float, float]]:
    """Return sorted ``intervals`` with those less than ``gap`` apart joined (for drawing)."""
    merged: list[tuple[float, float]] = []
    for lo, hi in sorted(intervals):
        if merged and lo - merged[-1][1] < gap:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def region_chart(
    regions: Mapping[str, Mapping[str, Sequence[tuple[float, float]]]],
    *,
    title: str = "",
    ax: Axes | None = None,
    xlim: tuple[float, float] = (-128.0, 128.0),
    merge: float = 0.004,
) -> Figure:
    """Draw where formulas fail: one row per formula, one coloured lane per failure kind.

    Parameters
    ----------
    regions
        ``{formula: {kind: [(x_first, x_last), ...]}}``, as
        :func:`mishgrad.math.errors.failure_regions` returns per formula. Rows are drawn
        top to bottom in the mapping's order; kinds are keys of :data:`FAILURE_COLORS`.
    title
        Axes title.
    ax
        Draw into this axes; default: a new Figure with one axes.
    xlim
        The linear x range drawn. An interval that runs past an edge ends in an arrow
        head there; one entirely beyond it is drawn as an arrow head with its end points
        written beside it, so no failure is hidden.
    merge
        Intervals closer than this fraction of the x range are drawn as one bar, so
        thousands of scattered failing samples stay a readable band.

    Returns
    -------
    matplotlib.figure.Figure
        The figure holding the axes. A one-sample interval is drawn as a short mark.

    """
    figure, ax = _new_axes(ax, (8.0, 0.55 * len(regions) + 1.2))
    kinds = list(FAILURE_COLORS)
    lane = 0.8 / len(kinds)
    left, right = xlim
    gap = merge * (right - left)
    for row, by_kind in enumerate(regions.values()):
        y_row = len(regions) - 1 - row
        drawn = False
        for index, kind in enumerate(kinds):
            intervals = merge_intervals(by_kind.get(kind, []), gap)
            if not intervals:
                continue
            drawn = True
            colour = FAILURE_COLORS[kind]
            y = y_row + 0.4 - lane * (index + 0.5)
            segments = []
            for lo, hi in intervals:
                if hi < left or lo > right:  # entirely outside: arrow at the edge + text
                    edge, marker, align = (
                        (left, "<", "left") if hi < left else (right, ">", "right")
                    )
                    ax.plot([edge], [y], marker=marker, color=colour, ms=6, clip_on=False)
                    ax.text(
                        edge + (1 if align == "left" else -1) * 0.02 * (right - left),
                        y,
                        f"[{lo:.3g}, {hi:.3g}]",
                        ha=align,
                        va="center",
                        fontsize=7,
                        color=colour,
                    )
                    continue
                start, end = max(lo, left), min(hi, right)
                if end - start < gap:  # a lone sample: a short mark, not a zero-length line
                    middle = (start + end) / 2
                    start, end = middle - gap / 2, middle + gap / 2
                segments.append([(start, y), (end, y)])
                if lo < left:
                    ax.plot([left], [y], marker="<", color=colour, ms=6, clip_on=False)
                if hi > right:
                    ax.plot([right], [y], marker=">", color=colour, ms=6, clip_on=False)
            if segments:
                ax.add_collection(
                    LineCollection(
                        segments, colors=colour, linewidths=5.0, capstyle="projecting", label=kind
                    )
                )
        if not drawn:
            ax.text(0.0, y_row, "no failure", ha="center", va="center", color="0.45", fontsize=8)
    ax.set_xlim(left, right)
    ax.set_yticks(range(len(regions)), list(regions)[::-1])
    ax.set_ylim(-0.6, len(regions) - 0.4)
    ax.set_xlabel("x")
    ax.set_title(title)
    ax.grid(axis="y", visible=False)
    handles = [Line2D([], [], color=FAILURE_COLORS[k], lw=5, label=k) for k in kinds]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    return figure


def region_charts(
    panels: Mapping[str, Mapping[str, Mapping[str, Sequence[tuple[float, float]]]]],
    *,
    title: str = "",
    xlim: tuple[float, float] = (-128.0, 128.0),
) -> Figure:
    """Stack one :func:`region_chart` per panel (e.g. per dtype) with a shared x axis."""
    rows = max(len(regions) for regions in panels.values())
    figure = plt.figure(figsize=(9.0, len(panels) * (0.36 * rows + 0.8) + 0.6))
    axes = figure.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (name, regions) in zip(axes, panels.items(), strict=True):
        region_chart(regions, title=name, ax=ax, xlim=xlim)
        ax.set_xlabel("")
        if ax is not axes[0]:
            ax.get_legend().remove()
    axes[-1].set_xlabel("x")
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure


def error_map(
    x: np.ndarray,
    results: Mapping[str, np.ndarray],
    truth: np.ndarray,
    *,
    title: str = "",
    ncols: int = 3,
    xlim: tuple[float, float] | None = (-128.0, 128.0),
) -> Figure:
    """Plot the ULP distance to the correct ``truth`` versus x, one panel per formula.

    The y axis is symmetric-logarithmic, so correctly rounded results (0 ULP) lie on
    the bottom line and errors of 1, 10, 100 ... ULP are equally spaced above it.
    Results that are NaN or infinite where the truth is finite are marked with red
    crosses on a band above the largest finite distance, labelled ``NaN/Inf``.

    Parameters
    ----------
    x
        The inputs (any float dtype), e.g. every finite float16.
    results
        ``{formula: result}``, each in the dtype of ``truth``.
    truth
        The correctly rounded values (:func:`mishgrad.math.oracle.dmish_oracle`).
    title
        Figure title.
    ncols
        Panels per row.
    xlim
        The x range drawn (linear); ``None`` for all of x. Report what lies outside it
        in the text beside the figure.

    """
    x64 = np.asarray(x, dtype=np.float64)
    shown = np.ones(x64.shape, bool) if xlim is None else (x64 >= xlim[0]) & (x64 <= xlim[1])
    finite_truth = np.isfinite(truth.astype(np.float64))
    distances, nonfinite = {}, {}
    for name, result in results.items():
        finite = np.isfinite(result.astype(np.float64))
        distance = np.where(finite & finite_truth, ulp_distance(result, truth), np.nan)
        distances[name] = distance[shown]
        nonfinite[name] = (~finite & finite_truth)[shown]
    largest = max([1.0] + [float(np.nanmax(d)) for d in distances.values() if np.any(d >= 0)])
    band = 10 ** (np.ceil(np.log10(largest)) + 1)
    x64 = x64[shown]
    nrows = -(-len(results) // ncols)
    figure = plt.figure(figsize=(3.3 * ncols, 2.4 * nrows + 0.6))
    axes = figure.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False).ravel()
    for ax, name in zip(axes, results, strict=False):
        ax.plot(x64, distances[name], ".", ms=1.5, color="tab:blue", label="finite result")
        bad = nonfinite[name]
        ax.plot(
            x64[bad],
            np.full(int(bad.sum()), band),
            "x",
            ms=3,
            color=NONFINITE_COLOR,
            label="NaN/Inf (truth finite)",
        )
        ax.axhline(band / 3, color="0.6", lw=0.6, ls="--")
        if xlim is not None:
            ax.set_xlim(*xlim)
        ax.set_yscale("symlog", linthresh=1.0)
        ax.set_ylim(-0.3, band * 4)
        ax.set_title(name, fontsize=9)
        ax.text(
            0.02,
            0.97,
            "NaN/Inf",
            transform=ax.transAxes,
            va="top",
            fontsize=7,
            color=NONFINITE_COLOR,
        )
    for ax in axes[len(results) :]:
        ax.set_visible(False)
    for ax in axes[::ncols]:
        ax.set_ylabel("error (ULP)")
    for ax in axes[-ncols:]:
        ax.set_xlabel("x")
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure


def binned_max(x: np.ndarray, values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Return the largest of ``values`` in each bin ``[edges[i], edges[i+1])`` of x (or NaN)."""
    x64 = np.asarray(x, dtype=np.float64)
    index = np.digitize(x64, edges) - 1
    inside = (index >= 0) & (index < len(edges) - 1) & ~np.isnan(values)
    out = np.full(len(edges) - 1, -np.inf)
    np.maximum.at(out, index[inside], values[inside])
    out[np.isneginf(out)] = np.nan
    return out


def ulp_envelope(
    x: np.ndarray,
    results: Mapping[str, np.ndarray],
    truth: np.ndarray,
    edges: np.ndarray,
    *,
    title: str = "",
    ax: Axes | None = None,
    xlabel: str = "x",
    yscale: str = "linear",
) -> Figure:
    """Plot the largest ULP error per x bin for several formulas, as step lines on one axes.

    Only inputs where result and truth are both finite count. Use it where a scatter
    would be too dense (the float32 sample has millions of points). ``yscale`` may be
    ``"symlog"`` for errors spanning many decades (0 stays drawable).
    """
    figure, ax = _new_axes(ax)
    for name, result in results.items():
        both = np.isfinite(result.astype(np.float64)) & np.isfinite(truth.astype(np.float64))
        distance = np.where(both, ulp_distance(result, truth), np.nan)
        ax.stairs(binned_max(x, distance, edges), edges, label=name, lw=1.5)
    ax.set_xlabel(xlabel)
    if yscale == "symlog":
        ax.set_yscale("symlog", linthresh=1.0)
    else:
        ax.set_yscale(yscale)
    ax.set_ylabel("max error in bin (ULP)")
    ax.set_title(title)
    if results:
        ax.legend(fontsize=8)
    return figure
