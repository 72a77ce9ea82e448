"""Every exercise has a worked solution: the markdown cell below it, folded, in both editions.

An exercise's scaffold is the code cell that ends in a call of its checker (``check_...``). The
next cell is its worked solution, one form in JupyterLab and on the site: a markdown cell with
the id ``solution-NN-k``, tagged ``solution``, that holds an HTML ``<details>`` block. Its
``<summary>`` says which exercise it solves and to try it first (:data:`SUMMARIES`, per
language); below it, blank lines around them so that both JupyterLab and MyST read them as
markdown, come the reasoning in prose and exactly one fenced ``python`` block. The code calls
the same checker as the scaffold, on an answer of its own, under names of its own
(``solution_...``: run in the learner's notebook, it would leave the learner's ``answer``,
functions and scratch copy as they are), and has no ``#`` comments: the reasoning is the prose,
which the Chinese edition translates, while the code is the same in both editions.

A solution is never run in the learner's flow, so none stores an output; tests/test_solutions.py
runs each one in a copy of its notebook and checks that its checker says *correct*.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Callable
from pathlib import Path

from census_tool import cell_census

from mishgrad.book import i18n
from rules.shared import (
    LANGUAGE,
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

#: A worked solution's tags: only the one that marks it (tools/cell_census.py leaves it out of
#: the lesson's length).
TAGS = [cell_census.SOLUTION_TAG]
#: The ``<summary>`` line of exercise ``number``'s worked solution, per language.
SUMMARIES = {
    i18n.ENGLISH: "Worked solution, exercise {number} (try it yourself first)",
    LANGUAGE: "练习 {number} 的参考解答（请先自己尝试）",
}
#: A solution cell: the folded block, the summary, the body, blank lines around the markdown.
FOLDED = re.compile(r"<details>\n<summary>(?P<summary>[^<\n]*)</summary>\n\n.*\n\n</details>", re.S)
#: A fenced python block of a markdown cell, its code in the group.
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.M | re.S)


def _tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def _tree(code: str) -> ast.Module:
    lines = code.splitlines()
    return ast.parse("\n".join(line for line in lines if not line.lstrip().startswith(("%", "!"))))


def checker_called(code: str) -> str | None:
    """The ``check_...`` function a piece of code calls in its last statement, or None."""
    body = _tree(code).body
    call = body[-1].value if body and isinstance(body[-1], ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
        return call.func.id if call.func.id.startswith("check_") else None
    return None


def is_scaffold(cell: dict) -> bool:
    """An exercise's own cell: a code cell that ends in a checker's call, not a solution."""
    code = cell["cell_type"] == "code" and not cell_census.is_solution(cell)
    return code and checker_called(source(cell)) is not None


def bound_names(code: str) -> set[str]:
    """The names a piece of code's top-level statements bind (imports aside)."""
    names: set[str] = set()
    for statement in _tree(code).body:
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


def comments(code: str) -> list[str]:
    """The ``#`` comments of a piece of code."""
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return [token.string for token in tokens if token.type == tokenize.COMMENT]


def code_blocks(cell: dict) -> list[str]:
    """The fenced python blocks of a markdown cell, their code only."""
    return PYTHON_BLOCK.findall(source(cell))


def solution_code(cell: dict) -> str:
    """A worked solution's code: its one python block (the rules hold it to one)."""
    (code,) = code_blocks(cell)
    return code


def language_of(nb: dict) -> str:
    """The notebook's language: the generated editions say theirs in their metadata."""
    return nb.get("metadata", {}).get("mishgrad", {}).get("language", i18n.ENGLISH)


def is_verdict(text: str, status: str, language: str) -> bool:
    """Whether ``text``, a checker's result as shown, is the verdict ``status`` in ``language``."""
    word = i18n.translate(status, language)
    return text == word or any(text.startswith(word + c) for c in (":", "：", i18n.colon(language)))


def solution_problems(path: Path) -> list[str]:
    """Everything wrong with the worked solutions of one notebook."""
    nb = notebook(path)
    cells, language = nb["cells"], language_of(nb)
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
        expected = (f"solution-{path.name[:2]}-{exercise}", exercise, language)
        problems += [f"{place}: {p}" for p in _cell_problems(following, cell, *expected)]
    return problems + [
        f"{where(path)}: cell {cell.get('id')}: a solution cell that follows no exercise"
        for index, cell in enumerate(cells)
        if cell_census.is_solution(cell) and index not in solutions
    ]


def _cell_problems(
    solution: dict, scaffold: dict, cell_id: str, exercise: int, language: str
) -> list[str]:
    if solution["cell_type"] != "markdown":
        return ["the solution is not a markdown cell"]
    problems = []
    if _tags(solution) != TAGS:
        problems.append(f"tags {_tags(solution)}, not {TAGS}")
    if solution.get("id") != cell_id:
        problems.append(f"id {solution.get('id')!r}, not {cell_id!r}")
    folded = FOLDED.fullmatch(source(solution).strip("\n"))
    summary = SUMMARIES[language].format(number=exercise)
    if folded is None:
        problems.append("not folded: no <details> and <summary>, blank lines around the markdown")
    elif folded["summary"] != summary:
        problems.append(f"its summary is {folded['summary']!r}, not {summary!r}")
    blocks = code_blocks(solution)
    if len(blocks) != 1:
        return [*problems, f"{len(blocks)} python blocks, not one"]
    return problems + _code_problems(blocks[0], source(scaffold))


