"""Notebook 04, English and Chinese, opened in a running JupyterLab (`make lab`), headless.

The notebook must render from its stored outputs (markdown, math, figures), its Reference
section collapsed, its worked solutions folded, and opening it must leave it unmodified (its
kernel started); after running all its cells the explorer widget must render, which needs the
ipywidgets extension (jupyterlab_widgets, pinned) in JupyterLab. The Chinese notebook's
characters must all be drawn with real glyphs.
"""

from __future__ import annotations

import json
import time

import pytest
from conftest import ROOT
from glyphs import MISSING_GLYPHS
from lab_server import PATIENCE, TOKEN, running_lab
from rules.solutions import SUMMARIES, language_of
from selenium.webdriver.support.ui import WebDriverWait

NOTEBOOKS = ["notebooks/04_tiling.ipynb", "notebooks/zh-CN/04_tiling.ipynb"]

# What the open notebook shows, counted in the DOM.
RENDERED = """
const panel = document.querySelector(".jp-NotebookPanel");
if (!panel) return null;
const outputs = panel.querySelectorAll(".jp-OutputArea-output");
return {
  cells: panel.querySelectorAll(".jp-Cell").length,
  outputs: outputs.length,
  markdown: panel.querySelectorAll(".jp-OutputArea-output.jp-RenderedMarkdown").length,
  figures: Array.from(panel.querySelectorAll(".jp-OutputArea-output img"))
    .filter((img) => img.complete && img.naturalWidth > 0).length,
  math: panel.querySelectorAll("mjx-container").length,
  widgets: panel.querySelectorAll(".jp-OutputArea-output .jupyter-widgets").length,
};
"""

# The Reference section as JupyterLab holds it: its heading collapsed, every cell below hidden.
REFERENCE = """
const notebook = window.jupyterapp.shell.currentWidget.content;
const cells = notebook.widgets;
const at = cells.findIndex((c) => (c.model.getMetadata("tags") || []).includes("reference"));
if (at < 0) return null;
return {
  collapsed: cells[at].headingCollapsed,
  below: cells.length - at - 1,
  hidden: cells.slice(at + 1).filter((c) => c.isHidden).length,
};
"""

# Each worked solution as JupyterLab renders it (scrolled to, so that it is drawn): its
# summary, whether its <details> is open, and whether its code is visible.
SOLUTIONS = """
const done = arguments[arguments.length - 1];
const notebook = window.jupyterapp.shell.currentWidget.content;
(async () => {
  const found = [];
  for (const [index, cell] of notebook.widgets.entries()) {
    if (!(cell.model.getMetadata("tags") || []).includes("solution")) continue;
    await notebook.scrollToItem(index);
    let details = null;
    for (let tries = 0; !details && tries < 600; tries++) {  // rendered within a minute
      details = cell.node.querySelector(".jp-RenderedMarkdown details");
      if (!details) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const code = details && details.querySelector("pre");
    found.push({
      summary: details && details.querySelector("summary").textContent.trim(),
      open: details && details.open,
      shown: !!code && code.checkVisibility(),
    });
  }
  done(found);
})();
"""
# Whether the open notebook differs from the file, once its kernel is idle.
MODIFIED = """
const panel = window.jupyterapp.shell.currentWidget;
const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
if (!kernel || kernel.status !== "idle") return null;
return {modified: panel.context.model.dirty};
"""


@pytest.fixture
def lab(tmp_path):
    """`make lab` on a free port with a token and its own settings; autosave off."""
    settings = tmp_path / "settings" / "@jupyterlab" / "docmanager-extension"
    settings.mkdir(parents=True)
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
    extra = [
        f"--LabApp.user_settings_dir={tmp_path / 'settings'}",
        f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
        "--LabApp.expose_app_in_browser=True",
    ]
    with running_lab(tmp_path, extra) as base:
        yield base, TOKEN


@pytest.mark.timeout(4 * PATIENCE)
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=["en", "zh-CN"])
def test_notebook_04_renders_in_jupyterlab_with_its_widget(notebook, lab, chromium, screenshots):
    base, token = lab
    stored = (ROOT / notebook).read_bytes()
    browser = chromium()
    browser.get(f"{base}/lab/tree/{notebook}?token={token}")

    def shown(driver):
        state = driver.execute_script(RENDERED)
        # JupyterLab renders the cells in batches: wait until enough of them are there.
        enough = state and state["figures"] >= 3 and state["math"] > 0 and state["outputs"] > 20
        return state if enough else None

    state = WebDriverWait(browser, PATIENCE).until(shown)
    assert state["cells"] > 20 and state["markdown"] > 5, state
    config = json.loads(
        browser.execute_script("return document.getElementById('jupyter-config-data').textContent")
    )
    extensions = {extension["name"] for extension in config["federated_extensions"]}
    assert "@jupyter-widgets/jupyterlab-manager" in extensions, extensions
    assert config["news"] == {"disabled": True}, "JupyterLab would ask about its news feed"
    # The Reference section opens collapsed: looked up, not read (tests/rules/notebooks.py).
    reference = browser.execute_script(REFERENCE)
    assert reference and reference["collapsed"] and reference["below"] > 3, reference
    assert reference["hidden"] == reference["below"], reference

    # The worked solutions are folded: a closed <details> each, with its summary.
    summary = SUMMARIES[language_of(json.loads(stored))]
    browser.set_script_timeout(PATIENCE)
    solutions = browser.execute_async_script(SOLUTIONS)
    assert solutions == [
        {"summary": summary.format(number=n), "open": False, "shown": False}
        for n in range(1, len(solutions) + 1)
    ], solutions
    assert solutions, "no worked solution rendered"
    # Opening it changed nothing, once its kernel started (the stored kernelspec is ipykernel's).
    state = WebDriverWait(browser, PATIENCE).until(lambda d: d.execute_script(MODIFIED))
    assert not state["modified"], "opening the notebook modified it"

    # Run every cell in the notebook's kernel: the explorer widget then renders.
    WebDriverWait(browser, PATIENCE).until(
        lambda d: d.execute_script(
            "return !!(window.jupyterapp && window.jupyterapp.commands"
            " .isEnabled('notebook:run-all-cells'))"
        )
    )
    browser.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    started = time.monotonic()
    state = WebDriverWait(browser, PATIENCE).until(
        lambda d: (s := d.execute_script(RENDERED)) and s["widgets"] > 0 and s
    )
    name = notebook.removeprefix("notebooks/").replace("/", "__").removesuffix(".ipynb")
    browser.save_screenshot(str(screenshots / f"jupyterlab__{name}.png"))
    assert state["widgets"] > 0, f"no widget after {time.monotonic() - started:.0f} s: {state}"
    if "zh-CN" in notebook:
        missing = browser.execute_script(MISSING_GLYPHS, None)
        assert not missing, f"characters drawn without a glyph: {missing}"
    assert (ROOT / notebook).read_bytes() == stored, "the test must not save the notebook"
