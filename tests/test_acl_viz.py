"""The aclnn notebook's view figures: storage positions of a view, and their drawing."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.patches import Rectangle

from mishgrad.book import acl_viz


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.mark.parametrize(
    "make_view",
    [
        lambda a: a,
        lambda a: a.T,
        lambda a: a[::2, 1::3],
        lambda a: a[1:, ::-1][:, ::-1],  # back to positive strides, at an offset
        lambda a: a[:, :0],
    ],
)
def test_positions_match_numpy_views(make_view):
    storage = np.arange(48, dtype=np.float32)
    base = storage.reshape(6, 8)
    view = make_view(base)
    strides = tuple(s // storage.itemsize for s in view.strides)
    offset = (view.__array_interface__["data"][0] - storage.ctypes.data) // storage.itemsize
    positions = acl_viz.view_positions(view.shape, strides, offset)
    assert positions.shape == view.shape and positions.dtype == np.int64
    assert np.array_equal(storage[positions], view)


def test_positions_of_a_broadcast_view_repeat():
    positions = acl_viz.view_positions((3, 4), (0, 1), 2)
    assert np.array_equal(positions, np.tile(np.arange(2, 6), (3, 1)))


def test_positions_reject_bad_views():
    with pytest.raises(ValueError, match="differ in length"):
        acl_viz.view_positions((2, 3), (1,))
    with pytest.raises(ValueError, match="must not be negative"):
        acl_viz.view_positions((2,), (-1,), 1)


def _cells(ax):
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def test_view_map_shades_exactly_the_view():
    figure = acl_viz.view_map((3, 3), (6, 2), 1, 36)
    ax = figure.axes[0]
    cells = _cells(ax)
    assert len(cells) == 36
    shaded = [
        i
        for i, c in enumerate(cells)
        if matplotlib.colors.same_color(c.get_facecolor()[:3], acl_viz.IN_VIEW_COLOR)
    ]
    expected = sorted(acl_viz.view_positions((3, 3), (6, 2), 1).ravel().tolist())
    assert shaded == expected
    texts = [t.get_text() for t in ax.texts]
    assert "0,0" in texts and "2,2" in texts
    assert ax.get_xlabel() and ax.get_ylabel() and "strides (6, 2)" in ax.get_title()
    assert ax.get_legend() is not None


def test_view_map_draws_into_given_axes_and_labels_repeats():
    figure, axes = plt.subplots(1, 2)
    assert acl_viz.view_map((2, 2), (0, 1), 0, 4, ax=axes[1], title="broadcast") is figure
    assert axes[1].get_title() == "broadcast"
    assert "0,0\n1,0" in [t.get_text() for t in axes[1].texts]


def test_view_map_rejects_a_view_past_its_storage():
    with pytest.raises(ValueError, match="reaches element 9 but the storage holds 9"):
        acl_viz.view_map((2, 2), (4, 1), 4, 9)


def test_positions_of_notebook_09s_gradinput_view():
    i, j = np.indices((6, 4))
    assert np.array_equal(acl_viz.view_positions((6, 4), (8, 2), 1), 1 + 8 * i + 2 * j)
