"""Count, per notebook, the code cells that show a computation and those that call helpers.

A textbook should show how a number is computed, not only call a function that computes it.
This census reads every code cell's syntax tree and sorts its statements:

* **plumbing** — imports, the cells that time the run, exercise cells (the learner's
  scaffold ending in a checker's call) and their worked solutions (cells tagged
  ``solution``, collapsed below each exercise: they apply what the notebook showed, and show
  nothing new);
* the cell's **own operations** — arithmetic, comparisons, and calls of NumPy, SymPy,
  mpmath, ``math``, ``ctypes``: the computation, shown;
* **helper calls** — calls of a ``mishgrad`` module's functions: the computation, hidden
  (except presentation: tables, number formatting, and kernel source printed by
  ``mishgrad.kernel.source``, which shows the computation in C++).

A cell *shows the computation* when it has at least two own operations and at least twice
as many own operations as helper calls; otherwise it *calls helpers*. Formatting (f-strings)
and displays count as neither. Run ``python tools/cell_census.py`` for the table (``-v``
for each cell's verdict); ``tests/rules/notebooks.py`` holds every notebook to at least half
computation cells.

The lighter book (issue 29) asks more of a notebook: a lesson code cell is *plain* when it
calls nothing of ``mishgrad`` (presentation aside) and no module beyond Python's own, NumPy,
SymPy, mpmath, ml_dtypes and matplotlib (:func:`plain_share`; the ``plain`` column), and the
notebooks made light keep the tighter limits ``LIGHT_*`` and :data:`PLAIN_FLOOR`
(``tests/rules/light.py``).
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
#: The lesson's limits (issue 19): cells besides worked solutions, markdown words, code lines.
MAX_LESSON_CELLS = 52
MAX_LESSON_WORDS = 2500
MAX_CODE_LINES = 25
#: mishgrad names that present rather than compute: tables, number formatting, and
#: ``source``, which prints a kernel file's lines (the C++ shown is the computation).
PRESENTATION = {"report", "say", "fmt", "table", "source", "Markdown", "display"}
#: Libraries whose calls are the computation itself, shown in the cell.
NUMERIC = {"np", "numpy", "sp", "sympy", "math", "mpmath", "mp", "ctypes", "struct", "subprocess"}
#: The lighter book's limits (issue 29), for the notebooks already made light (tests/rules):
#: lesson cells and markdown words, the Reference section's words, and the least share of
#: the lesson's code cells (plumbing aside) that are plain (:func:`plain_share`).
LIGHT_LESSON_CELLS = 45
LIGHT_LESSON_WORDS = 2000
LIGHT_REFERENCE_WORDS = 700
PLAIN_FLOOR = 0.65
#: Besides Python's own modules, what a plain cell may call: what a learner reads anyway.
PLAIN_MODULES = frozenset({"numpy", "sympy", "mpmath", "ml_dtypes", "matplotlib"})


@dataclass(frozen=True)
class Census:
    """One notebook's code cells, sorted."""

    plumbing: int
    helper: int
    computation: int

    @property
    def share(self) -> float:
        """Computation cells over non-plumbing cells."""
        shown = self.helper + self.computation
        return self.computation / shown if shown else 1.0


def _package_aliases(tree: ast.Module, known: set[str]) -> set[str]:
    names = set(known)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mishgrad"):
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("mishgrad"):
                    names.add(alias.asname or alias.name.split(".")[0])
    return names


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


@dataclass(frozen=True)
class Length:
    """One notebook's lesson, measured (the Reference section left out)."""

    cells: int
    code_cells: int
    words: int
    computation: int
    longest: int

    @classmethod
    def of(cls, path: Path) -> Length:
        """Measure the lesson of the notebook at ``path`` (worked solutions left out)."""
        return cls.of_cells(json.loads(path.read_text(encoding="utf-8"))["cells"])

    @classmethod
    def of_cells(cls, every: list[dict]) -> Length:
        """:meth:`of` a notebook's cells (as JSON)."""
        cells = [cell for cell in lesson(every) if not is_solution(cell)]
        code = [cell for cell in cells if cell["cell_type"] == "code"]
        return cls(
            cells=len(cells),
            code_cells=len(code),
            words=words(cells),
            computation=census_of(every)[0].computation,
            longest=max((code_lines(cell) for cell in code), default=0),
        )


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


