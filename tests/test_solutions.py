"""Every exercise has a worked solution: the cell below it, collapsed, that passes its checker.

An exercise's scaffold is the code cell that ends in a call of its checker (``check_...``). The
next cell is its worked solution: tagged ``solution`` and ``hide-cell`` (the site renders it
collapsed behind a toggle), its code and output hidden in JupyterLab (``jupyter.source_hidden``,
``jupyter.outputs_hidden``: a verdict may state the answer), with the id
``solution-NN-k``. It calls the same checker on an answer of its own, under names of its own
(``solution_...``: the learner's ``answer``, functions and scratch copy stay as they are), and
is stored executed: its output is the checker's verdict *correct* (正确 in the Chinese edition),
which nbval checks again on every run. The tests at the end plant each kind of mistake.
"""

from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path

import pytest

from mishgrad.book import i18n

ROOT = Path(__file__).resolve().parents[1]
#: Every numbered notebook of both editions (not JupyterLab's .ipynb_checkpoints copies).
NOTEBOOKS = sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb")) + sorted(
    ROOT.glob("notebooks/zh-CN/[0-9][0-9]_*.ipynb")
)
TAGS = ("solution", "hide-cell")
FIRST_LINE = re.compile(
    r"# Worked solution, exercise (\d+): try it yourself first \(click to expand\)\."
)
MAX_LINES = 25


def _source(cell: dict) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def _tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def _tree(cell: dict) -> ast.Module:
    lines = _source(cell).splitlines()
    return ast.parse("\n".join(line for line in lines if not line.lstrip().startswith(("%", "!"))))


