"""The notebooks as stored: numbered, opening with their goals, short, executed top to bottom.

Each notebook opens with what it teaches, its prerequisites and its run time, and ends with a
summary and exercises. Its lesson (the cells before the collapsed Reference section) stays
within the limits of ``tools/cell_census.py``, and at least half of its non-plumbing code cells
compute in the open rather than call a helper. It is stored executed in order, without errors
or unfinished code, and only cells whose output varies are left out of nbval's comparison.
Reference material is looked up, not read: one ``## Reference`` heading at the end, stored
collapsed (JupyterLab hides the heading's cells until it is opened; the site folds it:
docs/conf.py), with only lower-level headings inside, so that collapsing it hides all of it.
The opening of either edition links the bilingual glossary, and a notebook stores the kernelspec
JupyterLab writes when it opens one, so that opening it changes nothing.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from census_tool import cell_census
from ipykernel.kernelspec import KERNEL_NAME, get_kernel_dict

from rules import claims
from rules.shared import (
    LANGUAGE,
    ROOT,
    Rule,
    both_editions,
    chinese_notebooks,
    code_cells,
    english_notebooks,
    every,
    in_each,
    notebook,
    on_a_copy,
    planted_file,
    source,
    text,
    where,
)

ON_RAMP = ["00_mishgrad_in_ten_minutes.ipynb", "01_mish_and_its_gradient.ipynb"]
NAME = re.compile(r"\d\d_[a-z0-9_]+\.ipynb")
OPENING = ("What you will learn", "Prerequisites", "Run time")
#: What may make a cell's output vary between runs: the clock, the backend, CANN's headers.
VARYING = re.compile(r"perf_counter|elapsed|run_time\.report|backend|CANN_HEADERS")
#: The glossary every opening links, from the English notebooks' folder and from the Chinese.
GLOSSARY = {"notebooks": "../docs/glossary.md", LANGUAGE: "../../docs/glossary.md"}
LINK = re.compile(r"\]\(([^)\s]+)\)")


def numbering(root: Path) -> list[str]:
    """Notebooks not named NN_words, not starting with the on-ramp, or numbered with a gap."""
    names = sorted(path.name for path in (root / "notebooks").glob("*.ipynb"))
    problems = [
        f"notebooks/{name} is not named NN_words.ipynb"
        for name in names
        if not NAME.fullmatch(name)
    ]
    if names[:2] != ON_RAMP:
        problems.append(f"notebooks/ starts with {names[:2]}, not {ON_RAMP}")
    numbers = [int(name[:2]) for name in names if NAME.fullmatch(name)]
    if numbers != list(range(len(numbers))):
        problems.append(f"notebooks/ are numbered {numbers}, not from 00 without a gap")
    return problems


def opening_problems(path: Path) -> list[str]:
    """An opening without its goals, prerequisites or run time; no summary; no exercises."""
    cells = notebook(path)["cells"]
    markdown = [source(cell) for cell in cells if cell["cell_type"] == "markdown"]
    problems = [f"{where(path)}: the opening lacks '{h}'" for h in OPENING if h not in markdown[0]]
    wanted = ["Summary"] if path.name.startswith("00_") else ["Summary", "Exercise"]  # 00: none
    everything = "\n".join(markdown)
    return problems + [f"{where(path)}: no '{w}'" for w in wanted if w not in everything]


def glossary_problems(path: Path) -> list[str]:
    """An opening cell without a relative link to the glossary.

    JupyterLab opens the linked file; the site links the glossary's page instead (docs/conf.py).
    """
    opening = next(cell for cell in notebook(path)["cells"] if cell["cell_type"] == "markdown")
    target = GLOSSARY[path.parent.name]
    if target in LINK.findall(source(opening)):
        return []
    return [f"{where(path)}: the opening cell does not link the glossary, {target}"]


def kernelspec_problems(path: Path) -> list[str]:
    """A stored kernelspec other than ipykernel's, which JupyterLab writes on opening."""
    spec = get_kernel_dict()
    wanted = {
        "display_name": spec["display_name"],
        "language": spec["language"],
        "name": KERNEL_NAME,
    }
    stored = notebook(path)["metadata"].get("kernelspec")
    if stored == wanted:
        return []
    return [
        f"{where(path)}: kernelspec {stored}, not {wanted}: JupyterLab writes it on opening, and "
        "the notebook shows as modified"
    ]


