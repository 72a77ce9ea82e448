"""Every worked solution, run in a copy of its notebook, gets its checker's verdict *correct*.

A worked solution is a markdown cell whose code the learner reads and never runs in the
notebook's flow (tests/rules/solutions.py holds its form). Here, for each English notebook with
exercises, a copy in memory gets each solution's code as a code cell right after the solution's
markdown cell; nbclient runs the copy top to bottom in the notebook's folder (scratch copies in
build/test-scratch: tests/conftest.py), and each solution's result must be the verdict *correct*
as the checker shows it (:func:`rules.solutions.is_verdict`). The Chinese edition's solutions
are the same code (a rule), so the English runs stand for both.

The run also holds every notebook to what a learner must never see: nothing on stderr, which
JupyterLab shows in a pink box, from the kernel or from a process it starts (a worker's output
reaches the notebook as the kernel's own, as in JupyterLab: the kernel is started without
pytest's ``PYTEST_CURRENT_TEST``, under which ipykernel leaves other processes' output alone).
The builds' progress lines are on, and the runs build from an empty cache (one per session and
xdist worker), so that the twin's first build and every build of a solution's edited scratch
copy print while they run.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import nbformat
import pytest
from census_tool import cell_census
from nbclient import NotebookClient
from rules.shared import english_notebooks, notebook
from rules.solutions import is_verdict, language_of, solution_code

from mishgrad.kernel.compile_units import PROGRESS_VARIABLE

#: The English notebooks that have worked solutions.
NOTEBOOKS = [
    path
    for path in english_notebooks()
    if any(map(cell_census.is_solution, notebook(path)["cells"]))
]
#: How long one cell may run: a hang guard only, like pytest's timeout.
CELL_TIMEOUT = 600


def with_solutions_run(
    nb: nbformat.NotebookNode,
) -> tuple[nbformat.NotebookNode, list[str]]:
    """A copy of ``nb`` with each worked solution's code as a code cell below it; their ids."""
    copied = copy.deepcopy(nb)
    cells, ran = [], []
    for cell in copied["cells"]:
        cells.append(cell)
        if cell_census.is_solution(cell):
            code = nbformat.v4.new_code_cell(solution_code(cell))
            code["id"] = f"{cell['id']}-run"
            cells.append(code)
            ran.append(code["id"])
    copied["cells"] = cells
    return copied, ran


@pytest.fixture(scope="session")
def empty_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A build cache that starts empty: every build in it compiles, and prints its progress."""
    return tmp_path_factory.mktemp("cache")


def kernel_environment(cache: Path) -> dict[str, str]:
    """The kernel's environment: a learner's, with builds' progress on and ``cache`` to build in."""
    left_out = {"PYTEST_CURRENT_TEST", PROGRESS_VARIABLE}
    kept = {name: value for name, value in os.environ.items() if name not in left_out}
    return {**kept, "MISHGRAD_CACHE": str(cache)}


def _result(cell: dict) -> str | None:
    """A code cell's result as shown (its last ``execute_result``'s plain text), or None."""
    results = [o for o in cell["outputs"] if o["output_type"] == "execute_result"]
    return "".join(results[-1]["data"]["text/plain"]) if results else None


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_every_worked_solution_is_correct_and_nothing_reaches_stderr(
    path: Path, empty_cache: Path
) -> None:
    executed, ran = with_solutions_run(nbformat.read(path, as_version=4))
    client = NotebookClient(
        executed,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute(env=kernel_environment(empty_cache))
    cells = {cell["id"]: cell for cell in executed["cells"]}
    language = language_of(executed)
    results = {cell_id: _result(cells[cell_id]) for cell_id in ran}
    wrong = {
        cell_id: text
        for cell_id, text in results.items()
        if text is None or not is_verdict(text, "correct", language)
    }
    assert ran and not wrong, wrong
    stderr = [
        (cell["id"], "".join(output["text"]))
        for cell in executed["cells"]
        for output in cell.get("outputs", [])
        if output.get("name") == "stderr"
    ]
    assert not stderr, stderr
