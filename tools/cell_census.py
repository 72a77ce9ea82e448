"""Measure each notebook's lesson: its length, and how much of it computes in plain view.

A textbook should show how a number is computed, not only call a function that computes it,
and a lesson should be short enough to follow in one sitting. This census reads each notebook:

* the **lesson** is every cell before the ``## Reference`` heading (tagged ``reference``),
  worked solutions aside (cells tagged ``solution``, folded below each exercise); the
  Reference section after it is looked up, not read, and only its words are counted;
* a lesson code cell is **plain** when it calls nothing of ``mishgrad`` (presentation aside:
  tables, number formatting, kernel source printed as it is), nothing the notebook defined
  that does, and no module beyond Python's own and :data:`PLAIN_MODULES`; **plumbing**
  (imports, set-up calls, exercise cells ending in a checker's call, the cells that time the
  run) is not counted either way.

Run ``python tools/cell_census.py`` for the table (``-v`` adds each counted cell's verdict).
``tests/rules/notebooks.py`` holds every notebook of both editions to the limits below.
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLUMBING_NAMES = {"answer", "started"}
#: The tag of a worked solution's cell (collapsed below its exercise; tests/rules/solutions.py).
SOLUTION_TAG = "solution"
#: The tag of the ``## Reference`` heading: it and every cell after it are looked up, not read.
REFERENCE_TAG = "reference"
#: The lesson's limits (issues 19 and 29): cells besides worked solutions, markdown words, the
#: Reference section's words, and the lines of any code cell.
MAX_LESSON_CELLS = 45
MAX_LESSON_WORDS = 2000
MAX_REFERENCE_WORDS = 700
MAX_CODE_LINES = 25
#: The least share of a lesson's counted code cells that are plain (:func:`plain_share`).
PLAIN_FLOOR = 0.65
#: mishgrad names that present rather than compute: tables, number formatting, and
#: ``source`` and ``listing``, which print a kernel file's lines (the C++ shown is the
#: computation).
PRESENTATION = {"report", "say", "fmt", "table", "source", "listing", "Markdown", "display"}
#: Besides Python's own modules, what a plain cell may call: what a learner reads anyway.
PLAIN_MODULES = frozenset({"numpy", "sympy", "mpmath", "ml_dtypes", "matplotlib"})
#: Calls that set a notebook up and show nothing: its display settings, its language.
PLUMBING_CALLS = {"setup_notebook", "language.use"}


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _is_check(statement: ast.stmt) -> bool:
    call = getattr(statement, "value", None)
    if not isinstance(call, ast.Call):
        return False
    if _root_name(call.func) in {"check", "exercises"}:
        return True
    return isinstance(call.func, ast.Name) and call.func.id.startswith("check_")


def is_solution(cell: dict) -> bool:
    """Whether a notebook cell (as JSON) is an exercise's worked solution."""
    return SOLUTION_TAG in cell.get("metadata", {}).get("tags", [])


def is_reference_heading(cell: dict) -> bool:
    """Whether a notebook cell (as JSON) opens the notebook's Reference section."""
    return REFERENCE_TAG in cell.get("metadata", {}).get("tags", [])


def lesson(cells: list[dict]) -> list[dict]:
    """The cells before the Reference section (all of them when there is none)."""
    for index, cell in enumerate(cells):
        if is_reference_heading(cell):
            return cells[:index]
    return cells


def words(cells: list[dict]) -> int:
    """Markdown words, counted as whitespace-separated runs (as the issue measured them)."""
    return sum(len("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")


def python_of(cell: dict) -> str:
    """A code cell's Python, its IPython magics and shell lines (``%``, ``!``) left out."""
    lines = "".join(cell["source"]).splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))


def code_lines(cell: dict) -> int:
    """A cell's source lines."""
    return len("".join(cell["source"]).splitlines())


def _modules(tree: ast.Module, known: dict[str, str]) -> dict[str, str]:
    """``known`` (each imported name and the module it comes from) with ``tree``'s imports."""
    names = dict(known)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                names[alias.asname or alias.name] = node.module or ""
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name
    return names