def execution_problems(path: Path) -> list[str]:
    """Code cells stored out of order, with an error, or unfinished."""
    problems = []
    code = code_cells(notebook(path)["cells"])
    order = [(n, cell) for n, cell in enumerate(code, 1) if cell["execution_count"] != n]
    for n, cell in order[:1]:
        problems.append(
            f"{where(path)}: not stored executed top to bottom: cell {cell['id']} "
            f"ran as {cell['execution_count']}, not {n}"
        )
    for cell in code:
        if any(output["output_type"] == "error" for output in cell["outputs"]):
            problems.append(f"{where(path)}: cell {cell['id']} stored an error")
        if "TODO" in source(cell) or "NotImplemented" in source(cell):
            problems.append(
                f"{where(path)}: cell {cell['id']} is unfinished (TODO, NotImplemented)"
            )
    return problems


def nbval_problems(path: Path) -> list[str]:
    """Cells left out of nbval's comparison although nothing in them varies."""
    return [
        f"{where(path)}: cell {cell['id']} is left out of nbval (NBVAL_IGNORE_OUTPUT), "
        "but nothing in it varies"
        for cell in code_cells(notebook(path)["cells"])
        if "NBVAL_IGNORE_OUTPUT" in source(cell) and not VARYING.search(source(cell))
    ]


def lesson_problems(path: Path) -> list[str]:
    """A lesson or a Reference section over cell_census's limits of cells and words."""
    length = cell_census.Length.of(path)
    measured = [
        ("lesson cells", length.cells, cell_census.MAX_LESSON_CELLS),
        ("lesson markdown words", length.words, cell_census.MAX_LESSON_WORDS),
        ("Reference words", length.reference_words, cell_census.MAX_REFERENCE_WORDS),
    ]
    return [f"{where(path)}: {n} {what}, more than {cap}" for what, n, cap in measured if n > cap]


def plain_problems(path: Path) -> list[str]:
    """A lesson whose code cells mostly call helpers instead of computing in plain view."""
    share = cell_census.Length.of(path).plain
    if share >= cell_census.PLAIN_FLOOR:
        return []
    return [
        f"{where(path)}: {share:.0%} of its code cells are plain, "
        f"less than {cell_census.PLAIN_FLOOR:.0%} (python tools/cell_census.py -v)"
    ]


def long_cells(path: Path) -> list[str]:
    """Code cells longer than cell_census.MAX_CODE_LINES lines."""
    return [
        f"{where(path)}: code cell {cell['id']} has {lines} lines, "
        f"more than {cell_census.MAX_CODE_LINES}"
        for cell in code_cells(notebook(path)["cells"])
        if (lines := cell_census.code_lines(cell)) > cell_census.MAX_CODE_LINES
    ]


def _folded_titles() -> set[str]:
    """The Reference headings the site folds, one per language (docs/conf.py)."""
    tree = ast.parse(text(ROOT / "docs" / "conf.py"))
    assigned = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "REFERENCE_SECTIONS"
    )
    return set(ast.literal_eval(assigned))


def reference_problems(path: Path) -> list[str]:
    """A Reference section that is not one collapsed ``## `` heading with only lower ones below."""
    cells = notebook(path)["cells"]
    headings = [i for i, cell in enumerate(cells) if cell_census.is_reference_heading(cell)]
    if not headings:
        return []
    heading, name = cells[headings[0]], where(path)
    problems = [f"{name}: {len(headings)} Reference headings, not one"] if headings[1:] else []
    if heading["cell_type"] != "markdown" or not source(heading).startswith("## "):
        problems.append(f"{name}: the Reference heading (cell {heading['id']}) is not a '## '")
    if source(heading).split("\n")[0].removeprefix("## ") not in _folded_titles():
        problems.append(f"{name}: the Reference heading is not a title the site folds")
    if heading["metadata"].get("jp-MarkdownHeadingCollapsed") is not True:
        problems.append(f"{name}: the Reference heading is not stored collapsed")
    for cell in cells[headings[0] + 1 :]:
        levels = re.findall(r"^(#+) ", source(cell), flags=re.M)
        if cell["cell_type"] == "markdown" and any(len(level) < 3 for level in levels):
            problems.append(f"{name}: cell {cell['id']} has a '## ' heading inside the Reference")
    return problems


def _stray_and_gap(tmp: Path) -> list[str]:
    for name in [*ON_RAMP, "03_after_a_gap.ipynb", "Intro.ipynb"]:
        planted_file(tmp, f"notebooks/{name}", "{}")
    return numbering(tmp)


def _no_prerequisites_or_exercises(nb: dict) -> None:
    markdown = [cell for cell in nb["cells"] if cell["cell_type"] == "markdown"]
    markdown[0]["source"] = source(markdown[0]).replace("Prerequisites", "Background")
    for cell in markdown:
        cell["source"] = source(cell).replace("Exercise", "Task")


def _no_glossary_and_another_kernelspec(nb: dict) -> None:
    opening = next(cell for cell in nb["cells"] if cell["cell_type"] == "markdown")
    opening["source"] = source(opening).replace("glossary.md", "index.md")
    nb["metadata"]["kernelspec"]["display_name"] = "Python 3"


