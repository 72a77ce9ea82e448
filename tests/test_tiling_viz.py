"""The tiling notebook's figures, tables, source excerpts and explorer."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import base64

import matplotlib.pyplot as plt
import pytest
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from mishgrad.book import tiling_viz
from mishgrad.kernel import tiling
from mishgrad.kernel.platforms import PLATFORMS

PLANS = {
    "one element": tiling.plan_for(1, 4, False),
    "a partial unit on the last core": tiling.plan_for(48 * 64 + 5, 4, False),
    "a million float32": tiling.plan_for(10**6, 4, False),
    "bfloat16 with tanhx on 950": tiling.plan_for(300_001, 2, True, on="950"),
}


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _bars(ax) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle)]


# -- the UB budget -------------------------------------------------------------------------


@pytest.mark.parametrize("size", [2, 4])
@pytest.mark.parametrize("has_tanhx", [False, True])
def test_every_buffer_has_a_kind_and_colour(size, has_tanhx):
    for buffer in tiling.budget(size, has_tanhx):
        assert tiling.buffer_kind(buffer.name) in tiling_viz.BUFFER_KIND_COLORS
    groups = [tiling.buffer_kind(b.name) for b in tiling.budget(size, has_tanhx)]
    assert groups.count("queue") == (4 if has_tanhx else 3)
    assert groups.count("mask") == (2 if size == 4 and not has_tanhx else 0)


@pytest.mark.parametrize("on", ["910B2", "950"])
def test_budget_bars_stack_the_model_buffers(on):
    figure = tiling_viz.budget_bars(on)
    assert isinstance(figure, Figure)
    (ax,) = [a for a in figure.axes if a.get_visible()]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [case[0] for case in tiling_viz.BUDGET_CASES][::-1]
    bars = [p for p in _bars(ax) if p.get_height() == pytest.approx(0.6)]
    expected = [b for _, s, t in tiling_viz.BUDGET_CASES for b in tiling.budget(s, t)]
    assert len(bars) == len(expected)
    chip = PLATFORMS[on]
    texts = " ".join(t.get_text() for t in ax.texts)
    for _, size, has_tanhx in tiling_viz.BUDGET_CASES:
        tile = tiling.max_tile_length(size, has_tanhx, chip.ub_reported, chip.select_uses_scratch)
        assert f"tile {tile} elements" in texts
    # Every row ends at or below its limit.
    ends = {}
    for bar in bars:
        row = round(bar.get_y() + bar.get_height() / 2)
        ends[row] = max(ends.get(row, 0.0), bar.get_x() + bar.get_width())
    for row, (_, size, has_tanhx) in enumerate(tiling_viz.BUDGET_CASES):
        limit = tiling.ub_limit(chip.ub_reported, size, has_tanhx, chip.select_uses_scratch) / 1024
        assert ends[len(tiling_viz.BUDGET_CASES) - 1 - row] <= limit + 1e-9
    assert ax.get_xlabel() == "UB offset (KiB)"
    assert chip.name in ax.get_title()


# -- the core split --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PLANS))
def test_core_kinds_cover_every_core_and_element(name):
    plan = PLANS[name]
    kinds = tiling.core_kinds(plan)
    assert sum(k.cores for k in kinds) == plan.blockDim
    assert sum(k.cores * k.length for k in kinds) == plan.totalLength
    assert kinds[-1].kind == "last"
    for kind in kinds:
        assert (kind.tiles - 1) * plan.tileLength + kind.tail == kind.length


def test_core_kinds_leave_out_kinds_without_cores():
    assert [k.kind for k in tiling.core_kinds(PLANS["one element"])] == ["last"]
    assert [k.kind for k in tiling.core_kinds(PLANS["a partial unit on the last core"])] == [
        "big",
        "small",
        "last",
    ]


def test_plan_table_rows():
    text = tiling_viz.plan_table(PLANS["a partial unit on the last core"]).data
    lines = text.splitlines()
    assert lines[0].startswith("| core kind | cores | blockIdx |")
    assert lines[2] == "| big | 1 | 0 | 128 | 1 | 128 | [0, 128) |"
    assert lines[3] == "| small | 46 | 1-46 | 64 | 1 | 64 | [128, 3072) |"
    assert lines[4] == "| last | 1 | 47 | 5 | 1 | 5 | [3072, 3077) |"


@pytest.mark.parametrize("name", list(PLANS))
def test_core_split_draws_one_bar_per_core_and_hatches_tails(name):
    plan = PLANS[name]
    figure = tiling_viz.core_split(plan, title=name)
    (ax,) = figure.axes
    bars = _bars(ax)
    filled = [b for b in bars if b.get_fill()]
    hatched = [b for b in bars if b.get_hatch()]
    assert len(filled) == plan.blockDim
    assert [b.get_width() for b in filled] == [length for _, length in plan.core_slices()]
    partial = sum(k.cores for k in tiling.core_kinds(plan) if k.tail < plan.tileLength)
    assert len(hatched) == partial
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    separators = sum(k.cores * (k.tiles - 1) for k in tiling.core_kinds(plan))
    assert sum(len(c.get_segments()) for c in lines) == separators
    assert ax.get_ylim() == (plan.blockDim - 0.5, -0.5)
    assert ax.get_title() == name
    assert ax.get_legend() is not None


def test_core_split_skips_boundaries_of_very_many_tiles():
    plan = tiling.plan_for(10**10, 4, False)
    assert plan.bigTileNum > tiling_viz.MAX_DRAWN_TILES
    (ax,) = tiling_viz.core_split(plan).axes
    assert not [c for c in ax.collections if isinstance(c, LineCollection)]


# -- the explorer ----------------------------------------------------------------------------


def test_explorer_outputs_summary_table_and_png():
    summary, plan_table, png = tiling_viz.explorer_outputs(3077, "float32", False, "910B2")
    assert "48 of 48 cores" in summary["data"]["text/markdown"]
    assert plan_table["data"]["text/markdown"].startswith("| core kind |")
    assert base64.b64decode(png["data"]["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"
    assert plt.get_fignums() == []  # nothing registered with pyplot


def test_explorer_outputs_reports_an_impossible_plan():
    (message,) = tiling_viz.explorer_outputs(0, "float16", True, "950")
    assert message["data"]["text/markdown"].startswith("no plan: n = 0")


def test_split_explorer_redraws_on_change_and_has_a_fixed_text_form():
    panel = tiling_viz.split_explorer()
    assert repr(panel).startswith("Tiling explorer")
    length, dtype = panel.children[0].children
    tanhx, chip = panel.children[1].children
    out = panel.children[2]
    before = out.outputs[0]["data"]["text/markdown"]
    assert "n = 3077 float32" in before
    dtype.value = "bfloat16"
    tanhx.value = True
    chip.value = "950"
    length.value = 10**6
    after = out.outputs[0]["data"]["text/markdown"]
    assert "Ascend 950" in after and "n = 1000000 bfloat16, with tanhx" in after
    assert len(out.outputs) == 3
