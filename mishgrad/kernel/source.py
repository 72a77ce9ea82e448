"""The kernel's sources: where they are (:data:`KERNEL_DIR`), and excerpts for the notebooks.

Notebooks never paste code: they show functions and line ranges of the real files, so an
edit to the kernel shows up the next time the cell runs.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from IPython.display import Markdown

#: The repository the package is installed from (editable, so it is found above the package).
REPOSITORY: Final = Path(__file__).resolve().parents[2]
#: The repository's ``kernel/`` folder: the operator's sources.
KERNEL_DIR: Final = REPOSITORY / "kernel"

_NOT_TYPES: Final = frozenset({"return", "else", "new", "delete", "case", "throw"})


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


def source_block(text: str, language: str = "cpp", title: str | None = None) -> Markdown:
    """Show source text as a fenced Markdown code block, optionally headed by a comment line."""
    heading = f"// {title}\n" if title else ""
    return Markdown(f"```{language}\n{heading}{text}\n```")
