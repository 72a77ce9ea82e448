"""The package's import contracts can fail: a planted violation of each is rejected.

``make lint`` runs import-linter's four contracts (pyproject.toml) on the package itself: the
layers, no cycles, no presentation (matplotlib, IPython) below the book, and nothing of
``tools/`` or ``bench/`` in the package. These tests plant a violation of each in a copy of the
package to show that the contracts reject it; the last test holds the notebooks to the same
rule, since import-linter does not read them. What import-linter does not check (the size of
the top level and of each module, each subpackage's docstring against the layers, the picture
against the code) is a rule of the repository (tests/rules/architecture.py).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mishgrad"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint_imports(tmp_path: Path, plant: tuple[str, str] | None = None) -> str:
    """import-linter's verdict on a copy of the package, with ``plant`` = (module file, line)."""
    shutil.copytree(PACKAGE, tmp_path / "mishgrad", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    if plant:
        path = tmp_path / "mishgrad" / plant[0]
        path.write_text(path.read_text() + f"\n{plant[1]}  # planted\n")
    result = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},  # the copy, not the installed package
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    return f"exit {result.returncode}\n{result.stdout}{result.stderr}"


def test_the_contracts_hold_on_an_untouched_copy(tmp_path):
    verdict = _lint_imports(tmp_path)
    assert verdict.startswith("exit 0") and "4 kept, 0 broken" in verdict, verdict


def test_an_import_up_a_layer_breaks_the_layers_contract(tmp_path):
    verdict = _lint_imports(tmp_path, ("math/dtypes.py", "from mishgrad.book import report"))
    assert verdict.startswith("exit 1"), verdict
    assert "Each stage imports only the stages below it BROKEN" in verdict
    assert "mishgrad.math.dtypes -> mishgrad.book.report" in verdict


def test_an_import_between_neighbours_breaks_the_layers_contract(tmp_path):
    verdict = _lint_imports(tmp_path, ("evaluation/roofline.py", "from mishgrad import aclnn"))
    assert verdict.startswith("exit 1"), verdict
    assert "mishgrad.evaluation.roofline -> mishgrad.aclnn" in verdict


def test_an_import_cycle_breaks_the_acyclic_contract(tmp_path):
    # twin imports tiling; tiling importing twin back closes a cycle inside mishgrad.kernel
    verdict = _lint_imports(tmp_path, ("kernel/tiling.py", "from mishgrad.kernel import twin"))
    assert verdict.startswith("exit 1"), verdict
    assert "No import cycles, between subpackages or between the modules of one BROKEN" in verdict
    assert "No cycles are allowed in mishgrad.kernel." in verdict
    assert re.search(r"\.(twin -> \.tiling|tiling -> \.twin)", verdict), verdict


@pytest.mark.parametrize(
    ("module", "line", "shown"),
    [
        (
            "kernel/tiling.py",
            "import matplotlib.pyplot as plt",
            "mishgrad.kernel.tiling -> matplotlib",
        ),
        (
            "math/samples.py",
            "from IPython.display import Markdown",
            "mishgrad.math.samples -> IPython",
        ),
        ("aclnn/status.py", "import matplotlib", "mishgrad.aclnn.status -> matplotlib"),
    ],
)
def test_presentation_below_the_book_breaks_the_presentation_contract(
    tmp_path, module, line, shown
):
    verdict = _lint_imports(tmp_path, (module, line))
    assert verdict.startswith("exit 1"), verdict
    assert "No figures or notebook display below the book BROKEN" in verdict
    assert shown in verdict


@pytest.mark.parametrize("line", ["from tools import layers_figure", "import bench.kernel"])
def test_an_import_of_tools_or_bench_breaks_the_tools_contract(tmp_path, line):
    verdict = _lint_imports(tmp_path, ("book/report.py", line))
    assert verdict.startswith("exit 1"), verdict
    assert "The package never imports the repository's tools or benchmarks BROKEN" in verdict
    assert f"mishgrad.book.report -> {line.split()[1].split('.')[0]}" in verdict


def _imported(source: str) -> set[str]:
    """The top-level names of the modules a piece of Python source imports."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def _notebook_source(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = ("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    # IPython's magics and shell escapes are no Python: leave them out
    return "\n".join(
        line
        for cell in code
        for line in cell.splitlines()
        if not line.lstrip().startswith(("%", "!"))
    )


def test_no_notebook_imports_tools_or_bench():
    notebooks = sorted((ROOT / "notebooks").rglob("*.ipynb"))
    assert notebooks
    offenders = [
        f"{path.relative_to(ROOT)} imports {sorted(found)}"
        for path in notebooks
        if (found := _imported(_notebook_source(path)) & {"tools", "bench"})
    ]
    assert offenders == []


def test_the_notebook_rule_sees_an_import_of_tools():
    assert _imported("from tools.production import run_time\nimport bench.kernel as k") == {
        "tools",
        "bench",
    }