def _code_problems(code: str, scaffold: str) -> list[str]:
    try:
        called, bound, commented = checker_called(code), bound_names(code), comments(code)
    except (SyntaxError, tokenize.TokenError) as error:
        return [f"its code does not parse: {error}"]
    problems = []
    if called != checker_called(scaffold):
        problems.append(f"calls {called}, not {checker_called(scaffold)}")
    clobbered = sorted(name for name in bound if not name.startswith("solution_"))
    if clobbered:
        problems.append(f"binds {clobbered}: a solution's names start with solution_")
    if commented:
        problems.append(f"has # comments {commented}: the reasoning goes in the prose")
    return problems


def _solution_code(path: Path) -> list[tuple[str, list[str]]]:
    """Each worked solution of a notebook: its id and its python blocks."""
    cells = notebook(path)["cells"]
    return [(cell["id"], code_blocks(cell)) for cell in cells if cell_census.is_solution(cell)]


def edition_differences(chinese: Path) -> list[str]:
    """A Chinese notebook whose worked solutions are not the English ones, or not their code."""
    ours, english = _solution_code(chinese), _solution_code(english_of(chinese))
    ids, english_ids = [i for i, _ in ours], [i for i, _ in english]
    if ids != english_ids:
        return [f"{where(chinese)}: worked solutions {ids}, the English {english_ids}"]
    return [
        f"{where(chinese)}: the code of {cell_id} is not the English notebook's"
        for (cell_id, code), (_, theirs) in zip(ours, english, strict=True)
        if code != theirs
    ]


def solutionless(path: Path) -> list[str]:
    """A notebook after the on-ramp (which has no exercises) without worked solutions."""
    if path.name.startswith("00_") or _solution_code(path):
        return []
    return [f"{where(path)} has no worked solutions"]


# --- the planted mistakes, each in its own copy of notebook 03 --------------------------------


def _first_solution(nb: dict) -> dict:
    return next(cell for cell in nb["cells"] if cell_census.is_solution(cell))


def _edit_first(edit: Callable[[str], str]) -> Callable[[dict], None]:
    """A planted mistake: ``edit`` applied to the first worked solution's source."""

    def plant(nb: dict) -> None:
        cell = _first_solution(nb)
        cell["source"] = edit(source(cell))

    return plant


def _pop_solution(nb: dict) -> None:
    nb["cells"].remove(_first_solution(nb))


def _as_code(nb: dict) -> None:
    cell = _first_solution(nb)
    cell.update(cell_type="code", execution_count=None, outputs=[])
    cell["source"] = solution_code(cell)


def _old_tags_and_id(nb: dict) -> None:
    cell = _first_solution(nb)
    cell["metadata"]["tags"] = [*TAGS, "hide-cell"]
    cell["id"] = "solution-03-x"


def _away_from_its_exercise(nb: dict) -> None:
    index = nb["cells"].index(_first_solution(nb))
    nb["cells"].insert(index, nb["cells"].pop(index + 1))  # swapped with the next cell


def _second_block(text: str) -> str:
    return text.replace("</details>", "```python\nsolution_more = 1\n```\n\n</details>")


MISTAKES = [
    _pop_solution,
    _as_code,
    _old_tags_and_id,
    _away_from_its_exercise,
    _edit_first(lambda text: text.replace("<details>\n", "").replace("\n\n</details>", "")),
    _edit_first(lambda text: text.replace("Worked solution, exercise 1", "Solution 1")),
    _edit_first(lambda text: text.replace("check_b1_float16(", "check_one_plus_e(")),
    _edit_first(lambda text: text.replace("solution_b1_float16", "b1_float16")),
    _edit_first(lambda text: text.replace("    e = np.exp(x)\n", "    e = np.exp(x)  # e^x\n")),
    _edit_first(_second_block),
]


def _every_mistake(tmp: Path) -> list[str]:
    copies = [planted_notebook(tmp / str(n), PLANTED, edit) for n, edit in enumerate(MISTAKES)]
    return every(solution_problems, copies)


def _no_solutions(nb: dict) -> None:
    nb["cells"] = [cell for cell in nb["cells"] if not cell_census.is_solution(cell)]


_ENGLISH_SUMMARY = SUMMARIES[i18n.ENGLISH].format(number=1)
_CHINESE_SUMMARY = SUMMARIES[LANGUAGE].format(number=1)

RULES = [
    Rule(
        "every English exercise has its folded worked solution below it: prose, one code block",
        lambda: every(solution_problems, english_notebooks()),
        _every_mistake,
        (
            "no solution cell right below it",
            "the solution is not a markdown cell",
            "tags ['solution', 'hide-cell'], not ['solution']",
            "id 'solution-03-x', not 'solution-03-1'",
            "follows no exercise",
            "not folded: no <details>",
            "its summary is 'Solution 1 (try it yourself first)'",
            "calls check_one_plus_e, not check_b1_float16",
            "binds ['b1_float16']",
            "has # comments ['# e^x']",
            "2 python blocks, not one",
        ),
    ),
    in_each_translation(
        "every Chinese exercise has its folded worked solution below it, its summary in Chinese",
        solution_problems,
        _edit_first(lambda text: text.replace(_CHINESE_SUMMARY, _ENGLISH_SUMMARY)),
        (f"its summary is {_ENGLISH_SUMMARY!r}, not {_CHINESE_SUMMARY!r}",),
    ),
    in_each_translation(
        "the two editions have the same worked solutions, with the same code",
        edition_differences,
        _edit_first(lambda text: text.replace("solution_b1_float16", "solution_b1")),
        ("the code of solution-03-1 is not the English notebook's",),
    ),
    in_each(
        "every notebook after the on-ramp has worked solutions",
        solutionless,
        _no_solutions,
        ("has no worked solutions",),
    ),
]