def _plain(tree: ast.Module, modules: dict[str, str], wrappers: set[str]) -> bool:
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


def plain_share(cells: list[dict]) -> float:
    """The share of a lesson's code cells, plumbing aside, that are plain (:func:`_plain`)."""
    modules: dict[str, str] = {}
    wrappers: set[str] = set()
    plain = counted = 0
    for cell in lesson(cells):
        if cell["cell_type"] != "code" or is_solution(cell):
            continue
        tree = ast.parse(python_of(cell))
        modules = _modules(tree, modules)
        wrappers = _wrappers(tree, modules, wrappers)
        if _plumbing(tree) or _times_the_run("".join(cell["source"])):
            continue
        counted += 1
        plain += _plain(tree, modules, wrappers)
    return plain / counted if counted else 1.0


#: Calls that set a notebook up and show nothing: its display settings, its language.
PLUMBING_CALLS = {"setup_notebook", "language.use"}


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


def _weigh(tree: ast.Module, helpers: set[str]) -> tuple[int, int]:
    """(operations the cell computes itself, calls of mishgrad functions)."""
    own, delegated, shows_source = 0, 0, False
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp | ast.Compare | ast.BoolOp | ast.AugAssign):
            own += 1
        elif isinstance(node, ast.UnaryOp) and not isinstance(node.operand, ast.Constant):
            own += 1
        elif isinstance(node, ast.Call):
            root = _root_name(node.func)
            if root in PRESENTATION:
                shows_source |= root == "source"
            elif root in helpers:
                delegated += 1
            elif root in NUMERIC:
                own += 1
    # a cell that prints kernel source shows the computation in C++
    return (max(own, 2) if shows_source else own), delegated


def census(path: Path) -> tuple[Census, list[str]]:
    """The census of one notebook, and each code cell's verdict (for reading the decisions)."""
    return census_of(json.loads(path.read_text(encoding="utf-8"))["cells"])


def census_of(cells: list[dict]) -> tuple[Census, list[str]]:
    """:func:`census` of a notebook's cells (as JSON)."""
    counts = {"plumbing": 0, "helper": 0, "computation": 0}
    verdicts = []
    known: set[str] = set()
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        tree = ast.parse(python_of(cell))
        known = _package_aliases(tree, known)
        own, delegated = _weigh(tree, known)
        if is_solution(cell) or _plumbing(tree) or _times_the_run(source):
            verdict = "plumbing"
        elif own >= 2 and own >= 2 * delegated:
            verdict = "computation"
        else:
            verdict = "helper"
        counts[verdict] += 1
        first = source.splitlines()[0][:60] if source else ""
        verdicts.append(f"{verdict:12} own {own:3} helper {delegated:3}  {first}")
    return Census(**counts), verdicts


def _print_lengths(paths: list[Path]) -> None:
    print(
        f"{'notebook':45} {'cells':>5} {'code':>5} {'words':>6} {'computation':>11} {'longest':>7}"
    )
    for path in paths:
        n = Length.of(path)
        print(
            f"{path.name:45} {n.cells:5} {n.code_cells:5} {n.words:6} {n.computation:11} "
            f"{n.longest:7}"
        )


def main() -> None:
    """Print the table (``--length``: the lessons' lengths; ``-v``: each cell's verdict)."""
    verbose = "-v" in sys.argv
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if "--length" in sys.argv:
        _print_lengths(paths)
        return
    head = f"{'notebook':45} {'plumbing':>8} {'helper':>6} {'computation':>11} {'share':>6}"
    print(f"{head} {'plain':>6}")
    for path in paths:
        result, verdicts = census(path)
        plain = plain_share(json.loads(path.read_text(encoding="utf-8"))["cells"])
        print(
            f"{path.name:45} {result.plumbing:8} {result.helper:6} {result.computation:11} "
            f"{result.share:6.0%} {plain:6.0%}"
        )
        if verbose:
            print("\n".join(f"    {line}" for line in verdicts))


if __name__ == "__main__":
    main()
