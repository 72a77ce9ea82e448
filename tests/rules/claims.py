"""Every number a lesson's prose states is a value a cell above it printed.

A learner should read a number in a cell's output before the prose draws a conclusion from it,
so the prose can never quote a figure no cell computed. Each number of a lesson's markdown
(the cells before the Reference section, worked solutions aside) must appear verbatim in the
stored output of a code cell above it, in the same ``##`` section, or be a number the code
above wrote (a literal, such as the digits mpmath is given: the learner reads where it comes
from). The opening's **Run time** paragraph is the run-time rule's (tests/rules/run_time.py).
Not claims, and so left out: code spans, display math, exponents and subscripts, links'
targets, HTML tags, the number of a section heading or of a notebook, small integers up to
:data:`SMALL`, a number inside a word (``float32``, ``A2``, ``910B2``), and a figure in a
sentence that links its source. What remains and is still not printed above is on the
notebook's allowlist (:data:`ALLOWED`), or it is a problem.

Numbers are compared as written, without their sign and thousands separators: ``−1.19`` in
the prose is backed by ``-1.19`` in an output, ``65,279`` by ``65279``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from census_tool import cell_census

from rules.shared import both_editions, in_each, notebook, source, where

#: Integers up to this are counts a sentence uses in passing ("two formulas", "3 Cast").
SMALL = 10
#: Numbers a lesson may state without a cell printing them, per notebook (its file's stem):
#: facts the notebook cites elsewhere or derives in prose. Keep these short.
ALLOWED: dict[str, frozenset[str]] = {
    # CompareScalar's 256-byte rule (cited in its Reference); exercise 1's interval (its checker)
    "05_the_ascendc_kernel": frozenset({"256", "1.21", "1.17"}),
}
#: Notebook numbers as a reference lists them: "12", "02 and 03", "10–11", "08、09".
_REFERENCED = r"\d\d(?:(?:,\s*|\s+and\s+|\s+or\s+|\s*[–-]\s*|\s*[、和与]\s*)\d\d)*"
_NOT_PROSE = [
    r"```.*?```",  # code blocks
    r"\$\$.*?\$\$",  # display math
    r"`[^`\n]*`",  # code spans
    r"<[^>\n]+>",  # HTML tags
    r"\]\([^)]*\)",  # link targets
    r"^#+\s*\d+(\.\d+)*\.?",  # a heading's section number
    r"[\^_](\{[^}]*\}|-?\w+)",  # exponents and subscripts in math: 2^{-24}, x_0
    rf"(\b[Nn]otebooks?\s+|笔记本\s*){_REFERENCED}",  # a notebook's number: "notebooks 02 and 12"
]
#: A number not inside a word: digits, thousands separators, a decimal part, an exponent.
NUMBER = re.compile(
    r"(?<![\w.,^_{])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\w)|(?<![\w.,^_{])\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w-])"
)
#: The opening's run-time paragraph, in either edition, which tests/rules/run_time.py holds to
#: the measurement.
RUN_TIME = re.compile(r"\*\*(Run time|运行时间)\*\*.*?(\n\s*\n|\Z)", re.S)
#: A sentence that links its source (a web address): its figures are cited, not computed.
CITED = re.compile(r"\]\(https?://")


def plain(number: str) -> str:
    """``number`` as compared: without thousands separators."""
    return number.replace(",", "")


def numbers(markdown: str) -> list[str]:
    """The numbers a markdown text states as claims (see the module's docstring)."""
    found = []
    for sentence in re.split(r"(?<=[.!?。！？])\s+|\n\s*\n", markdown):
        if CITED.search(sentence):
            continue
        for pattern in _NOT_PROSE:
            sentence = re.sub(pattern, " ", sentence, flags=re.S | re.M)
        found += [n for n in NUMBER.findall(sentence) if not _small(n)]
    return found


def _small(number: str) -> bool:
    return number.isdigit() and int(number) <= SMALL


def _printed(cell: dict) -> str:
    """Everything a code cell's stored outputs show as text (streams, results, displays)."""
    parts = []
    for output in cell.get("outputs", []):
        parts.append("".join(output.get("text", "")))
        for kind, value in output.get("data", {}).items():
            if kind.startswith("text/"):
                parts.append(value if isinstance(value, str) else "".join(value))
    return plain(" ".join(parts))


def _backed(number: str, printed: str) -> bool:
    """Whether ``number`` appears in ``printed`` as a number of its own, not inside another."""
    return re.search(rf"(?<![\d.]){re.escape(plain(number))}(?!\d)", printed) is not None


def _literals(cell: dict) -> str:
    """The numbers a code cell writes as literals (not in its comments), as text."""
    try:
        tree = ast.parse(cell_census.python_of(cell))
    except SyntaxError:
        return ""
    values = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    return " ".join(
        repr(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)
    )


def unbacked(path: Path, cells: list[dict]) -> list[str]:
    """The numbers of ``cells``' lesson prose that nothing above, in their section, shows."""
    allowed = ALLOWED.get(path.stem.split(".")[0], frozenset())
    printed, problems = "", []
    for cell in cell_census.lesson(cells):
        text = RUN_TIME.sub("", source(cell))
        if cell_census.is_solution(cell):
            continue
        if cell["cell_type"] == "code":
            printed += " " + _printed(cell) + " " + _literals(cell)
            continue
        for part in re.split(r"(?m)^(?=## )", text):
            if part.startswith("## "):
                printed = ""  # a new section: only what it shows backs its claims
            missing = [
                n for n in numbers(part) if plain(n) not in allowed and not _backed(n, printed)
            ]
            problems += [
                f"{where(path)}: cell {cell['id']} states {n}, which no cell above printed"
                for n in missing
            ]
    return problems


def claim_problems(path: Path) -> list[str]:
    """Every number a lesson's prose states is one a cell above printed.

    The problems: the numbers the prose states that no cell above printed.
    """
    return unbacked(path, notebook(path)["cells"])


def _unprinted_claim(nb: dict) -> None:
    claim = {"cell_type": "markdown", "id": "planted", "metadata": {}}
    nb["cells"].insert(2, {**claim, "source": "The kernel runs 1234.5 instructions per tile."})


#: The rule's row in tests/rules/notebooks.py's table.
RULE = in_each(
    "every number the lessons of both editions state is one a cell above printed",
    claim_problems,
    _unprinted_claim,
    ("states 1234.5, which no cell above printed",),
    notebooks=both_editions,
)
