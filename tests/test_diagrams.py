"""The book's diagrams (book.diagrams, book.number_diagrams): labelled, in both languages."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from matplotlib.text import Text

from mishgrad.book import diagrams, language, number_diagrams
from mishgrad.kernel import tiling

#: Notebook 04's launch (``small_launch``): 2150 float32 elements on 4 cores, no tanhx, with a UB
#: that holds one 256-element tile, so that every tile of every core is labelled.
SMALL = tiling.plan(2150, 4, False, 16384, 4, select_scratch=False)


def texts(figure) -> str:
    """Every text of a figure (titles, labels, annotations, tick labels), one per line."""
    figure.canvas.draw()
    found = [t.get_text() for t in figure.findobj(Text)]
    for ax in figure.axes:
        legend = ax.get_legend()
        if legend is not None:
            found += [t.get_text() for t in legend.get_texts()]
    return "\n".join(found)


@pytest.fixture(autouse=True)
def _close_and_restore():
    yield
    plt.close("all")
    language.use("en")


def test_data_path_names_every_stage():
    shown = texts(diagrams.vector_core_data_path())
    for part in [
        "Global Memory (GM)",
        "MTE2\nDataCopy\n(CopyIn)",
        "gradQueue_ (VECIN)",
        "xQueue_ (VECIN)",
        "vector unit\n(Compute)",
        "xGradQueue_ (VECOUT)",
        "MTE3\nDataCopy\n(CopyOut)",
        "DeQue",
        "EnQue",
    ]:
        assert part in shown, part
    # Two buffers in each of the three queues: double buffering.
    assert shown.count("buffer 0\n") == 3
    assert shown.count("buffer 1\n") == 3


def test_sequence_has_lifelines_and_both_phases():
    figure = diagrams.aclnn_sequence()
    shown = texts(figure)
    for label in diagrams.LIFELINE_LABELS:
        assert label in shown
    order = [
        "aclnnMishBackwardGetWorkspaceSize(gradOutput, self, out)",
        "workspace size, executor",
        "aclrtMalloc(workspace size)",
        "aclnnMishBackward(workspace, size, executor, stream)",
        "queue the kernel on the stream",
        "aclrtSynchronizeStream(stream)",
    ]
    positions = [shown.index(step) for step in order]
    assert positions == sorted(positions)  # drawn top to bottom in call order
    lifelines = [line for line in figure.axes[0].get_lines() if line.get_linestyle() != "-"]
    assert len(lifelines) == len(diagrams.LIFELINE_LABELS)


@pytest.mark.parametrize(
    "plan",
    [
        SMALL,
        tiling.plan(1000, 4, False, 16384, 3, select_scratch=False),
        tiling.plan(64 * 7, 4, False, 16384, 4, select_scratch=False),
    ],
    ids=["notebook 04's", "n=1000 on 3 cores", "whole tiles"],
)
def test_tiling_numbers_are_the_plans(plan):
    shown = texts(number_diagrams.tiling_split(plan))
    unit = tiling.REPEAT_BYTES // 4
    units = -(-plan.totalLength // unit)
    assert f"n = {plan.totalLength} elements = {units} units of 256 B ({unit} elements)" in shown
    labels = [t for t in shown.splitlines() if t.startswith("core ")]
    assert labels == [
        f"core {core}: {length}" for core, (_, length) in enumerate(plan.core_slices())
    ]
    # The tiles' labels, left to right, are every core's tiles; they add up to n.
    figure = plt.gcf()
    ax = figure.axes[0]
    tile_labels = [t for t in ax.texts if t.get_position()[1] < 0]
    lengths = [int(t.get_text()) for t in sorted(tile_labels, key=lambda t: t.get_position()[0])]
    expected = [n for core in range(plan.blockDim) for n in number_diagrams.core_tiles(plan, core)]
    assert lengths == expected
    assert sum(lengths) == plan.totalLength
    assert f"{plan.blockDim} cores: {plan.bigCoreNum} big ({plan.bigCoreLength} elements)" in shown


def test_core_tiles_follow_the_plan():
    plan = SMALL
    assert (plan.blockDim, plan.bigCoreNum, plan.tileLength) == (4, 2, 256)
    assert number_diagrams.core_tiles(plan, 0) == [256, 256, plan.bigTailLength]
    assert number_diagrams.core_tiles(plan, 2) == [256] * (plan.smallTileNum - 1) + [
        plan.smallTailLength
    ]
    assert number_diagrams.core_tiles(plan, 3)[-1] == plan.lastTailLength


@pytest.mark.parametrize(
    "draw",
    [
        diagrams.vector_core_data_path,
        diagrams.aclnn_sequence,
        lambda: number_diagrams.tiling_split(SMALL),
    ],
)
def test_diagram_labels_are_chinese_in_the_chinese_edition(draw):
    english = texts(draw())
    language.use("zh-CN")  # the font too, as the Chinese notebooks do
    chinese = texts(draw())
    assert chinese != english
    for word in ["core", "tile i+1 while", "host application", "root window", "vector unit"]:
        if word in english:
            assert word not in chinese, word
