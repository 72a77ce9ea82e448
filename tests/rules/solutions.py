"""Every exercise has a worked solution: the cell below it, collapsed, that passes its checker.

An exercise's scaffold is the code cell that ends in a call of its checker (``check_...``). The
next cell is its worked solution: tagged ``solution`` and ``hide-cell`` (the site renders it
collapsed behind a toggle), its code and output hidden in JupyterLab (``jupyter.source_hidden``,
``jupyter.outputs_hidden``: a verdict may state the answer), with the id
``solution-NN-k``. It calls the same checker on an answer of its own, under names of its own
(``solution_...``: the learner's ``answer``, functions and scratch copy stay as they are), and
is stored executed: its output is the checker's verdict *correct* (正确 in the Chinese edition),
which nbval checks again on every run. Its length is held by the rule on every code cell
(tests/rules/notebooks.py).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

from census_tool import cell_census

from mishgrad.book import i18n
from rules.shared import (
    PLANTED,
    Rule,
    english_notebooks,
    english_of,
    every,
    in_each,
    in_each_translation,
    notebook,
    planted_notebook,
    source,
    where,
)

TAGS = (cell_census.SOLUTION_TAG, "hide-cell")
FIRST_LINE = re.compile(
    r"# Worked solution, exercise (\d+): try it yourself first \(click to expand\)\."
)


def _tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def _tree(cell: dict) -> ast.Module:
    lines = source(cell).splitlines()
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
    return not cell_census.is_solution(cell) and checker_called(cell) is not None


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


def language_of(nb: dict) -> str:
    """The notebook's language: the generated editions say theirs in their metadata."""
    return nb.get("metadata", {}).get("mishgrad", {}).get("language", i18n.ENGLISH)


def _is_verdict(text: str, status: str, language: str) -> bool:
    word = i18n.translate(status, language)
    return text == word or any(text.startswith(word + c) for c in (":", "：", i18n.colon(language)))


def solution_problems(path: Path) -> list[str]:
    """Everything wrong with the worked solutions of one notebook."""
    cells, language = notebook(path)["cells"], language_of(notebook(path))
    problems, exercise, solutions = [], 0, set()
    for index, cell in enumerate(cells):
        if not is_scaffold(cell):
            continue
        exercise += 1
        place = f"{where(path)}: exercise {exercise} ({cell.get('id')})"
        following = cells[index + 1] if index + 1 < len(cells) else None
        if following is None or not cell_census.is_solution(following):
            problems.append(f"{place}: no solution cell right below it")
            continue
        solutions.add(index + 1)
        number = path.name[:2]
        problems += [f"{place}: {p}" for p in _cell_problems(following, cell, number, exercise)]
        text = verdict_text(following)
        if text is None or not _is_verdict(text, "correct", language):
            problems.append(f"{place}: the stored verdict is {text!r}, not correct")
    return problems + [
        f"{where(path)}: cell {cell.get('id')}: a solution cell that follows no exercise"
        for index, cell in enumerate(cells)
        if cell_census.is_solution(cell) and index not in solutions
    ]


def _cell_problems(solution: dict, scaffold: dict, number: str, exercise: int) -> list[str]:
    if solution["cell_type"] != "code":
        return ["the solution is not a code cell"]
    problems = []
    if not all(tag in _tags(solution) for tag in TAGS):
        problems.append(f"tags {_tags(solution)}, not {list(TAGS)}")
    hidden = solution.get("metadata", {}).get("jupyter", {})
    for part in ("source_hidden", "outputs_hidden"):
        if hidden.get(part) is not True:
            problems.append(f"not collapsed in JupyterLab (metadata jupyter.{part})")
    if solution.get("id") != f"solution-{number}-{exercise}":
        problems.append(f"id {solution.get('id')!r}, not 'solution-{number}-{exercise}'")
    lines = source(solution).splitlines()
    first = FIRST_LINE.fullmatch(lines[0]) if lines else None
    if first is None or int(first.group(1)) != exercise:
        problems.append(f"its first line is {lines[:1]}, not the worked-solution comment")
    if checker_called(solution) != checker_called(scaffold):
        problems.append(f"calls {checker_called(solution)}, not {checker_called(scaffold)}")
    clobbered = sorted(n for n in bound_names(solution) if not n.startswith("solution_"))
    if clobbered:
        problems.append(f"binds {clobbered}: a solution's names start with solution_")
    if any(o["output_type"] == "error" for o in solution.get("outputs", [])):
        problems.append("its stored output is an error")
    return problems


