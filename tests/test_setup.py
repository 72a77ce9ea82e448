"""The project's setup: pins in step, JupyterLab served by `make lab`, notebooks stored executed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.request
from pathlib import Path

import pytest
from census_tool import cell_census
from lab_server import TOKEN, running_lab, wait_for

ROOT = Path(__file__).resolve().parents[1]


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[normalized(name)] = version
    return pins


def conda_pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "environment.yml").read_text().splitlines():
        # name=version (conda-forge) or, under pip:, name==version (PyPI only).
        match = re.fullmatch(r"\s+- ([A-Za-z0-9_.-]+)==?([^=\s]+)", line)
        if match and match.group(1) != "python":
            pins[normalized(match.group(1))] = match.group(2)
    return pins


def test_every_requirement_is_pinned_exactly():
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        assert not line or re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][^\s]*", line), line


def test_environment_yml_carries_the_same_pins():
    assert conda_pins() == requirement_pins()


def test_environment_yml_installs_the_local_package():
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"- pip:\n(\s+(#.*|- \S+==\S+)\n)*\s+- --editable \.", text)


def test_binder_builds_the_twin_and_the_readme_launches_it():
    post_build = ROOT / "postBuild"
    assert os.access(post_build, os.X_OK)
    assert "twin_build.build()" in post_build.read_text()
    assert re.search(r"^\s+- (gxx|cxx-compiler)\b", (ROOT / "environment.yml").read_text(), re.M)
    binder = "https://mybinder.org/v2/gh/mishgrad/mishgrad/HEAD?urlpath=lab/tree/notebooks"
    assert f"({binder})" in (ROOT / "README.md").read_text()
    # The Chinese edition's link, in both READMEs; Binder installs its font from apt.txt.
    for readme in ("README.md", "README.zh-CN.md"):
        assert f"({binder}/zh-CN)" in (ROOT / readme).read_text(encoding="utf-8")
    assert "fonts-noto-cjk" in (ROOT / "apt.txt").read_text().split()


@pytest.mark.timeout(180)
@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_make_lab_serves_the_notebooks_in_the_chosen_language(tmp_path, language):
    folder = "notebooks" if language == "en" else f"notebooks/{language}"
    with running_lab(tmp_path, make_vars=[f"LAB_LANGUAGE={language}"]) as base:
        status, page = wait_for(f"{base}/lab?token={TOKEN}", 10)
        assert status == 200 and b"JupyterLab" in page
        # The server's front page sends the learner to the folder of their language.
        with urllib.request.urlopen(f"{base}/?token={TOKEN}", timeout=10) as response:
            assert response.url.split("?")[0] == f"{base}/lab/tree/{folder}"
        status, body = wait_for(f"{base}/api/contents/{folder}?token={TOKEN}", 10)
        listed = {item["name"] for item in json.loads(body)["content"]}
        expected = {path.name for path in (ROOT / folder).glob("*.ipynb")}
        assert status == 200 and len(expected) == 12 and expected <= listed


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
TRANSLATED = sorted((ROOT / "notebooks" / "zh-CN").glob("*.ipynb"))


def test_notebooks_are_numbered_and_present():
    names = [path.name for path in NOTEBOOKS]
    # 00 is the on-ramp (the finished operator in ten minutes); the textbook proper starts at 01.
    assert names[:2] == ["00_mishgrad_in_ten_minutes.ipynb", "01_mish_and_its_gradient.ipynb"]
    assert all(re.fullmatch(r"\d\d_[a-z0-9_]+\.ipynb", name) for name in names)
    assert [int(name[:2]) for name in names] == list(range(len(names)))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_short_and_shows_its_computations(path):
    # The lesson (the cells before the collapsed Reference section) is at most 52 cells and
    # 2,500 markdown words; no code cell anywhere is over 25 lines; at least half of the
    # non-plumbing code cells compute in the open rather than call a helper
    # (tools/cell_census.py says how cells are sorted). Worked solutions are not counted: one
    # collapsed cell below each exercise, read only after trying it (tests/test_solutions.py).
    length = cell_census.Length.of(path)
    assert length.cells <= cell_census.MAX_LESSON_CELLS, length
    assert length.words <= cell_census.MAX_LESSON_WORDS, length
    cells = json.loads(path.read_text())["cells"]
    long = [
        (cell["id"], cell_census.code_lines(cell))
        for cell in cells
        if cell["cell_type"] == "code" and cell_census.code_lines(cell) > cell_census.MAX_CODE_LINES
    ]
    assert not long, f"code cells over {cell_census.MAX_CODE_LINES} lines: {long}"
    result, _ = cell_census.census(path)
    assert result.share >= 0.5, result


@pytest.mark.parametrize("path", NOTEBOOKS + TRANSLATED, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_reference_section_is_last_and_collapsed(path):
    # Reference material is looked up, not read: one `## Reference` section at the end, stored
    # collapsed (JupyterLab's own metadata key hides the heading's cells until it is opened;
    # the site folds it: docs/conf.py), with only lower-level headings inside, so that
    # collapsing the heading hides all of it.
    cells = json.loads(path.read_text())["cells"]
    headings = [i for i, cell in enumerate(cells) if cell_census.is_reference_heading(cell)]
    if not headings:
        return
    assert len(headings) == 1
    heading = cells[headings[0]]
    assert heading["cell_type"] == "markdown"
    assert "".join(heading["source"]).startswith("## ")
    assert heading["metadata"].get("jp-MarkdownHeadingCollapsed") is True
    for cell in cells[headings[0] + 1 :]:
        if cell["cell_type"] == "markdown":
            titles = re.findall(r"^(#+) ", "".join(cell["source"]), flags=re.M)
            assert all(len(t) >= 3 for t in titles), "".join(cell["source"])[:80]


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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_executed_top_to_bottom(path):
    notebook = json.loads(path.read_text())
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert [cell["execution_count"] for cell in code] == list(range(1, len(code) + 1))
    for cell in code:
        assert all(output["output_type"] != "error" for output in cell["outputs"])
        source = "".join(cell["source"])
        assert "TODO" not in source and "NotImplemented" not in source
        # Only cells whose output legitimately varies may be excluded from nbval.
        if "NBVAL_IGNORE_OUTPUT" in source:
            assert re.search(
                r"perf_counter|elapsed|run_time\.report|backend|CANN_HEADERS", source
            ), source[:200]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_opens_with_goals_and_ends_with_exercises(path):
    notebook = json.loads(path.read_text())
    markdown = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown"]
    opening = markdown[0]
    for heading in ("What you will learn", "Prerequisites", "Run time"):
        assert heading in opening, f"{path.name} opening lacks '{heading}'"
    text = "\n".join(markdown)
    assert "Summary" in text
    if not path.name.startswith("00_"):  # the on-ramp has no exercises
        assert "Exercise" in text


def test_opsnn_check_without_its_kit_says_what_it_needs(tmp_path):
    result = subprocess.run(
        ["make", "-s", "opsnn-check", f"OPSNN_CHECK={tmp_path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2 and "needs the kit: OPSNN_CHECK=" in result.stderr