def checker_called(cell: dict) -> str | None:
    """The ``check_...`` function a code cell calls in its last statement, or None."""
    if cell["cell_type"] != "code":
        return None
    body = _tree(cell).body
    call = body[-1].value if body and isinstance(body[-1], ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
        return call.func.id if call.func.id.startswith("check_") else None
    return None


def is_scaffold(cell: dict) -> bool:
    """An exercise's own cell: it ends in a checker's call and is not a solution."""
    return "solution" not in _tags(cell) and checker_called(cell) is not None


def bound_names(cell: dict) -> set[str]:
    """The names a cell's top-level statements bind (imports aside)."""
    names: set[str] = set()
    for statement in _tree(cell).body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(statement.name)
            continue
        if isinstance(statement, ast.Import | ast.ImportFrom):
            continue
        targets: list[ast.AST] = []
        if isinstance(statement, ast.Assign):
            targets = list(statement.targets)
        elif isinstance(statement, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
            targets = [statement.target]
        elif isinstance(statement, ast.With | ast.AsyncWith):
            targets = [item.optional_vars for item in statement.items if item.optional_vars]
        for target in targets:
            names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def verdict_text(cell: dict) -> str | None:
    """What the cell's stored result shows (its last output's plain text), or None."""
    outputs = [o for o in cell.get("outputs", []) if o["output_type"] == "execute_result"]
    if not outputs:
        return None
    text = outputs[-1]["data"].get("text/plain", "")
    return text if isinstance(text, str) else "".join(text)


def language_of(notebook: dict) -> str:
    """The notebook's language: the generated editions say theirs in their metadata."""
    return notebook.get("metadata", {}).get("mishgrad", {}).get("language", i18n.ENGLISH)


def _is_verdict(text: str, status: str, language: str) -> bool:
    word = i18n.translate(status, language)
    return text == word or any(text.startswith(word + c) for c in (":", "：", i18n.colon(language)))


def solution_problems(notebook: dict, number: str) -> list[str]:
    """Everything wrong with the worked solutions of one notebook (``number``: its "NN")."""
    cells, language = notebook["cells"], language_of(notebook)
    problems, exercise, solutions = [], 0, set()
    for index, cell in enumerate(cells):
        if not is_scaffold(cell):
            continue
        exercise += 1
        where = f"exercise {exercise} ({cell.get('id')})"
        following = cells[index + 1] if index + 1 < len(cells) else None
        if following is None or "solution" not in _tags(following):
            problems.append(f"{where}: no solution cell right below it")
            continue
        solutions.add(index + 1)
        problems += [f"{where}: {p}" for p in _cell_problems(following, cell, number, exercise)]
        text = verdict_text(following)
        if text is None or not _is_verdict(text, "correct", language):
            problems.append(f"{where}: the stored verdict is {text!r}, not correct")
    problems += [
        f"cell {cell.get('id')}: a solution cell that follows no exercise"
        for index, cell in enumerate(cells)
        if "solution" in _tags(cell) and index not in solutions
    ]
    return problems


def _cell_problems(solution: dict, scaffold: dict, number: str, exercise: int) -> list[str]:
    problems = []
    if solution["cell_type"] != "code":
        return ["the solution is not a code cell"]
    if not all(tag in _tags(solution) for tag in TAGS):
        problems.append(f"tags {_tags(solution)}, not {list(TAGS)}")
    hidden = solution.get("metadata", {}).get("jupyter", {})
    for part in ("source_hidden", "outputs_hidden"):
        if hidden.get(part) is not True:
            problems.append(f"not collapsed in JupyterLab (metadata jupyter.{part})")
    if solution.get("id") != f"solution-{number}-{exercise}":
        problems.append(f"id {solution.get('id')!r}, not 'solution-{number}-{exercise}'")
    lines = _source(solution).splitlines()
    first = FIRST_LINE.fullmatch(lines[0]) if lines else None
    if first is None or int(first.group(1)) != exercise:
        problems.append(f"its first line is {lines[:1]}, not the worked-solution comment")
    if len(lines) > MAX_LINES:
        problems.append(f"{len(lines)} lines, more than {MAX_LINES}")
    if checker_called(solution) != checker_called(scaffold):
        problems.append(f"calls {checker_called(solution)}, not {checker_called(scaffold)}")
    clobbered = sorted(n for n in bound_names(solution) if not n.startswith("solution_"))
    if clobbered:
        problems.append(f"binds {clobbered}: a solution's names start with solution_")
    if any(o["output_type"] == "error" for o in solution.get("outputs", [])):
        problems.append("its stored output is an error")
    return problems


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT / "notebooks"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_name)
def test_every_exercise_has_a_collapsed_solution_that_its_checker_calls_correct(path: Path):
    problems = solution_problems(_load(path), path.name[:2])
    assert not problems, "\n".join(problems)


def test_the_editions_have_the_same_solutions():
    english = {p.name: p for p in NOTEBOOKS if p.parent.name == "notebooks"}
    for path in NOTEBOOKS:
        if path.parent.name != "notebooks":
            ids = [c.get("id") for c in _load(path)["cells"] if "solution" in _tags(c)]
            mine = [
                c.get("id") for c in _load(english[path.name])["cells"] if "solution" in _tags(c)
            ]
            assert ids == mine, path


def test_the_book_has_solutions():
    counts = {
        p.name: sum("solution" in _tags(c) for c in _load(p)["cells"])
        for p in NOTEBOOKS
        if p.parent.name == "notebooks"
    }
    # Every notebook that has exercises has their solutions; only the on-ramp has none.
    assert all(n > 0 for name, n in counts.items() if not name.startswith("00_")), counts


# --- each kind of mistake is caught -------------------------------------------------------

PLANTED = ROOT / "notebooks" / "03_where_the_formulas_break.ipynb"


def _first_solution(notebook: dict) -> int:
    return next(i for i, c in enumerate(notebook["cells"]) if "solution" in _tags(c))


def _planted(edit) -> list[str]:
    notebook = copy.deepcopy(_load(PLANTED))
    assert not solution_problems(notebook, "03")
    edit(notebook, _first_solution(notebook))
    return solution_problems(notebook, "03")


def _set_verdict(cell: dict, text: str) -> None:
    result = next(o for o in cell["outputs"] if o["output_type"] == "execute_result")
    result["data"]["text/plain"] = text


def test_a_missing_solution_is_caught():
    problems = _planted(lambda nb, i: nb["cells"].pop(i))
    assert any("no solution cell right below it" in p for p in problems), problems


def test_a_wrong_or_unanswered_verdict_is_caught():
    for text in ("wrong: some values differ", "unanswered", "错误: 有些值不同"):
        problems = _planted(lambda nb, i, text=text: _set_verdict(nb["cells"][i], text))
        assert any("not correct" in p for p in problems), (text, problems)


def test_a_verdict_in_the_other_language_is_caught():
    notebook = copy.deepcopy(_load(PLANTED))
    notebook["metadata"]["mishgrad"] = {"language": "zh-CN"}  # English outputs in zh: wrong
    assert any("not correct" in p for p in solution_problems(notebook, "03"))


def test_a_solution_that_is_not_collapsed_or_calls_another_checker_is_caught():
    def edit(notebook: dict, index: int) -> None:
        cell = notebook["cells"][index]
        cell["metadata"] = {"tags": ["solution"]}
        cell["source"] = _source(cell).replace("check_b1_float16(", "check_one_plus_e(")

    problems = "\n".join(_planted(edit))
    for expected in ("tags", "source_hidden", "calls check_one_plus_e"):
        assert expected in problems, problems


def test_a_solution_that_overwrites_the_learners_names_is_caught():
    def edit(notebook: dict, index: int) -> None:
        cell = notebook["cells"][index]
        cell["source"] = _source(cell).replace("solution_b1_float16", "b1_float16")

    assert any("binds ['b1_float16']" in p for p in _planted(edit))


def test_a_solution_cell_away_from_its_exercise_is_caught():
    def edit(notebook: dict, index: int) -> None:
        notebook["cells"].insert(index, notebook["cells"].pop(index + 1))  # swap with the next

    problems = _planted(edit)
    assert any("follows no exercise" in p for p in problems), problems