def _solution_ids(path: Path) -> list[str]:
    return [cell["id"] for cell in notebook(path)["cells"] if cell_census.is_solution(cell)]


def edition_differences(chinese: Path) -> list[str]:
    """A Chinese notebook whose worked solutions are not the English notebook's."""
    ours, english = _solution_ids(chinese), _solution_ids(english_of(chinese))
    if ours == english:
        return []
    return [f"{where(chinese)}: worked solutions {ours}, the English {english}"]


def solutionless(path: Path) -> list[str]:
    """A notebook after the on-ramp (which has no exercises) without worked solutions."""
    if path.name.startswith("00_") or _solution_ids(path):
        return []
    return [f"{where(path)} has no worked solutions"]


# --- the planted mistakes, each in its own copy of notebook 03 --------------------------------


def _first_solution(nb: dict) -> int:
    return next(i for i, cell in enumerate(nb["cells"]) if cell_census.is_solution(cell))


def _set_verdict(text: str) -> Callable[[dict], None]:
    def edit(nb: dict) -> None:
        cell = nb["cells"][_first_solution(nb)]
        result = next(o for o in cell["outputs"] if o["output_type"] == "execute_result")
        result["data"]["text/plain"] = text

    return edit


def _pop_solution(nb: dict) -> None:
    nb["cells"].pop(_first_solution(nb))


def _english_in_chinese(nb: dict) -> None:
    nb["metadata"]["mishgrad"] = {"language": "zh-CN"}  # English outputs in zh: wrong


def _open_and_other_checker(nb: dict) -> None:
    cell = nb["cells"][_first_solution(nb)]
    cell["metadata"] = {"tags": ["solution"]}
    cell["source"] = source(cell).replace("check_b1_float16(", "check_one_plus_e(")


def _learners_name(nb: dict) -> None:
    cell = nb["cells"][_first_solution(nb)]
    cell["source"] = source(cell).replace("solution_b1_float16", "b1_float16")


def _away_from_its_exercise(nb: dict) -> None:
    index = _first_solution(nb)
    nb["cells"].insert(index, nb["cells"].pop(index + 1))  # swapped with the next cell


MISTAKES = [
    _pop_solution,
    _set_verdict("wrong: some values differ"),
    _set_verdict("unanswered"),
    _set_verdict("错误: 有些值不同"),
    _english_in_chinese,
    _open_and_other_checker,
    _learners_name,
    _away_from_its_exercise,
]


def _every_mistake(tmp: Path) -> list[str]:
    copies = [planted_notebook(tmp / str(n), PLANTED, edit) for n, edit in enumerate(MISTAKES)]
    return every(solution_problems, copies)


def _untagged(nb: dict) -> None:
    nb["cells"][_first_solution(nb)]["metadata"]["tags"].remove(cell_census.SOLUTION_TAG)


def _no_solutions(nb: dict) -> None:
    nb["cells"] = [cell for cell in nb["cells"] if not cell_census.is_solution(cell)]


RULES = [
    Rule(
        "every English exercise has its collapsed worked solution below it, stored correct",
        lambda: every(solution_problems, english_notebooks()),
        _every_mistake,
        (
            "no solution cell right below it",
            "the stored verdict is 'wrong: some values differ', not correct",
            "the stored verdict is 'unanswered', not correct",
            "the stored verdict is '错误: 有些值不同', not correct",
            "the stored verdict is 'correct",  # English verdicts in a Chinese notebook
            "tags ['solution'], not ['solution', 'hide-cell']",
            "(metadata jupyter.source_hidden)",
            "(metadata jupyter.outputs_hidden)",
            "calls check_one_plus_e, not check_b1_float16",
            "binds ['b1_float16']",
            "follows no exercise",
        ),
    ),
    in_each_translation(
        "every Chinese exercise has its collapsed worked solution below it, stored correct",
        solution_problems,
        _set_verdict("correct"),
        ("the stored verdict is 'correct', not correct",),
    ),
    in_each_translation(
        "the two editions have the same worked solutions",
        edition_differences,
        _untagged,
        ("worked solutions ['solution-03-2'], the English",),
    ),
    in_each(
        "every notebook after the on-ramp has worked solutions",
        solutionless,
        _no_solutions,
        ("has no worked solutions",),
    ),
]
