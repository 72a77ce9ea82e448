"""Entries of the translation files, written, and a translation made ready for its notebook.

The file format is :mod:`mishgrad.book.translation_files`'s (which reads it). A cell's
translation keeps the English cell's links as they are, a link out of ``notebooks/``
(``../docs/glossary.md``) included; the translated notebook, one folder deeper, gets it with one
more ``../`` (:func:`rebased`), and lines broken between two Chinese characters joined
(:func:`join_cjk_lines`).
"""

from __future__ import annotations

import hashlib
import re
from typing import Final


def english_hash(source: str) -> str:
    """The first 12 hex digits of the SHA-256 of an English cell's source."""
    return hashlib.sha256(source.encode()).hexdigest()[:12]


def escape_template(template: str) -> str:
    r"""A template as written on a marker line: one line, newlines as ``\n``.

    :func:`mishgrad.book.translation_files.unescape_template` reads it back.
    """
    return template.replace("\\", "\\\\").replace("\n", "\\n")


def cell_entry(cell_id: str, source: str, text: str) -> str:
    """One cell entry in the file format (marker line, translation, blank line)."""
    return f"<!-- cell {cell_id} en={english_hash(source)} -->\n{text.strip()}\n\n"


def text_entry(template: str, text: str) -> str:
    """One text entry in the file format."""
    return f"<!-- text: {escape_template(template)} -->\n{text.strip()}\n\n"


# A line break between two Chinese characters renders as a stray space: join such lines.
_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
_CJK_BREAK: Final = re.compile(f"(?<=[{_CJK}])\n(?=[{_CJK}])")
_FENCE: Final = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def join_cjk_lines(text: str) -> str:
    """Join lines broken between two CJK characters, outside fenced code blocks."""
    pieces, end = [], 0
    for fence in _FENCE.finditer(text):
        pieces += [_CJK_BREAK.sub("", text[end : fence.start()]), fence.group(0)]
        end = fence.end()
    return "".join([*pieces, _CJK_BREAK.sub("", text[end:])])


#: A relative link out of the notebooks' folder, such as ``](../docs/glossary.md)``.
_LEAVING_LINK: Final = re.compile(r"\]\((\.\./[^)\s]*)\)")


def rebased(text: str) -> str:
    """``text`` with each link out of ``notebooks/`` made relative to ``notebooks/<language>/``.

    A translation writes its links as the English notebook does, so that the translation
    checker can hold them to the English ones; the translated notebook sits one folder deeper.
    """
    return _LEAVING_LINK.sub(r"](../\1)", text)
