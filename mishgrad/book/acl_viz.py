"""Figures for notebook 09: how a tensor's view lies in its storage.

``aclCreateTensor`` describes a tensor as a *view* over device memory: a shape, strides in
elements and an offset in elements, over a storage of some number of elements. The functions
here compute and draw where each element of such a view lives.

- :func:`view_positions` gives the storage index of every view element;
- :func:`view_map` draws the storage as a grid of cells, the view's cells shaded and labelled
  with their view index.

Like :mod:`mishgrad.book.viz`, figure functions create (or draw into) their figure and return it
without showing it; the notebook cell ends with ``plt.show()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

#: Fill of storage cells that the view covers, and of those it does not.
IN_VIEW_COLOR: Final = "tab:blue"
OUTSIDE_COLOR: Final = "0.92"


def view_positions(shape: Sequence[int], strides: Sequence[int], offset: int = 0) -> np.ndarray:
    """The storage index of every element of a view, as an int64 array shaped like the view.

    Element ``(i, j, ...)`` lives at ``offset + i * strides[0] + j * strides[1] + ...``
    (strides and offset in elements, as ``aclCreateTensor`` takes them).

    Raises
    ------
    ValueError
        If ``shape`` and ``strides`` differ in length, or a dimension, stride or the offset
        is negative.

    """
    shape, strides = tuple(int(n) for n in shape), tuple(int(s) for s in strides)
    if len(shape) != len(strides):
        raise ValueError(f"shape {shape} and strides {strides} differ in length")
    if any(n < 0 for n in shape) or any(s < 0 for s in strides) or offset < 0:
        raise ValueError("dimensions, strides and the offset must not be negative")
    positions = np.full(shape, int(offset), dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(shape, strides, strict=True)):
        along = [1] * len(shape)
        along[axis] = size
        positions = positions + (np.arange(size, dtype=np.int64) * stride).reshape(along)
    return positions


def view_map(
    shape: Sequence[int],
    strides: Sequence[int],
    offset: int,
    storage_size: int,
    *,
    columns: int | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Draw a view's storage as a grid: cells in the view shaded and labelled with their index.

    Parameters
    ----------
    shape, strides, offset
        The view, in elements.
    storage_size
        Elements of the storage (the grid has this many cells).
    columns
        Cells per grid row (default: the last stride of a 2-D view's first dimension, else
        ``storage_size``).
    ax
        Axes to draw into; a new figure otherwise.
    title
        The axes title.

    Raises
    ------
    ValueError
        If the view reaches past the storage.

    """
    positions = view_positions(shape, strides, offset)
    if positions.size and positions.max() >= storage_size:
        raise ValueError(
            f"the view reaches element {positions.max()} but the storage holds {storage_size}"
        )
    if columns is None:
        columns = int(strides[0]) if len(strides) == 2 and strides[0] > 0 else storage_size
    columns = max(1, min(columns, storage_size))
    rows = -(-storage_size // columns)
    if ax is None:
        figure, ax = plt.subplots(figsize=(0.7 * columns + 1.2, 0.6 * rows + 1.2))
    else:
        figure = ax.get_figure()
    labels: dict[int, list[str]] = {}
    for index in np.ndindex(*positions.shape):
        labels.setdefault(int(positions[index]), []).append(",".join(map(str, index)))
    for cell in range(storage_size):
        row, column = divmod(cell, columns)
        inside = cell in labels
        ax.add_patch(
            Rectangle(
                (column, row), 1, 1, facecolor=IN_VIEW_COLOR if inside else OUTSIDE_COLOR,
                alpha=0.55 if inside else 1.0, edgecolor="white", linewidth=1.5,
            )
        )  # fmt: skip
        ax.text(column + 0.06, row + 0.1, str(cell), fontsize=6, color="0.35", va="top")
        if inside:
            ax.text(column + 0.5, row + 0.58, "\n".join(labels[cell]), ha="center", va="center",
                    fontsize=8)  # fmt: skip
    ax.set_xlim(0, columns)
    ax.set_ylim(rows, 0)
    ax.set_aspect("equal")
    ax.set_xticks(np.arange(columns) + 0.5, [str(c) for c in range(columns)], fontsize=7)
    ax.set_yticks(np.arange(rows) + 0.5, [str(r * columns) for r in range(rows)], fontsize=7)
    ax.set_xlabel("storage element, column within the row")
    ax.set_ylabel("first storage element of the row")
    ax.grid(False)
    ax.legend(
        handles=[
            Patch(facecolor=IN_VIEW_COLOR, alpha=0.55, label="in the view (label: view index)"),
            Patch(facecolor=OUTSIDE_COLOR, label="not in the view"),
        ],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.18),
        ncol=2,
        fontsize=7,
        frameon=False,
    )
    shape_text = "×".join(map(str, shape)) or "scalar"
    ax.set_title(
        title
        or f"view {shape_text}, strides {tuple(strides)}, offset {offset} "
        f"in {storage_size} elements",
        fontsize=9,
    )
    return figure
