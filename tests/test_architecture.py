"""The package's import contracts can fail: a planted violation of each is rejected.

``make lint`` runs import-linter's two contracts (pyproject.toml) on the package itself; these
tests plant a violation of each in a copy of the package to show that the contracts reject
it. What import-linter does not check (the size of the top level and of each module, each
subpackage's docstring against the layers, the picture against the code) is a rule of the
repository (tests/rules/architecture.py).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

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
    assert verdict.startswith("exit 0") and "2 kept, 0 broken" in verdict, verdict


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
