"""The plotting helpers build the expected figures (without showing them)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from mishgrad.book import viz
from mishgrad.math import dtypes, errors, numerics, oracle


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _visible_axes(figure: Figure) -> list:
    return [ax for ax in figure.axes if ax.get_visible()]


def test_merge_intervals():
    intervals = [(5.0, 6.0), (0.0, 1.0), (1.05, 2.0), (10.0, 10.0)]
    assert viz.merge_intervals(intervals, gap=0.1) == [(0.0, 2.0), (5.0, 6.0), (10.0, 10.0)]
    assert viz.merge_intervals(intervals, gap=0.0) == sorted(intervals)
    assert viz.merge_intervals([], gap=1.0) == []


def test_failure_colors_cover_the_failure_kinds():
    assert list(viz.FAILURE_COLORS) == list(errors.FAILURE_KINDS)


def test_region_chart_rows_lanes_and_legend():
    regions = {
        "A": {"NaN": [(40.0, 1e4)], "inaccurate": [(-20.0, -10.0), (-5.0, -5.0)]},
        "B": {"NaN": [], "±Inf": [], "wrong sign": [], "inaccurate": []},
        "C": {"±Inf": [(-1e38, -1e37)]},
    }
    figure = viz.region_chart(regions, title="demo", xlim=(-100.0, 100.0))
    assert isinstance(figure, Figure)
    (ax,) = figure.axes
    assert ax.get_title() == "demo"
    assert ax.get_xlabel() == "x"
    assert ax.get_xlim() == (-100.0, 100.0)
    assert [label.get_text() for label in ax.get_yticklabels()] == ["C", "B", "A"]
    collections = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert sorted(c.get_label() for c in collections) == ["NaN", "inaccurate"]
    nan_segments = next(c for c in collections if c.get_label() == "NaN").get_segments()
    assert len(nan_segments) == 1
    assert nan_segments[0][:, 0].tolist() == [40.0, 100.0]  # clipped at the right edge
    texts = [t.get_text() for t in ax.texts]
    assert "no failure" in texts  # row B
    assert "[-1e+38, -1e+37]" in texts  # row C lies entirely left of the axis
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(errors.FAILURE_KINDS)
    # the lone failing sample at -5 is a visible mark, not a zero-length line
    inaccurate = next(c for c in collections if c.get_label() == "inaccurate").get_segments()
    lone = [seg[:, 0] for seg in inaccurate if seg[0, 0] < -5.0 < seg[1, 0]]
    assert len(lone) == 1 and lone[0][1] - lone[0][0] > 0


def test_region_charts_one_panel_each():
    panel = {"f": {"NaN": [(1.0, 2.0)]}}
    figure = viz.region_charts({"float16": panel, "bfloat16": panel}, title="all")
    assert [ax.get_title() for ax in figure.axes] == ["float16", "bfloat16"]
    assert figure.get_suptitle() == "all"
    assert figure.axes[0].get_legend() is not None
    assert figure.axes[1].get_legend() is None
    assert figure.axes[1].get_xlabel() == "x"


def test_error_map_on_float16():
    x = dtypes.all_values("float16")
    truth = oracle.dmish_oracle(x)
    results = {"naive": numerics.dmish_b2_naive(x), "ours": numerics.dmish_ours(x)}
    figure = viz.error_map(x, results, truth, title="float16", ncols=3, xlim=(-128.0, 128.0))
    visible = _visible_axes(figure)
    assert [ax.get_title() for ax in visible] == ["naive", "ours"]
    assert len(figure.axes) == 3  # the third panel of the row is hidden
    assert figure.get_suptitle() == "float16"
    inside = (x.astype(float) >= -128) & (x.astype(float) <= 128)
    for ax, result in zip(visible, results.values(), strict=True):
        assert ax.get_yscale() == "symlog"
        assert ax.get_xlim() == (-128.0, 128.0)
        points, crosses = ax.get_lines()[:2]
        assert len(points.get_xdata()) == int(inside.sum())
        nonfinite = ~np.isfinite(result.astype(float)) & inside
        assert len(crosses.get_xdata()) == int(nonfinite.sum())
    assert visible[0].get_ylabel() == "error (ULP)"
    # The naive formula's NaN region is inside the plotted range, ours has none.
    assert len(visible[0].get_lines()[1].get_xdata()) > 0
    assert len(visible[1].get_lines()[1].get_xdata()) == 0


def test_binned_max():
    x = np.array([0.1, 0.2, 1.5, 2.5, 9.0])
    values = np.array([1.0, 3.0, 2.0, np.nan, 7.0])
    out = viz.binned_max(x, values, np.array([0.0, 1.0, 2.0, 3.0]))
    assert out[:2].tolist() == [3.0, 2.0]
    assert np.isnan(out[2])  # only a NaN value there; 9.0 lies outside the bins


def test_ulp_envelope_lines():
    x = np.linspace(0.5, 20, 4000, dtype=np.float32)
    truth = oracle.dmish_oracle(x)
    results = {"v1": numerics.dmish_sign_split(x), "ours": numerics.dmish_ours(x)}
    edges = np.linspace(0.0, 20.0, 41)
    figure = viz.ulp_envelope(x, results, truth, edges, title="t", xlabel="x")
    (ax,) = figure.axes
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["v1", "ours"]
    assert ax.get_ylabel() == "max error in bin (ULP)"
    steps = ax.patches
    assert len(steps) == 2
    assert ax.get_title() == "t"


def test_functions_do_not_show(monkeypatch):
    shown = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: shown.append(1))
    viz.region_chart({"a": {}})
    viz.ulp_envelope(np.zeros(1, np.float32), {}, np.zeros(1, np.float32), np.arange(3.0))
    assert shown == []


def test_ulp_envelope_symlog_scale():
    x = np.linspace(0.5, 5, 100, dtype=np.float32)
    truth = oracle.dmish_oracle(x)
    figure = viz.ulp_envelope(
        x, {"ours": numerics.dmish_ours(x)}, truth, np.linspace(0, 5, 11), yscale="symlog"
    )
    assert figure.axes[0].get_yscale() == "symlog"
