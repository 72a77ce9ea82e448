"""The package's architecture (docs/architecture.md) holds, and its checks can fail.

``make lint`` runs import-linter's two contracts (pyproject.toml) on the package itself; these
tests plant a violation of each in a copy of the package to show that the contracts reject
it, and check what import-linter does not: the size of the top level and of each module, each
subpackage's docstring against the layers, and the picture against the code.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mishgrad"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
MAX_TOP_LEVEL = 8
MAX_MODULE_LINES = 450

_FIGURE = importlib.util.spec_from_file_location(
    "layers_figure", ROOT / "tools" / "layers_figure.py"
)
layers_figure = importlib.util.module_from_spec(_FIGURE)
_FIGURE.loader.exec_module(layers_figure)

ROWS = layers_figure.layers()
LAYERS = [name for row in ROWS for name in row]


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_top_level_reads_like_a_table_of_contents():
    entries = sorted(p.name for p in PACKAGE.iterdir() if p.name != "__pycache__")
    assert len(entries) <= MAX_TOP_LEVEL, entries
    # every entry is a layer of the contract (or the package's own __init__)
    assert {Path(name).stem for name in entries} - {"__init__"} == set(LAYERS)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_longer_than_a_learner_reads_at_once(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)}: {lines} lines"


@pytest.mark.parametrize("name", [n for n in LAYERS if (PACKAGE / n).is_dir()])
def test_each_subpackage_says_which_layers_it_may_import(name):
    docstring = importlib.import_module(f"mishgrad.{name}").__doc__
    said = docstring.split("May import:", 1)[1]
    named = re.findall(r":mod:`mishgrad\.(\w+)`", said)
    assert named == layers_figure.below(name)


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


def test_the_picture_of_the_layers_is_drawn_from_the_code():
    assert layers_figure.FIGURE.read_text() == layers_figure.drawn(), (
        "docs/_static/architecture.svg is stale: run python tools/layers_figure.py"
    )


def test_the_picture_shows_every_module_and_layer():
    stored = layers_figure.FIGURE.read_text()
    for name in LAYERS:
        assert f"mishgrad.{name}<" in stored
    for path in modules():
        if path.parent != PACKAGE and path.parent.parent == PACKAGE and path.stem != "__init__":
            assert re.search(rf"\b{path.stem}\b", stored), path


def test_the_contract_is_the_one_the_docs_describe():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}
    assert contracts["layers"]["exhaustive"] is True  # a new top-level entry must be placed
    assert contracts["acyclic"]["ancestors"] == ["mishgrad"]
    assert "(_static/architecture.svg)" in (ROOT / "docs" / "architecture.md").read_text()
    assert (
        "(../_static/architecture.svg)" in (ROOT / "docs" / "zh-CN" / "architecture.md").read_text()
    )
