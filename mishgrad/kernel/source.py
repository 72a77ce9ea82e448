"""The kernel's sources: where they are (:data:`OPERATOR_DIR`, :data:`TWIN_DIR`), and excerpts.

Notebooks never paste code: they show functions and line ranges of the real files, so an
edit to the kernel shows up the next time the cell runs (coloured by
:func:`mishgrad.book.listing.source_block`). A :class:`Listing` is such text with a title.
"""

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from mishgrad.paths import REPOSITORY

from .messages import translate

#: The repository's ``kernel/`` folder: the operator's folder and the CPU twin.
KERNEL_DIR: Final = REPOSITORY / "kernel"
#: The operator's folder (what is copied into ops-nn): op_host/, op_kernel/, common/ and the
#: rest, plus its own twin glue in ``twin/``, which ops-nn never sees.
OPERATOR_DIR: Final = KERNEL_DIR / "mish_grad"
#: The CPU twin: stand-ins for CANN's headers, the AscendC API subset, the ACL runtime.
TWIN_DIR: Final = KERNEL_DIR / "twin"

_NOT_TYPES: Final = frozenset({"return", "else", "new", "delete", "case", "throw"})


def shown(path: Path) -> str:
    """A path as printed: relative to the repository when inside it (the same on every machine)."""
    return str(path.relative_to(REPOSITORY) if path.is_relative_to(REPOSITORY) else path)


def _strip_comment(line: str) -> str:
    return line.split("//", 1)[0]


def _definition_line(lines: Sequence[str], name: str) -> int:
    pattern = re.compile(rf"^\s*((?:[\w:<>*&,\"]+\s+)+)\**&?{re.escape(name)}\s*\(")
    for index, line in enumerate(lines):
        match = pattern.match(_strip_comment(line))
        if match and not set(match.group(1).split()) & _NOT_TYPES:
            return index
    raise ValueError(f"no definition of {name!r} found")


def read_method(path: str | Path, name: str, *, with_comment: bool = True) -> str:
    """The source of the function or method ``name`` in a C++ file, dedented.

    Finds the first line that declares ``name`` after a return type (so calls such as
    ``CopyIn(tile, length);`` are skipped) and returns through its matching closing
    brace. With ``with_comment``, the ``//`` comment lines right above are included.

    Raises
    ------
    ValueError
        If no definition is found or its braces do not balance.
    """
    lines = Path(path).read_text().splitlines()
    first = _definition_line(lines, name)
    begin = first
    while with_comment and begin > 0 and lines[begin - 1].strip().startswith("//"):
        begin -= 1
    depth, opened = 0, False
    for index in range(first, len(lines)):
        code = _strip_comment(lines[index])
        if not opened and ";" in code.split("{", 1)[0]:
            raise ValueError(f"{name!r} is declared but not defined there")
        depth += code.count("{") - code.count("}")
        opened = opened or "{" in code
        if opened and depth == 0:
            return textwrap.dedent("\n".join(lines[begin : index + 1]))
    raise ValueError(f"the braces of {name!r} do not balance")


def read_lines(path: str | Path, first: str | None = None, last: str | None = None) -> str:
    """Lines of a file from the first containing ``first`` through the next containing ``last``.

    ``None`` means the start (or the end) of the file.

    Raises
    ------
    ValueError
        If a marker is not found.
    """
    lines = Path(path).read_text().splitlines()
    begin = 0
    if first is not None:
        begin = next((i for i, line in enumerate(lines) if first in line), -1)
        if begin < 0:
            raise ValueError(f"{first!r} not found")
    end = len(lines) - 1
    if last is not None:
        end = next((i for i in range(begin, len(lines)) if last in lines[i]), -1)
        if end < 0:
            raise ValueError(f"{last!r} not found after {first!r}")
    return "\n".join(lines[begin : end + 1])


#: Languages whose comments start with ``#``; the title of any other listing is a ``//`` line.
HASH_COMMENTS: Final = frozenset({"python", "bash", "sh", "cmake", "make", "yaml", "toml"})


class _Printer(Protocol):
    """What IPython's pretty printer offers ``_repr_pretty_`` (the kernel never imports IPython)."""

    def text(self, obj: str) -> None: ...


@dataclass(frozen=True)
class Listing:
    """Source text, optionally headed by a title comment, shown as text or a Markdown block.

    Jupyter front ends render the fenced Markdown block (``text/markdown``), plain-text
    consumers the bare text. Both show the title in the notebook's language
    (:mod:`~mishgrad.kernel.messages`). The book's listings add coloured HTML
    (:class:`mishgrad.book.listing.SourceListing`).
    """

    text: str
    language: str = "cpp"
    title: str | None = None

    def source(self) -> str:
        """The text, below the title as a comment line."""
        if not self.title:
            return self.text
        comment = "#" if self.language in HASH_COMMENTS else "//"
        return f"{comment} {translate(self.title)}\n{self.text}"

    def markdown(self) -> str:
        """A fenced Markdown code block."""
        return f"```{self.language}\n{self.source()}\n```"

    _repr_markdown_ = markdown

    def _repr_pretty_(self, printer: _Printer, cycle: bool) -> None:
        printer.text(self.source())