def _plain(tree: ast.AST, modules: dict[str, str], wrappers: set[str]) -> bool:
    """Whether a cell's computation is all in view.

    It calls nothing of mishgrad (presentation aside), no module beyond Python's own and
    :data:`PLAIN_MODULES`, and none of the notebook's own ``wrappers`` of such calls.
    """
    for node in ast.walk(tree):
        root = _root_name(node.func) if isinstance(node, ast.Call) else None
        if root in wrappers:
            return False
        if root is None or root in PRESENTATION or root not in modules:
            continue  # a name the notebook defined, a builtin, or a table or display
        top = modules[root].split(".")[0]
        if top not in PLAIN_MODULES and top not in sys.stdlib_module_names:
            return False
    return True


def _wrappers(tree: ast.Module, modules: dict[str, str], known: set[str]) -> set[str]:
    """``known`` with the functions ``tree`` defines that call a helper: calling one hides it."""
    found = set(known)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and not _plain(node, modules, found):
            found.add(node.name)
    return found


def _plumbing(tree: ast.Module) -> bool:
    """Imports, set-up calls, and exercise cells (a scaffold, then the checker's call)."""
    if tree.body and _is_check(tree.body[-1]):
        return True  # the learner's code goes here: an exercise, not a demonstration
    for statement in tree.body:
        if isinstance(statement, ast.Import | ast.ImportFrom):
            continue
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and ast.unparse(call.func) in PLUMBING_CALLS:
            continue
        if isinstance(statement, ast.Assign) and all(
            isinstance(t, ast.Name) and t.id in PLUMBING_NAMES for t in statement.targets
        ):
            continue
        return False
    return True


def _times_the_run(source: str) -> bool:
    """The cells that time the notebook's run (the setup's clock, the lesson's last cell)."""
    return "started = time.perf_counter()" in source or "run_time.report" in source


def verdicts(cells: list[dict]) -> list[tuple[dict, bool]]:
    """Each counted lesson code cell (plumbing aside), and whether it is plain."""
    modules: dict[str, str] = {}
    wrappers: set[str] = set()
    found = []
    for cell in lesson(cells):
        if cell["cell_type"] != "code" or is_solution(cell):
            continue
        tree = ast.parse(python_of(cell))
        modules = _modules(tree, modules)
        wrappers = _wrappers(tree, modules, wrappers)
        if not (_plumbing(tree) or _times_the_run("".join(cell["source"]))):
            found.append((cell, _plain(tree, modules, wrappers)))
    return found


def plain_share(cells: list[dict]) -> float:
    """The share of a lesson's counted code cells that are plain (:func:`verdicts`)."""
    counted = verdicts(cells)
    return sum(plain for _, plain in counted) / len(counted) if counted else 1.0


@dataclass(frozen=True)
class Length:
    """One notebook's lesson, measured: the figures the limits above bound."""

    cells: int
    words: int
    reference_words: int
    longest: int
    plain: float

    @classmethod
    def of(cls, path: Path) -> Length:
        """Measure the notebook at ``path``."""
        return cls.of_cells(json.loads(path.read_text(encoding="utf-8"))["cells"])

    @classmethod
    def of_cells(cls, every: list[dict]) -> Length:
        """:meth:`of` a notebook's cells (as JSON)."""
        cells = [cell for cell in lesson(every) if not is_solution(cell)]
        code = [cell for cell in every if cell["cell_type"] == "code"]
        return cls(
            cells=len(cells),
            words=words(cells),
            reference_words=words(every[len(lesson(every)) :]),
            longest=max((code_lines(cell) for cell in code), default=0),
            plain=plain_share(every),
        )


def main() -> None:
    """Print the table, per notebook of one edition (``--language zh-CN``; ``-v``: verdicts)."""
    folder = ROOT / "notebooks"
    if "--language" in sys.argv:
        folder /= sys.argv[sys.argv.index("--language") + 1]
    print(f"{'notebook':40} {'words':>6} {'cells':>5} {'Reference':>9} {'longest':>7} {'plain':>6}")
    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        n = Length.of(path)
        print(
            f"{path.name:40} {n.words:6} {n.cells:5} {n.reference_words:9} {n.longest:7} "
            f"{n.plain:6.0%}"
        )
        if "-v" in sys.argv:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            for cell, plain in verdicts(cells):
                first = "".join(cell["source"]).splitlines()[0][:60]
                print(f"    {'plain ' if plain else 'helper'}  {first}")


if __name__ == "__main__":
    main()
