"""The built site, page by page, in headless Chromium over a local HTTP server.

Every HTML page of docs/_build/html (`make site`) is opened; a page fails on a console error
(level SEVERE: a script error or a resource that did not load), an image that did not load,
or math that MathJax did not render. A screenshot of each page is saved in
build/site-screenshots/ (or $SITE_SCREENSHOTS). The Chinese site (zh-CN/) gets the same checks,
plus: every Chinese character drawn with a real glyph, a language switch on every page that
leads to the same page in the other language, and a search that finds Chinese words.
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urldefrag

import pytest
from census_tool import cell_census
from conftest import ROOT
from glyphs import MISSING_GLYPHS
from lab_server import PATIENCE
from rules.shared import LANGUAGE
from rules.solutions import SUMMARIES, solution_code
from selenium.webdriver.support.ui import WebDriverWait

from mishgrad.book.i18n import ENGLISH

SITE = Path(os.environ.get("SITE_DIR", ROOT / "docs" / "_build" / "html"))
PAGES = sorted(
    path.relative_to(SITE).as_posix()
    for path in SITE.rglob("*.html")
    if not any(part.startswith("_") for part in path.relative_to(SITE).parts)
)
CHINESE = "zh-CN/"
KERNEL_SOURCES = [
    "kernel/mish_grad/op_kernel/mish_grad.h",
    "kernel/mish_grad/common/mish_grad_tiling.h",
    "kernel/mish_grad/common/mish_grad_contract.h",
    "kernel/mish_grad/common/mish_grad_dtypes.h",
    "kernel/twin/include/kernel_operator.h",
]
NOTEBOOKS = sorted(path.stem for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _notebook(page: str) -> dict:
    """The stored notebook a page shows: ``notebooks/X.html`` or ``zh-CN/notebooks/X.html``."""
    folder = ROOT / "notebooks" / ("zh-CN" if page.startswith(CHINESE) else "")
    return json.loads((folder / f"{Path(page).stem}.ipynb").read_text(encoding="utf-8"))


def stored_figures(page: str) -> int:
    """How many PNG figures the page's notebook stores in its outputs (each must show)."""
    outputs = (o for cell in _notebook(page)["cells"] for o in cell.get("outputs", []))
    return sum("image/png" in o.get("data", {}) for o in outputs)


def has_math(page: str) -> bool:
    """Whether the page's notebook has TeX in its markdown (the page must then typeset it)."""
    cells = _notebook(page)["cells"]
    markdown = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    # a dollar sign in code (`$ASCEND_OPP_PATH`) is a shell variable, not TeX
    return any("$" in re.sub(r"```.*?```|`[^`]*`", "", text, flags=re.DOTALL) for text in markdown)


def is_notebook(page: str) -> bool:
    return page.removeprefix(CHINESE).startswith("notebooks/")


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no site in {SITE}: run `make site` first (`make test-site` does)")
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(SITE))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser(chromium):
    return chromium()


# Waits until MathJax (if the page loads it) has typeset the page; returns an error or null.
WAIT_FOR_MATHJAX = """
const done = arguments[arguments.length - 1];
const started = Date.now();
(function poll() {
  const mj = window.MathJax;
  if (document.readyState === "complete" && !document.querySelector("script[src*='mathjax']")) {
    done(null);
  } else if (mj && mj.startup && mj.startup.promise) {
    mj.startup.promise.then(() => done(null), (error) => done(String(error)));
  } else if (Date.now() - started > 20000) {
    done("MathJax did not start within 20 s");
  } else {
    setTimeout(poll, 50);
  }
})();
"""