def _run_out_of_order_with_an_error_and_a_todo(nb: dict) -> None:
    first, second, third = code_cells(nb["cells"])[:3]
    first["execution_count"] = None
    second["outputs"].append({"output_type": "error", "ename": "E", "evalue": "", "traceback": []})
    third["source"] = source(third) + "\n# TODO"


def _ignored_without_reason(nb: dict) -> None:
    cell = next(cell for cell in code_cells(nb["cells"]) if not VARYING.search(source(cell)))
    cell["source"] = "# NBVAL_IGNORE_OUTPUT\n" + source(cell)


def _sixty_more_cells(nb: dict) -> None:
    words = {"cell_type": "markdown", "metadata": {}, "source": "word " * 50}
    nb["cells"][1:1] = [{**words, "id": f"planted-{n}"} for n in range(60)]


def _helpers_only(nb: dict) -> None:
    """Every code cell calls a helper, most through a function of the notebook that hides it."""
    wrapper = "from mishgrad.math import dtypes\n\ndef grid():\n    return dtypes.all_values('f2')"
    for n, cell in enumerate(code_cells(nb["cells"])):
        if not cell_census.is_solution(cell):
            cell["source"] = wrapper if n == 0 else "x = grid()"


def _a_long_cell(nb: dict) -> None:
    cell = code_cells(nb["cells"])[0]
    cell["source"] = "\n".join(f"x{n} = {n}" for n in range(cell_census.MAX_CODE_LINES + 1))


def _reference_open_retitled_with_a_section(nb: dict) -> None:
    heading = next(cell for cell in nb["cells"] if cell_census.is_reference_heading(cell))
    heading["metadata"].pop("jp-MarkdownHeadingCollapsed")
    heading["source"] = "## Further reading\n"
    nb["cells"].append({"cell_type": "markdown", "id": "planted", "metadata": {}, "source": "## A"})


def _open_reference(tmp: Path) -> list[str]:
    """The Reference section of the first notebook that has one, left open, with a section."""
    path = next(
        path
        for path in english_notebooks()
        if any(map(cell_census.is_reference_heading, notebook(path)["cells"]))
    )
    return on_a_copy(reference_problems, _reference_open_retitled_with_a_section, path)(tmp)


RULES = [
    Rule(
        "the notebooks are numbered from 00 without a gap, the on-ramp first",
        lambda: numbering(ROOT),
        _stray_and_gap,
        ("notebooks/Intro.ipynb is not named", "not from 00 without a gap"),
    ),
    in_each(
        "every notebook opens with its goals, prerequisites and run time, and has a summary "
        "and exercises",
        opening_problems,
        _no_prerequisites_or_exercises,
        ("the opening lacks 'Prerequisites'", "no 'Exercise'"),
    ),
    in_each(
        "every opening of both editions links the glossary",
        glossary_problems,
        _no_glossary_and_another_kernelspec,
        ("the opening cell does not link the glossary, ../docs/glossary.md",),
        notebooks=both_editions,
    ),
    in_each(
        "every notebook of both editions stores the kernelspec JupyterLab writes on opening",
        kernelspec_problems,
        _no_glossary_and_another_kernelspec,
        ("kernelspec {'display_name': 'Python 3', ",),
        notebooks=both_editions,
    ),
    in_each(
        "every notebook is stored executed top to bottom, without errors or unfinished code",
        execution_problems,
        _run_out_of_order_with_an_error_and_a_todo,
        ("not stored executed top to bottom", "stored an error", "is unfinished"),
    ),
    in_each(
        "only cells whose output varies are left out of nbval",
        nbval_problems,
        _ignored_without_reason,
        ("left out of nbval",),
    ),
    in_each(
        "every lesson and Reference section of both editions stays within cell_census's limits",
        lesson_problems,
        _sixty_more_cells,
        ("lesson cells, more than", "lesson markdown words, more than"),
        notebooks=both_editions,
    ),
    in_each(
        "most lesson code cells of both editions compute in plain view",
        plain_problems,
        _helpers_only,
        ("of its code cells are plain, less than 65%",),
        notebooks=both_editions,
    ),
    claims.RULE,
    in_each(
        "no code cell of either edition is longer than cell_census.MAX_CODE_LINES",
        long_cells,
        _a_long_cell,
        (f"has {cell_census.MAX_CODE_LINES + 1} lines",),
        notebooks=both_editions,
    ),
    Rule(
        "the Reference section of every notebook of both editions is last and collapsed",
        lambda: every(reference_problems, english_notebooks() + chinese_notebooks()),
        _open_reference,
        ("is not stored collapsed", "heading inside the Reference", "not a title the site folds"),
    ),
]
