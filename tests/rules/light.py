"""The lighter book (issue 29): what a notebook keeps once it is made light, in both editions.

A light notebook's lesson is short (``cell_census.LIGHT_*``), its Reference section is looked
up, not read (at most ``LIGHT_REFERENCE_WORDS``), most of its code cells compute in plain view
(``cell_census.PLAIN_FLOOR``), and every number its prose states is one a cell above printed
(:mod:`rules.claims`). :data:`LIGHT` lists the notebooks made light so far; it grows one
notebook at a time, until it names them all.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from census_tool import cell_census

from rules import claims
from rules.shared import LANGUAGE, ROOT, Core, Rule, every, notebook, on_a_copy, where

#: The notebooks made light so far, by stem; both editions of each keep the rules below.
LIGHT: tuple[str, ...] = (
    "00_mishgrad_in_ten_minutes",
    "01_mish_and_its_gradient",
    "02_floats_ulps_and_overflow",
    "03_where_the_formulas_break",
    "04_tiling",
    "05_the_ascendc_kernel",
    "07_the_aclnn_two_phase_call",
    "08_broadcasting_views_and_cpp",
    "10_performance",
    "11_shipping_to_ops_nn",
)


def light_notebooks() -> list[Path]:
    """Both editions of every notebook of :data:`LIGHT`."""
    folders = (ROOT / "notebooks", ROOT / "notebooks" / LANGUAGE)
    return [folder / f"{stem}.ipynb" for stem in LIGHT for folder in folders]


def length_problems(path: Path) -> list[str]:
    """A light notebook's lesson and Reference section stay within the lighter book's limits.

    The problems: a lesson or a Reference section longer than the limits allow.
    """
    cells = notebook(path)["cells"]
    length = cell_census.Length.of_cells(cells)
    reference = cell_census.words(cells[len(cell_census.lesson(cells)) :])
    measured = [
        ("lesson cells", length.cells, cell_census.LIGHT_LESSON_CELLS),
        ("lesson words", length.words, cell_census.LIGHT_LESSON_WORDS),
        ("Reference words", reference, cell_census.LIGHT_REFERENCE_WORDS),
    ]
    return [f"{where(path)}: {n} {what}, more than {cap}" for what, n, cap in measured if n > cap]


def plain_problems(path: Path) -> list[str]:
    """Most of a light notebook's code cells compute in plain view.

    The problem: a lesson whose code cells mostly call helpers instead.
    """
    share = cell_census.plain_share(notebook(path)["cells"])
    if share >= cell_census.PLAIN_FLOOR:
        return []
    return [f"{where(path)}: {share:.0%} of its code cells are plain, less than 65%"]


def claim_problems(path: Path) -> list[str]:
    """Every number a light notebook's prose states is one a cell above printed.

    The problems: the numbers the prose states that no cell above printed.
    """
    return claims.unbacked(path, notebook(path)["cells"])


def _padded(nb: dict) -> None:
    words = {"cell_type": "markdown", "metadata": {}, "source": "word " * 60}
    nb["cells"][1:1] = [{**words, "id": f"planted-{n}"} for n in range(50)]


def _helpers_only(nb: dict) -> None:
    """Every code cell calls a helper, most through a function of the notebook that hides it."""
    wrapper = "from mishgrad.math import dtypes\n\ndef grid():\n    return dtypes.all_values('f2')"
    for n, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        if not cell_census.is_solution(cell):
            cell["source"] = wrapper if n == 0 else "x = grid()"


def _unprinted_claim(nb: dict) -> None:
    claim = {"cell_type": "markdown", "id": "planted", "metadata": {}}
    nb["cells"].insert(2, {**claim, "source": "The kernel runs 1234.5 instructions per tile."})


#: The notebook the faults are planted in: the on-ramp, the first notebook made light.
PLANTED = ROOT / "notebooks" / "00_mishgrad_in_ten_minutes.ipynb"


def _light(core: Core, edit: Callable[[dict], object], *expect: str) -> Rule:
    """The rule ``core``'s docstring states, kept by every light notebook of both editions."""
    name = core.__doc__.split("\n")[0].rstrip(".")
    check = lambda: every(core, light_notebooks())  # noqa: E731
    return Rule(name, check, on_a_copy(core, edit, PLANTED), expect)


RULES = [
    _light(length_problems, _padded, "lesson cells, more than 45", "lesson words, more than 2000"),
    _light(plain_problems, _helpers_only, "are plain, less than 65%"),
    _light(claim_problems, _unprinted_claim, "states 1234.5, which no cell above printed"),
]