# What the page shows, once loaded and typeset.
INSPECT = """
const images = Array.from(document.images).map((img) => ({
  src: img.currentSrc || img.src, loaded: img.complete && img.naturalWidth > 0,
}));
const math = Array.from(document.querySelectorAll(".math"));
const unrendered = math
  .filter((el) => !el.querySelector("mjx-container") || /\\\\\\(|\\\\\\[|\\$\\$/.test(
    Array.from(el.childNodes).filter((n) => n.nodeType === Node.TEXT_NODE)
      .map((n) => n.textContent).join("")))
  .map((el) => el.textContent.slice(0, 80));
// Raw TeX delimiters left in the prose (outside code) mean math that was never parsed.
const walker = document.createTreeWalker(document.querySelector("main") || document.body,
  NodeFilter.SHOW_TEXT, {acceptNode: (n) => n.parentElement.closest(
    "pre, code, script, style, textarea, mjx-container, .math")
    ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
const raw = [];
while (walker.nextNode()) {
  const text = walker.currentNode.textContent;
  if (/\\$\\$|\\\\\\(|\\\\\\[|\\$[^$\\s][^$]*\\$/.test(text)) raw.push(text.trim().slice(0, 80));
}
return {
  title: document.title,
  images: images,
  math: math.length,
  typeset: document.querySelectorAll(".math mjx-container").length,
  errors: document.querySelectorAll("mjx-merror, .MathJax_Error").length,
  unrendered: unrendered,
  raw: raw,
};
"""


@pytest.mark.parametrize("language", ["", CHINESE], ids=["en", "zh-CN"])
def test_the_site_has_every_notebook_and_the_kernel_page(language):
    pages = {page.removeprefix(language) for page in PAGES if page.startswith(language)}
    assert {"index.html", "kernel.html", "search.html", "glossary.html"} <= pages
    assert NOTEBOOKS, "no notebooks"
    assert {f"notebooks/{name}.html" for name in NOTEBOOKS} <= pages
    index = (SITE / language / "index.html").read_text()
    for name in NOTEBOOKS:  # the learning path lists every notebook, in order
        assert f'href="notebooks/{name}.html"' in index, name
    positions = [index.index(f'href="notebooks/{name}.html"') for name in NOTEBOOKS]
    assert positions == sorted(positions)
    kernel = (SITE / language / "kernel.html").read_text()
    for source in KERNEL_SOURCES:  # included, highlighted as C++
        assert source in kernel, source
    assert kernel.count('class="highlight-c++') == len(KERNEL_SOURCES)


def test_both_languages_have_the_same_pages():
    chinese = {page.removeprefix(CHINESE) for page in PAGES if page.startswith(CHINESE)}
    english = {page for page in PAGES if not page.startswith(CHINESE)}
    assert chinese == english


def test_the_site_needs_no_other_host():
    """No page loads a script, style sheet, font or image from outside the site."""
    external = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*(?:src|href)=["'](?:https?:)?//""")
    for page in PAGES:
        text = (SITE / page).read_text()
        loaded = [match.group(0) for match in external.finditer(text)]
        assert not loaded, f"{page}: {loaded}"
    assert (SITE / "_static" / "mathjax" / "tex-mml-chtml.js").is_file()


class Anchors(HTMLParser):
    """A page's ids, its links, and each section's heading: [section id, text, permalink]."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.links: list[str] = []
        self.headings: list[list] = []
        self._section: str | None = None  # a section's id, until its heading opens
        self._heading: list | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.append(attributes["id"])
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])
            if self._heading is not None and "headerlink" in (attributes.get("class") or ""):
                self._heading[2] = attributes["href"]
        if tag == "section":
            self._section = attributes.get("id")
        elif re.fullmatch(r"h[1-6]", tag) and self._section is not None:
            self._heading = [self._section, "", None]
            self.headings.append(self._heading)
            self._section = None

    def handle_endtag(self, tag: str) -> None:
        if re.fullmatch(r"h[1-6]", tag):
            self._heading = None

    def handle_data(self, data: str) -> None:
        if self._heading is not None:
            self._heading[1] += data


HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")


def test_chinese_headings_have_readable_anchors():
    """A Chinese heading's anchor is its slug, Chinese kept (``#1-平台``), never docutils' ``#id1``.

    docutils keeps only a title's ASCII letters; docs/zh-CN/conf.py makes MyST's slug each
    section's id instead, which the permalink and the tables of contents then use.
    """
    headings = 0
    for page in (page for page in PAGES if page.startswith(CHINESE)):
        parsed = Anchors((SITE / page).read_text())
        for section_id, text, permalink in parsed.headings:
            assert not re.fullmatch(r"id\d+", section_id), f"{page}: {text!r} -> #{section_id}"
            assert permalink == f"#{section_id}", f"{page}: {text!r}: {permalink} != #{section_id}"
            chinese = "".join(HAN.findall(text))  # punctuation between its runs is dropped
            assert chinese == "".join(HAN.findall(section_id)), f"{page}: {text!r} -> #{section_id}"
            headings += bool(HAN.search(text))
        assert len(parsed.ids) == len(set(parsed.ids)), f"{page}: an id twice"
    assert headings > 100, f"only {headings} Chinese headings"


def test_the_english_sections_keep_docutils_ids():
    """The English sections keep docutils' ids (``#the-derivative-by-hand``): old links land."""
    for page in (page for page in PAGES if not page.startswith(CHINESE)):
        for section_id, text, permalink in Anchors((SITE / page).read_text()).headings:
            assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", section_id), f"{page}: {text!r}"
            assert permalink == f"#{section_id}", f"{page}: {text!r}"


