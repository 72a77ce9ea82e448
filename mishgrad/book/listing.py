"""Source listings coloured like the code cells: the kernel's text as HTML, by Pygments.

:func:`source_block` wraps text read by :mod:`mishgrad.kernel.source` (or a scratch copy's
diff) in a :class:`SourceListing`. Jupyter front ends pick the richest representation they
render: JupyterLab and the site (myst-nb) the HTML, plain-text consumers the fenced Markdown
block or the bare text. All are the same on every run, as nbval's comparison of stored
outputs needs.
"""

from dataclasses import dataclass
from typing import Final

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.styles import get_style_by_name

from mishgrad.kernel.source import Listing

_STYLE: Final = get_style_by_name("default")
# Inline styles (noclasses), so the HTML needs no style sheet in JupyterLab or on the site.
# Background and text colour go on the <pre>: both hosts colour <pre> from their theme, and a
# dark theme's light text on Pygments' light background would be unreadable.
_FORMATTER: Final = HtmlFormatter(
    style=_STYLE,
    noclasses=True,
    nobackground=True,
    prestyles=f"background: {_STYLE.background_color}; color: #000000; padding: 0.5em 0.75em",
)


@dataclass(frozen=True, repr=False)  # repr=False: IPython shows Listing's text, not a repr
class SourceListing(Listing):
    """A :class:`~mishgrad.kernel.source.Listing` that also renders as coloured HTML."""

    def __post_init__(self) -> None:
        get_lexer_by_name(self.language)  # ValueError where the listing is made, not when shown

    def html(self) -> str:
        """A ``<div>`` of coloured ``<span>`` elements, its styles inline."""
        return highlight(self.source(), get_lexer_by_name(self.language), _FORMATTER)

    _repr_html_ = html


def source_block(
    text: str | Listing, language: str = "cpp", title: str | None = None
) -> SourceListing:
    """Show source text coloured, optionally headed by a comment line.

    ``text`` may be a :class:`~mishgrad.kernel.source.Listing` (a scratch copy's diff): it is
    shown with its own language and title.

    Raises
    ------
    ValueError
        If Pygments knows no lexer named ``language``.
    """
    if isinstance(text, Listing):
        return SourceListing(text.text, text.language, text.title)
    return SourceListing(text, language, title)
