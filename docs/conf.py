"""Sphinx configuration of the mishgrad site: the notebooks with their stored outputs, offline.

Nothing is executed here (nbval executes the notebooks); MathJax is copied from the pinned
``django-static-mathjax`` package into ``_static/mathjax``, so no page loads anything from
outside the site.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from pathlib import Path

from docutils import nodes
from docutils.transforms import Transform

project = "mishgrad"
author = "the mishgrad authors"
copyright = "the mishgrad authors, MIT licence"

extensions = ["myst_nb", "sphinx.ext.mathjax"]

# docs/notebooks is a symbolic link to ../notebooks: one page per notebook, as stored. The
# Chinese site is a second build (docs/zh-CN/conf.py) into zh-CN/ under this one.
exclude_patterns = [
    "_build",
    "**/.ipynb_checkpoints",
    "Thumbs.db",
    ".DS_Store",
    "zh-CN",
    "notebooks/zh-CN",
]
language = "en"
nb_execution_mode = "off"
nb_merge_streams = True
# Markdown outputs (verdicts, tables) are MyST, as in the cells: tables and $math$ render.
nb_render_markdown_format = "myst"
# The explorer widget needs a live kernel; the site shows its text fallback (the notebook
# draws the same starting state as a static figure) and loads no widget JavaScript.
nb_ipywidgets_js = {}
nb_mime_priority_overrides = [("*", "application/vnd.jupyter.widget-view+json", None)]

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
# Headings' slugs by GitHub's rule, pinned against a change of MyST's default: lowercase, spaces
# to hyphens, punctuation dropped, letters of every script (Chinese too) kept, a repeated
# heading suffixed -1, -2. Each slug is a heading's secondary anchor (a <span id>): the English
# sections keep docutils' ids; the Chinese site makes the slugs the ids (docs/zh-CN/conf.py).
myst_heading_slug_func = "github"

html_theme = "sphinx_book_theme"
html_title = "mishgrad"
# Every page links to the same page in the other language (_templates/language-switch.html).
templates_path = [str(Path(__file__).parent / "_templates")]
html_theme_options = {
    "article_header_end": ["language-switch.html", "article-header-buttons.html"],
    "show_toc_level": 2,
    "home_page_in_toc": True,
    "use_download_button": False,
    "use_fullscreen_button": False,
}
# A fresh browser has no stored colour mode; without a default the theme logs an error.
# site_language picks the language switch's target (_templates/language-switch.html).
html_context = {"default_mode": "light", "site_language": "en"}
html_static_path = [str(Path(__file__).parent / "_static")]
html_css_files = ["mishgrad.css"]
# Opens a folded Reference section when a link or the table of contents points into it.
html_js_files = ["reference-open.js"]
html_favicon = str(Path(__file__).parent / "_static" / "favicon.svg")
html_last_updated_fmt = None
html_copy_source = False

# MathJax 3, served from the site itself.
mathjax_path = "mathjax/tex-mml-chtml.js"
# A non-empty MathJax 3 configuration (myst-parser adds the classes MathJax processes).
mathjax3_config = {"chtml": {"displayAlign": "center"}}


def mathjax_es5() -> Path:
    """The MathJax 3 distribution (its es5 folder) shipped by django-static-mathjax."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("MathJax is missing: install the pins of requirements.txt")
    es5 = Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax" / "es5"
    if not (es5 / "tex-mml-chtml.js").is_file():
        raise RuntimeError(f"no MathJax 3 distribution at {es5}")
    return es5


def copy_mathjax(app, exception) -> None:
    """Vendor MathJax into the built site, next to the theme's static files."""
    if exception is None and app.builder.format == "html":
        shutil.copytree(mathjax_es5(), Path(app.outdir) / "_static" / "mathjax", dirs_exist_ok=True)


#: Each notebook ends with a Reference section (tools/cell_census.py): what one looks up rather
#: than reads. Its heading in each language, and the line that unfolds it on the site.
REFERENCE_SECTIONS = {"Reference": "Show the reference material", "参考资料": "展开参考资料"}


class FoldReference(Transform):
    """Fold each Reference section's content into a closed ``<details>`` below its heading.

    JupyterLab stores the section collapsed (its heading cell's ``jp-MarkdownHeadingCollapsed``);
    this gives the site the same: the heading stays in the page and the table of contents, its
    content opens with one click (or by following a link into it: _static/reference-open.js).
    """

    default_priority = 880  # after the section ids are settled (SlugSectionIds, docs/zh-CN)

    def apply(self, **kwargs: object) -> None:
        """Wrap the body of every section titled as in REFERENCE_SECTIONS."""
        for section in list(self.document.findall(nodes.section)):
            title = section[0] if section.children else None
            if not isinstance(title, nodes.title) or title.astext() not in REFERENCE_SECTIONS:
                continue
            summary = REFERENCE_SECTIONS[title.astext()]
            opening = f'<details class="reference-section"><summary>{summary}</summary>'
            section.insert(1, nodes.raw("", opening, format="html"))
            section.append(nodes.raw("", "</details>", format="html"))


#: A notebook's relative link to a page of docs/: ``../docs/glossary.md`` from notebooks/,
#: ``../../docs/glossary.md`` from notebooks/zh-CN/, as JupyterLab follows it.
DOCS_LINK = re.compile(r"\]\((?:\.\./)+docs/(?P<page>[\w-]+\.md)")


def link_docs_pages(app, docname: str, content: list[str]) -> None:
    """Point each notebook's links to a page of docs/ at that page of the site being built.

    MyST resolves a link from where the notebook really is (docs/notebooks is a link to
    notebooks/), so the English notebooks' links land on the English pages as they are. The
    Chinese site is built from docs/zh-CN: its notebooks' links are pointed at its own page of
    the same name (its glossary includes the bilingual one).
    """
    if not docname.startswith("notebooks/"):
        return
    folder = Path(app.env.doc2path(docname)).resolve().parent

    def on_this_site(link: re.Match[str]) -> str:
        page = Path(app.srcdir) / link["page"]
        return f"]({os.path.relpath(page, folder)}" if page.is_file() else link[0]

    content[0] = DOCS_LINK.sub(on_this_site, content[0])


def setup(app) -> None:
    """Check for MathJax now and copy it once the pages are written; fold Reference sections.

    Notebooks' links to docs/ pages are pointed at the site's pages (:func:`link_docs_pages`).
    """
    mathjax_es5()  # fail early, before the build, when the package is missing
    app.connect("build-finished", copy_mathjax)
    app.connect("source-read", link_docs_pages)
    app.add_transform(FoldReference)