def test_every_link_to_an_anchor_lands():
    """Each ``#fragment`` link, on the page or to another page of the site, names an id there."""
    ids = {page: set(Anchors((SITE / page).read_text()).ids) for page in PAGES}
    for page in PAGES:
        for link in Anchors((SITE / page).read_text()).links:
            target, fragment = urldefrag(link)
            if not fragment or re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue  # no fragment, or another site
            path = (Path(page).parent / unquote(target)).as_posix() if target else page
            path = os.path.normpath(path)
            if path in ids:
                assert unquote(fragment) in ids[path], f"{page}: {link}"


def _has_reference_section(page: str) -> bool:
    """Whether the page's notebook ends with a Reference section (tools/cell_census.py)."""
    return any(cell_census.is_reference_heading(cell) for cell in _notebook(page)["cells"])


def test_reference_sections_are_folded():
    """Each notebook's Reference section is on its page, folded in a closed ``<details>``."""
    folded = 0
    for page in (page for page in PAGES if page.startswith(("notebooks/", CHINESE + "notebooks/"))):
        html = (SITE / page).read_text()
        found = re.findall(r'<details class="reference-section"( open)?>', html)
        assert len(found) == _has_reference_section(page), page
        assert not any(found), f"{page}: the Reference section is stored open"
        folded += len(found)
    assert folded >= 2 * 7, f"only {folded} folded Reference sections"


def test_a_link_into_a_folded_reference_section_opens_it(site_url, browser):
    page = next(p for p in PAGES if p.startswith("notebooks/04_") and _has_reference_section(p))
    html = (SITE / page).read_text()
    body = html[html.index('<details class="reference-section">') :]
    target = re.search(r'<section id="([^"]+)"', body).group(1)  # a heading inside the fold
    browser.get(f"{site_url}/{page}#{target}")
    WebDriverWait(browser, PATIENCE).until(
        lambda b: b.execute_script(
            "return document.querySelector('details.reference-section').open"
        )
    )


#: The notebook whose worked solutions are opened on the site, in both editions.
EXERCISES = "02_floats_ulps_and_overflow"
# A page's worked solutions as the browser shows them: summary, open or not, code, and whether
# the code is visible (never while its block is closed).
SOLUTIONS = """
return Array.from(document.querySelectorAll("details:not(.reference-section)")).map((d) => ({
  summary: d.querySelector("summary").textContent.trim(),
  open: d.open,
  code: d.querySelector("pre") ? d.querySelector("pre").textContent.trim() : null,
  shown: !!d.querySelector("pre") && d.querySelector("pre").checkVisibility(),
}));
"""


@pytest.mark.parametrize("page", [p for p in PAGES if p.endswith(f"notebooks/{EXERCISES}.html")])
def test_worked_solutions_are_folded_and_open_on_a_click(page, site_url, browser):
    """Each worked solution is a closed ``<details>`` with its summary; a click shows its code."""
    cells = _notebook(page)["cells"]
    code = [solution_code(cell).strip() for cell in cells if cell_census.is_solution(cell)]
    summaries = SUMMARIES[LANGUAGE if page.startswith(CHINESE) else ENGLISH]
    browser.get(f"{site_url}/{page}")
    shown = browser.execute_script(SOLUTIONS)
    assert shown == [
        {"summary": summaries.format(number=n), "open": False, "code": c, "shown": False}
        for n, c in enumerate(code, 1)
    ], shown
    browser.execute_script(
        "document.querySelector('details:not(.reference-section) > summary').click()"
    )
    first = browser.execute_script(SOLUTIONS)[0]
    assert first["open"] and first["shown"], first


