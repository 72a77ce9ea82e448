"""Notebook display: deterministic settings, and figures in the notebook's language.

Figures are PNG only: nbval does not compare images, so a plot can never make a notebook
flaky, while its caption and the numbers printed beside it are compared. The Chinese notebooks
draw the same figures with the English code; just before a figure is displayed, its text goes
through the translations (:func:`localize_figure`).
"""

import functools
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import matplotlib as mpl
import numpy as np
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import Formatter

from . import i18n


def setup_notebook() -> None:
    """Deterministic display settings for a notebook's first cell: NumPy, PNG figures, warnings."""
    np.set_printoptions(precision=6, suppress=False, linewidth=100, floatmode="maxprec")
    mpl.rcParams.update(
        {
            "figure.figsize": (8.0, 3.6),
            "figure.dpi": 100,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "svg.hashsalt": "mishgrad",
        }
    )
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # outside IPython there is nothing to configure
        return
    set_matplotlib_formats("png")
    # Overflow is this project's subject; the results show it, the warnings add noise.
    warnings.filterwarnings(
        "ignore", message=r"(overflow|underflow|invalid value|divide by zero) encountered"
    )
    use_language(i18n.current())  # set_matplotlib_formats replaced a localizing formatter


#: Fonts with Simplified Chinese glyphs, in order of preference: Debian's fonts-noto-cjk
#: (installed by ``make fonts``), then the system fonts of macOS and Windows.
CJK_FONTS: Final = ("Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei")
_DEFAULT_FAMILY: Final = tuple(mpl.rcParamsDefault["font.family"])


def _first_cjk_font() -> str | None:
    available = {entry.name for entry in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in available), None)


def cjk_font() -> str | None:
    """The first of :data:`CJK_FONTS` that matplotlib can find, or ``None``.

    matplotlib lists the system's fonts once and caches the list; a font installed later
    (``make fonts``) is found by looking at the system's font files again.
    """
    if _first_cjk_font() is None:
        for path in font_manager.findSystemFonts():
            if re.search(r"cjk|sourcehan|pingfang|msyh", Path(path).name, re.IGNORECASE):
                font_manager.fontManager.addfont(path)
    return _first_cjk_font()


def localize_figure(figure: Figure) -> Figure:
    """Translate every text of a figure in place (titles, labels, legends, annotations)."""
    for text in figure.findobj(Text):
        old = text.get_text()
        new = i18n.translate(old)
        if new != old:
            text.set_text(new)
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            # Tick labels are made at draw time, by the formatter: translate what it makes.
            if not isinstance(axis.get_major_formatter(), _TranslatedFormatter):
                axis.set_major_formatter(_TranslatedFormatter(axis.get_major_formatter()))
    return figure


class _TranslatedFormatter(Formatter):
    """A tick formatter whose labels go through the translations (numbers pass unchanged)."""

    def __init__(self, inner: Formatter) -> None:
        self.inner = inner

    def __call__(self, x: float, pos: int | None = None) -> str:
        return i18n.translate(self.inner(x, pos))

    def format_ticks(self, values: Sequence[float]) -> list[str]:
        return [i18n.translate(label) for label in self.inner.format_ticks(values)]

    def get_offset(self) -> str:
        return self.inner.get_offset()


def use_language(language: str) -> None:
    """Fonts and figure text for ``language`` (called by :func:`mishgrad.book.language.use`).

    For Chinese the CJK font comes first: matplotlib renders the words around a formula
    (``"$x$ 的值"``) with the first font only. Without a CJK font a warning says what to
    install, and figures show empty boxes for Chinese characters.
    """
    if language == i18n.ENGLISH:
        mpl.rcParams["font.family"] = list(_DEFAULT_FAMILY)
    else:
        font = cjk_font()
        if font is None:
            warnings.warn(
                "no Chinese font found for figures: install Debian's fonts-noto-cjk "
                f"(`make fonts`) or one of {', '.join(CJK_FONTS)}",
                stacklevel=2,
            )
        mpl.rcParams["font.family"] = [font, "DejaVu Sans"] if font else list(_DEFAULT_FAMILY)
    _localize_displayed_figures(language != i18n.ENGLISH)


def _localize_displayed_figures(enabled: bool) -> None:
    """Wrap (or unwrap) IPython's PNG formatter of figures in :func:`localize_figure`."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    formatter = shell.display_formatter.formatters["image/png"]
    try:
        show = formatter.lookup_by_type(Figure)
    except KeyError:  # PNG output of figures is not configured: nothing to wrap
        return
    plain = getattr(show, "__wrapped__", show)

    @functools.wraps(plain)
    def localized(figure: Figure, *args: object, **kwargs: object) -> object:
        return plain(localize_figure(figure), *args, **kwargs)

    formatter.for_type(Figure, localized if enabled else plain)
