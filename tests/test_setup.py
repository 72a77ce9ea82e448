"""The setup in action: `make lab` serves the notebooks, `make opsnn-check` says what it needs.

The repository's own state (pins, environment.yml, Binder, the notebooks as stored) is held by
the rules of tests/rules; cell_census's notion of the lesson, which they use, is tested here.
"""

from __future__ import annotations

import json
import subprocess
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
        expected = {path.name for path in (ROOT / folder).glob("*.ipynb")}
        assert status == 200 and len(expected) == 12 and expected <= listed


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


def test_opsnn_check_without_its_kit_says_what_it_needs(tmp_path):
    result = subprocess.run(
        ["make", "-s", "opsnn-check", f"OPSNN_CHECK={tmp_path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2 and "needs the kit: OPSNN_CHECK=" in result.stderr
