"""Sphinx configuration of the Chinese site: the English configuration, in Chinese.

Built by ``make site`` into ``docs/_build/html/zh-CN``, beside the English pages it mirrors
page for page. Sphinx's Chinese search splits words with jieba (pinned in requirements.txt).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from conf import *  # noqa: F403 -- the English site's settings, then the differences
from sphinx.search import languages as search_languages
from sphinx.search.zh import SearchChinese

language = "zh_CN"
html_context = {**html_context, "site_language": "zh-CN"}  # noqa: F405 -- from conf
# Queries typed without spaces are cut into the words the index knows (see the file).
html_js_files = ["chinese-search.js"]
html_title = "mishgrad（中文版）"
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]


class _ChineseSearch(SearchChinese):
    """Sphinx's Chinese search, with the name its English stemmer has in JavaScript.

    Sphinx 9.0.4 ships the English stemmer for Chinese pages (Latin words in Chinese text
    are stemmed as English) but names it ``ChineseStemmer`` in ``language_data.js``, where
    only ``EnglishStemmer`` is defined: every page would log a script error.
    """

    language_name = "English"


search_languages["zh"] = _ChineseSearch