@pytest.mark.parametrize("page", PAGES)
def test_page_renders(page, site_url, browser, screenshots):
    browser.get_log("browser")  # drop what an earlier page left
    browser.get(f"{site_url}/{page}")
    WebDriverWait(browser, PATIENCE).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )
    browser.set_script_timeout(PATIENCE)
    mathjax_error = browser.execute_async_script(WAIT_FOR_MATHJAX)
    # Images decode asynchronously: wait until each has finished, loaded or not.
    WebDriverWait(browser, PATIENCE).until(
        lambda d: d.execute_script("return Array.from(document.images).every((i) => i.complete)")
    )
    state = browser.execute_script(INSPECT)
    browser.save_screenshot(str(screenshots / (page.replace("/", "__")[: -len(".html")] + ".png")))

    logged = browser.get_log("browser")
    severe = [entry["message"] for entry in logged if entry["level"] == "SEVERE"]
    assert not severe, f"console errors on {page}: {severe}"
    assert mathjax_error is None, mathjax_error
    broken = [image["src"] for image in state["images"] if not image["loaded"]]
    assert not broken, f"images that did not load on {page}: {broken}"
    assert state["errors"] == 0, f"{state['errors']} MathJax errors on {page}"
    assert not state["unrendered"], f"math MathJax did not render on {page}: {state['unrendered']}"
    assert state["typeset"] >= state["math"], state
    assert not state["raw"], f"raw TeX in the text of {page}: {state['raw']}"
    if is_notebook(page):
        figures = stored_figures(page)
        assert state["math"] > 0 or not has_math(page), f"{page}: no math"
        assert len(state["images"]) >= figures, f"{page}: {figures} figures stored, {state}"
    switch = browser.execute_script(LANGUAGE_SWITCH)
    other = page.removeprefix(CHINESE) if page.startswith(CHINESE) else CHINESE + page
    assert switch == [f"{site_url}/{other}"], f"{page}: language switch {switch}"
    if page.startswith(CHINESE):
        assert browser.execute_script("return document.documentElement.lang") == "zh-CN"
        missing = browser.execute_script(MISSING_GLYPHS, None)
        assert not missing, f"{page}: characters drawn without a glyph: {missing}"
        if is_notebook(page) and stored_figures(page):
            # A second picture: the first figure, with the Chinese text around it.
            browser.execute_script("document.querySelector('main img').scrollIntoView()")
            name = page.replace("/", "__")[: -len(".html")] + "__figure.png"
            browser.save_screenshot(str(screenshots / name))


# The links of the language switch on the page (absolute URLs).
LANGUAGE_SWITCH = """
return Array.from(document.querySelectorAll("a.language-switch")).map((a) => a.href);
"""


def test_the_glyph_check_sees_a_missing_glyph(site_url, browser):
    browser.get(f"{site_url}/{CHINESE}index.html")
    # U+30000 (CJK Extension G) is in no font installed here: the check must report it.
    assert browser.execute_script(MISSING_GLYPHS, "中文，\U00030000") == ["\U00030000"]


def search_results(browser, url: str) -> list[str]:
    """The result links the site's search page lists for ``url`` (which carries the query)."""
    browser.get(url)
    WebDriverWait(browser, PATIENCE).until(
        lambda d: d.execute_script(
            "return document.querySelectorAll('#search-results li a').length > 0"
        )
    )
    return browser.execute_script(
        "return Array.from(document.querySelectorAll('#search-results li a')).map((a) => a.href)"
    )


def test_search_finds_the_tiling_notebook(site_url, browser):
    links = search_results(browser, f"{site_url}/search.html?q=tiling")
    assert any("04_tiling" in link for link in links), links


@pytest.mark.parametrize(
    ("query", "notebook"),
    [("双缓冲", "06_the_pipeline_and_the_ub"), ("统一缓冲区的大小", "04_tiling")],
)
def test_chinese_search_finds_chinese_words(site_url, browser, query, notebook):
    # Typed without spaces, as Chinese is: the query is cut into the words the index knows.
    links = search_results(browser, f"{site_url}/{CHINESE}search.html?q={query}")
    assert any(f"/{CHINESE}notebooks/{notebook}" in link for link in links), links
