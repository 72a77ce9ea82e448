"""Small helpers that turn computed values into Markdown for notebook prose and tables.

Notebooks state numbers only through these, so every figure in the prose is computed.
Output is deterministic text (no addresses, no timings) and therefore safe for nbval. Text is
shown in the notebook's language (:mod:`mishgrad.book.i18n`): the Chinese notebooks run the same
``table(...)`` calls and read Chinese.
"""

from collections.abc import Iterable, Sequence

import numpy as np
from IPython.display import Markdown

from .i18n import translate


def fmt(value: object, digits: int = 6) -> str:
    """Format a number compactly: integers as such, reals with ``digits`` significant digits.

    Booleans and strings print as themselves; anything with ``__float__`` (NumPy scalars,
    mpmath numbers) is formatted as a number.
    """
    if isinstance(value, (bool, np.bool_, str)):
        return str(value)
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(value)
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    text = f"{number:.{digits}g}"
    # A rounded figure must not look exact: 99.9984 % is not "100".
    while not any(c in text for c in ".en") and digits < 17:
        digits += 1
        text = f"{number:.{digits}g}"
    return text


def table(rows: Iterable[Sequence[object]], headers: Sequence[str], digits: int = 6) -> Markdown:
    """A Markdown table; numbers go through :func:`fmt`, headers and words through the language."""
    lines = ["| " + " | ".join(map(translate, headers)) + " |", "|" + "---|" * len(headers)]
    lines += [
        "| " + " | ".join(translate(fmt(cell, digits)) for cell in row) + " |" for row in rows
    ]
    return Markdown("\n".join(lines))
