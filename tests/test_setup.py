"""The setup in action: `make lab` serves the notebooks, `make opsnn-check` says what it needs,
`make format` leaves the notebooks' code alone, `make notebooks FORCE=1` passes FORCE on.

The repository's own state (pins, environment.yml, Binder, the notebooks as stored) is held by
the rules of tests/rules; cell_census's notion of the lesson, which they use, is tested here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from census_tool import cell_census
from lab_server import PATIENCE, TOKEN, running_lab, wait_for

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # starts JupyterLab
@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_make_lab_serves_the_notebooks_in_the_chosen_language(tmp_path, language):
    folder = "notebooks" if language == "en" else f"notebooks/{language}"
    with running_lab(tmp_path, make_vars=[f"LAB_LANGUAGE={language}"]) as base:
        status, page = wait_for(f"{base}/lab?token={TOKEN}")
        assert status == 200 and b"JupyterLab" in page
        # The server's front page sends the learner to the folder of their language.
        with urllib.request.urlopen(f"{base}/?token={TOKEN}", timeout=PATIENCE) as response:
            assert response.url.split("?")[0] == f"{base}/lab/tree/{folder}"
        status, body = wait_for(f"{base}/api/contents/{folder}?token={TOKEN}")
        listed = {item["name"] for item in json.loads(body)["content"]}
        expected = {path.name for path in (ROOT / folder).glob("[0-9][0-9]_*.ipynb")}
        book = list((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))  # every edition has them all
        assert status == 200 and len(expected) == len(book) and expected <= listed


def test_the_lesson_ends_at_the_reference_heading():
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Lesson\n", "one two three"]},
        {"cell_type": "code", "metadata": {}, "source": ["x = 1"]},
        {"cell_type": "markdown", "metadata": {"tags": ["reference"]}, "source": ["## Reference"]},
        {"cell_type": "markdown", "metadata": {}, "source": ["many words here " * 1000]},
    ]
    assert cell_census.lesson(cells) == cells[:2]
    assert cell_census.words(cell_census.lesson(cells)) == 5
    assert cell_census.lesson(cells[:2]) == cells[:2]


def _make(repository: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=repository,
        capture_output=True,
        text=True,
        check=False,
    )


def test_opsnn_check_without_its_kit_says_what_it_needs(tmp_path):
    result = _make(ROOT, "-s", "opsnn-check", f"OPSNN_CHECK={tmp_path}")
    assert result.returncode == 2 and "needs the kit: OPSNN_CHECK=" in result.stderr


# --- make targets in a stand-in repository (issue 28) -------------------------------------

#: A learner's cell: an import they will use later, with their note, and code not yet formatted.
LEARNERS_CELL = "import os  # my note: I need this for exercise 2\n\nanswer=None"


def _stand_in_repository(tmp_path: Path) -> Path:
    """The Makefile with ruff's settings, .venv's ruff, an installed stamp and empty folders."""
    for name in ("Makefile", "pyproject.toml", "requirements.txt"):
        shutil.copy(ROOT / name, tmp_path / name)
    for folder in ("mishgrad", "tests", "bench", "notebooks", "docs", "tools", "kernel"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "ruff").symlink_to(ROOT / ".venv" / "bin" / "ruff")
    stamp = tmp_path / ".venv" / ".installed"
    stamp.touch()
    later = time.time() + 60  # newer than requirements.txt and pyproject.toml: no reinstall
    os.utime(stamp, (later, later))
    return tmp_path


def test_make_format_leaves_a_notebooks_code_alone(tmp_path: Path) -> None:
    repository = _stand_in_repository(tmp_path)
    cell = {"cell_type": "code", "execution_count": None, "id": "mine", "metadata": {}}
    cell |= {"outputs": [], "source": LEARNERS_CELL}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = repository / "notebooks" / "05_mine.ipynb"
    path.write_text(json.dumps(notebook, indent=1))
    before = path.read_bytes()
    result = _make(repository, "format")
    assert result.returncode == 0, result.stdout + result.stderr
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("variables", "command"), [((), "build\n"), (("FORCE=1",), "build --force\n")]
)
def test_make_notebooks_passes_force_to_the_generator(
    tmp_path: Path, variables: tuple[str, ...], command: str
) -> None:
    result = _make(_stand_in_repository(tmp_path), "-n", "notebooks", *variables)
    assert f"-m tools.production.notebook_translation {command}" in result.stdout, result.stdout
