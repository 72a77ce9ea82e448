"""Sphinx configuration of the Chinese site: the English configuration, in Chinese.

Built by ``make site`` into ``docs/_build/html/zh-CN``, beside the English pages it mirrors
page for page. Sphinx's Chinese search splits words with jieba (pinned in requirements.txt).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from conf import *  # noqa: F403 -- the English site's settings, then the differences
from conf import setup as english_setup
from docutils import nodes
from docutils.transforms import Transform
from sphinx.search import languages as search_languages
from sphinx.search.zh import SearchChinese

language = "zh_CN"
html_context = {**html_context, "site_language": "zh-CN"}  # noqa: F405 -- from conf
# Queries typed without spaces are cut into the words the index knows (see the file).
html_js_files = [*html_js_files, "chinese-search.js"]  # noqa: F405 -- from conf
html_title = "mishgrad（中文版）"
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]
# Every heading gets a slug, which SlugSectionIds below makes its section's id.
myst_heading_anchors = 6


class _ChineseSearch(SearchChinese):
    """Sphinx's Chinese search, with the name its English stemmer has in JavaScript.

    Sphinx 9.0.4 ships the English stemmer for Chinese pages (Latin words in Chinese text
    are stemmed as English) but names it ``ChineseStemmer`` in ``language_data.js``, where
    only ``EnglishStemmer`` is defined: every page would log a script error.
    """

    language_name = "English"


search_languages["zh"] = _ChineseSearch


class SlugSectionIds(Transform):
    """Make each heading's slug its section's id: the permalink and the tables of contents.

    docutils makes a section's id from the title's ASCII letters only, so ``## 1. 平台`` gets
    ``id1``: unreadable, and renumbered when a heading is added above it. MyST's slug of the
    heading (``1-平台``, by GitHub's rule: see myst_heading_slug_func in ../conf.py) is already
    on the section, as a secondary id (myst-parser's AddSlugIds); this puts it first. The
    docutils id stays as a secondary anchor, so an old link still lands; a section named by an
    explicit ``(label)=`` keeps the label first. MyST's ``[](#slug)`` links then point at the slug.
    """

    default_priority = 701  # after myst-parser's AddSlugIds (700), before ResolveAnchorIds (879)

    def apply(self, **kwargs: object) -> None:
        """Put each section's slug first among its ids (unless an explicit label is first)."""
        document = self.document
        explicit = {
            document.nameids[name]
            for name, is_explicit in document.nametypes.items()
            if is_explicit and document.nameids.get(name)
        }
        moved: dict[str, str] = {}
        for section in document.findall(nodes.section):
            slug, ids = section.get("slug"), section["ids"]
            if not slug or slug not in ids or ids[0] == slug or ids[0] in explicit:
                continue
            moved[ids[0]] = slug
            ids.remove(slug)
            ids.insert(0, slug)
        # myst-parser's record of slug -> (line, section id, title), which resolves [](#slug)
        # links on this page and from others (the same dictionary is in the environment)
        slugs = getattr(document, "myst_slugs", {})
        for slug, (line, section_id, title) in list(slugs.items()):
            if section_id in moved:
                slugs[slug] = (line, moved[section_id], title)


def setup(app) -> None:
    """The English site's setup, plus the Chinese headings' readable anchors."""
    english_setup(app)
    app.add_transform(SlugSectionIds)
