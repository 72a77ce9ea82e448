"""Excerpts of kernel sources: whole definitions (not calls), marker ranges, coloured listings."""

import re
from collections.abc import Iterator

import pytest
from IPython.core.formatters import DisplayFormatter

from mishgrad.book import listing
from mishgrad.kernel import messages, source

HEADER = source.OPERATOR_DIR / "op_kernel" / "mish_grad.h"


def test_read_method_finds_definitions_not_calls():
    init = source.read_method(HEADER, "Init", with_comment=False)
    assert init.startswith("__aicore__ inline void Init(")
    assert init.rstrip().endswith("}")
    copy_in = source.read_method(HEADER, "CopyIn", with_comment=False)
    assert copy_in.startswith("__aicore__ inline void CopyIn(")  # not the call in Process
    assert "LoadTile(gradQueue_" in copy_in
    window = source.read_method(HEADER, "RootWindow")
    assert window.startswith("//") and "CompareScalar(" in window and "Select(" in window
    entry = source.read_method(source.OPERATOR_DIR / "op_kernel" / "mish_grad.cpp", "mish_grad")
    assert entry.startswith('extern "C"') and "kernel.Process();" in entry
    tiling = source.OPERATOR_DIR / "common" / "mish_grad_tiling.h"
    budget = source.read_method(tiling, "KernelBudget")
    assert 'add("grad queue"' in budget
    with pytest.raises(ValueError, match="no definition"):
        source.read_method(HEADER, "NoSuchMethod")


def test_read_method_on_hand_made_source(tmp_path):
    path = tmp_path / "example.h"
    path.write_text(
        "int declared(int a);\n"
        "// adds one\n"
        "// to a\n"
        "static int f(int a)\n"
        "{\n"
        "    if (a) { return a + 1; }  // { in a comment\n"
        "    return declared(a);\n"
        "}\n"
        "void broken() {\n"
        "    {\n"
    )
    assert source.read_method(path, "f") == (
        "// adds one\n// to a\nstatic int f(int a)\n{\n"
        "    if (a) { return a + 1; }  // { in a comment\n    return declared(a);\n}"
    )
    with pytest.raises(ValueError, match="declared but not defined"):
        source.read_method(path, "declared")
    with pytest.raises(ValueError, match="do not balance"):
        source.read_method(path, "broken")


def test_read_lines(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("a\nbegin\nb\nend\nc\n")
    assert source.read_lines(path, "begin", "end") == "begin\nb\nend"
    assert source.read_lines(path, "b") == "begin\nb\nend\nc"
    assert source.read_lines(path, last="begin") == "a\nbegin"
    with pytest.raises(ValueError, match="not found"):
        source.read_lines(path, "missing")
    with pytest.raises(ValueError, match="not found after"):
        source.read_lines(path, "end", "begin")


CODE = "// the sum\nint sum(int a, int b) {\n    return a < b && b > 0 ? a + b : 0;\n}"


def shown(shown_listing: source.Listing) -> dict[str, str]:
    """The representations IPython displays, by MIME type."""
    data, _ = DisplayFormatter().format(shown_listing)
    return data


def span_style(html: str, text: str) -> str:
    """The inline style of the span Pygments put around ``text``."""
    match = re.search(rf'<span style="([^"]*)">{re.escape(text)}</span>', html)
    assert match, f"no span around {text!r} in {html}"
    return match.group(1)


@pytest.fixture
def titles_translated() -> Iterator[None]:
    messages.set_translator(lambda text: text.replace("kernel", "核函数"))
    yield
    messages.set_translator(None)


def test_a_listing_is_coloured_html_with_markdown_and_text_fallbacks():
    data = shown(listing.source_block(CODE, title="kernel/x.h — Sum"))
    assert set(data) == {"text/html", "text/markdown", "text/plain"}
    html = data["text/html"]
    keyword, comment = span_style(html, "return"), span_style(html, "// the sum")
    assert "color: #" in keyword and "color: #" in comment and keyword != comment
    assert span_style(html, "// kernel/x.h — Sum")  # the title: a comment line, coloured
    assert html.startswith('<div class="highlight"><pre style="background: #')
    assert "<style" not in html and "class=" not in html.removeprefix('<div class="highlight">')
    assert data["text/markdown"] == f"```cpp\n// kernel/x.h — Sum\n{CODE}\n```"
    assert data["text/plain"] == f"// kernel/x.h — Sum\n{CODE}"
    assert shown(listing.source_block("int x;"))["text/markdown"] == "```cpp\nint x;\n```"


def test_a_listing_escapes_html():
    html = listing.source_block("a < b && c;", title="<x> & y").html()
    assert "a < b" not in html and "&&" not in html and "<x>" not in html
    assert "&lt;" in html and "&amp;&amp;" in html and "// &lt;x&gt; &amp; y" in html


def test_a_listing_shows_the_same_output_every_time():
    first = shown(listing.source_block(CODE, title="kernel/x.h"))
    assert shown(listing.source_block(CODE, title="kernel/x.h")) == first
    assert not re.search(r"\bid=", first["text/html"])


def test_a_listing_shows_its_title_translated(titles_translated):
    block = listing.source_block("int x;", title="kernel/x.h")
    assert block.title == "kernel/x.h"  # the English stays the listing's; it shows translated
    data = shown(block)
    assert data["text/markdown"] == "```cpp\n// 核函数/x.h\nint x;\n```"
    assert "// 核函数/x.h</span>" in data["text/html"]


def test_other_languages_take_their_comment_and_unknown_ones_fail():
    block = listing.source_block("x = 1", language="python", title="setup")
    assert block.markdown() == "```python\n# setup\nx = 1\n```"
    assert span_style(block.html(), "# setup")
    with pytest.raises(ValueError, match="no-such-language"):
        listing.source_block("x", language="no-such-language")


def test_a_scratch_diff_is_plain_below_the_book_and_coloured_through_it():
    diff = source.Listing("-a\n+b", "diff")
    assert set(shown(diff)) == {"text/markdown", "text/plain"}  # no HTML below the book
    coloured = listing.source_block(diff)
    assert (coloured.text, coloured.language) == ("-a\n+b", "diff")
    assert set(shown(coloured)) == {"text/html", "text/markdown", "text/plain"}
