"""How the Chinese edition is made and shown: drift named, templates found, helpers in Chinese.

The code that keeps the Chinese edition in step with the English (tools/production, and
mishgrad.book.translation_files, which reads the translations) names an edited English cell, an
untranslated string, a translation that lost a link, and leaves what a learner typed into a
Chinese notebook alone (or backs it up first); the helpers show their words, figures and
listings in the chosen language. That the repository's translations are complete and current
is a rule of the repository (tests/rules/translations.py).
"""

from __future__ import annotations

import io
import json
import shutil
import warnings
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from mishgrad.book import i18n, language, notebook_display, report, tiling_viz
from mishgrad.book import listing as book_listing
from mishgrad.book.exercises import UNANSWERED, wrong
from mishgrad.book.translation_files import parse
from mishgrad.kernel import scratch
from tools.production import learner_edits, notebook_translation, output_strings
from tools.production.translation_entries import english_hash, join_cjk_lines, rebased

LANGUAGE = "zh-CN"
ENGLISH = notebook_translation.english_notebooks()


@pytest.fixture
def chinese():
    """Helpers speak Chinese for one test, English again afterwards."""
    language.use(LANGUAGE)
    yield
    language.use(i18n.ENGLISH)


# --- drift is caught, and named ----------------------------------------------------------


def _edited_copy(tmp_path: Path, english: Path, edit) -> tuple[Path, dict]:
    notebook = json.loads(english.read_text(encoding="utf-8"))
    cell = edit(notebook)
    copy = tmp_path / english.name  # same name: it reads the same translation file
    copy.write_text(json.dumps(notebook), encoding="utf-8")
    return copy, cell


def _first_markdown(notebook: dict) -> dict:
    return next(c for c in notebook["cells"] if c["cell_type"] == "markdown")


def _add_a_sentence(notebook: dict) -> dict:
    """Edit the first markdown cell's English, as an author would; return the cell."""
    cell = _first_markdown(notebook)
    cell["source"] = "".join(cell["source"]) + "\nOne more sentence."
    return cell


def test_an_edited_english_cell_is_named(tmp_path: Path) -> None:
    copy, cell = _edited_copy(tmp_path, ENGLISH[0], _add_a_sentence)
    problems = notebook_translation.cell_problems(copy, LANGUAGE)
    assert [(p.cell_id, p.reason) for p in problems] == [
        (cell["id"], "the English changed since its translation")
    ]
    assert cell["id"] in str(problems[0]) and ENGLISH[0].name in str(problems[0])
    with pytest.raises(ValueError, match=cell["id"]):
        notebook_translation.translate_notebook(copy, LANGUAGE)


def test_build_leaves_a_notebook_with_untranslated_cells_alone(tmp_path: Path) -> None:
    copy, cell = _edited_copy(tmp_path, ENGLISH[0], _add_a_sentence)
    target = notebook_translation.translated_path(copy, LANGUAGE)
    before = target.read_bytes()
    written, skipped, _ = notebook_translation.build(LANGUAGE, [copy])
    assert written == [] and [p.cell_id for p in skipped[copy.name]] == [cell["id"]]
    assert target.read_bytes() == before


# --- what a learner typed into a Chinese notebook is never overwritten (issue 28) ---------

#: The Chinese notebook with an exercise cell (``answer = None``) and that cell's id.
TYPED_NOTEBOOK, ANSWER_CELL = "05_the_ascendc_kernel.ipynb", "cddb966b"


@pytest.fixture
def book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of notebooks/ (notebook 05, English and Chinese) that the generator writes to."""
    folder = tmp_path / "notebooks"
    (folder / LANGUAGE).mkdir(parents=True)
    shutil.copy(notebook_translation.NOTEBOOKS / TYPED_NOTEBOOK, folder)
    shutil.copy(notebook_translation.NOTEBOOKS / LANGUAGE / TYPED_NOTEBOOK, folder / LANGUAGE)
    monkeypatch.setattr(notebook_translation, "NOTEBOOKS", folder)
    monkeypatch.setattr(learner_edits, "BACKUPS", tmp_path / "backup")
    return folder


def _type_an_answer(chinese: Path, answer: str) -> None:
    """Type ``answer`` into the exercise cell and add a cell of one's own, as in JupyterLab."""
    notebook = json.loads(chinese.read_text(encoding="utf-8"))
    cell = next(c for c in notebook["cells"] if c["id"] == ANSWER_CELL)
    cell["source"] = "".join(cell["source"]).replace("answer = None", f"answer = {answer}")
    mine = {"cell_type": "code", "execution_count": None, "id": "my-notes", "metadata": {}}
    notebook["cells"].append(mine | {"outputs": [], "source": "# my notes"})
    chinese.write_text(json.dumps(notebook, indent=1, ensure_ascii=False), encoding="utf-8")


def test_build_refuses_to_overwrite_what_a_learner_typed(book: Path, capsys) -> None:
    chinese = book / LANGUAGE / TYPED_NOTEBOOK
    _type_an_answer(chinese, "42")
    typed = chinese.read_bytes()
    with pytest.raises(
        learner_edits.LearnerEditsError,
        match=rf"{TYPED_NOTEBOOK}: cells {ANSWER_CELL}, my-notes",
    ):
        notebook_translation.build(LANGUAGE, [book / TYPED_NOTEBOOK])
    assert notebook_translation.main(["build", str(book / TYPED_NOTEBOOK)]) == 1
    assert "FORCE=1" in capsys.readouterr().err
    assert chinese.read_bytes() == typed


def test_force_backs_the_notebook_up_then_regenerates_it(book: Path) -> None:
    chinese = book / LANGUAGE / TYPED_NOTEBOOK
    backups = []
    for answer in ("42", "43"):
        _type_an_answer(chinese, answer)
        written, _, made = notebook_translation.build(LANGUAGE, [book / TYPED_NOTEBOOK], force=True)
        assert written == [chinese] and len(made) == 1
        backups += made
    first, second = backups
    assert first != second and first.parent == second.parent
    assert TYPED_NOTEBOOK.removesuffix(".ipynb") in first.name
    assert "answer = 42" in first.read_text(encoding="utf-8")
    assert "answer = 43" in second.read_text(encoding="utf-8")
    regenerated = json.loads(chinese.read_text(encoding="utf-8"))
    assert "my-notes" not in {c["id"] for c in regenerated["cells"]}
    # every cell carries the hash of what the generator wrote, so none needs comparing
    assert learner_edits.learner_cells(regenerated, {"cells": []}) == []


def test_a_new_cell_is_untranslated_and_a_deleted_one_is_reported(tmp_path: Path) -> None:
    def edit(notebook: dict) -> dict:
        cell = _first_markdown(notebook)
        cell["id"] = "brand-new-cell"
        return cell

    copy, _ = _edited_copy(tmp_path, ENGLISH[0], edit)
    reasons = {(p.cell_id, p.reason) for p in notebook_translation.cell_problems(copy, LANGUAGE)}
    assert ("brand-new-cell", "not translated") in reasons
    assert any("no such cell" in reason for _, reason in reasons)


def test_a_new_string_in_code_is_untranslated(tmp_path: Path) -> None:
    def edit(notebook: dict) -> dict:
        cell = next(c for c in notebook["cells"] if c["cell_type"] == "code")
        cell["source"] = "".join(cell["source"]) + '\nwrong(f"A sentence nobody translated: {1}")'
        return cell

    copy, _ = _edited_copy(tmp_path, ENGLISH[0], edit)
    reasons = [p.reason for p in notebook_translation.text_problems(copy, LANGUAGE)]
    assert reasons == ["not translated: 'A sentence nobody translated: {0}'"]


def test_a_translation_must_keep_links_code_and_math() -> None:
    english = "See [the page](https://example.org/a) and `Exp`, where $e^x$ grows.\n## Heading"
    good = "见[该页面](https://example.org/a)与 `Exp`，其中 $e^x$ 增长。\n## 标题"
    assert notebook_translation.kept_problems(english, good) == []
    for bad in (
        good.replace("https://example.org/a", "https://example.org/b"),
        good.replace("`Exp`", "Exp"),
        good.replace("$e^x$", "$e^{x}$"),
        good.replace("## 标题", "### 标题"),
    ):
        assert len(notebook_translation.kept_problems(english, bad)) == 1, bad


def test_the_translation_file_format_rejects_mistakes(tmp_path: Path) -> None:
    path = tmp_path / "file.md"
    marker = f"<!-- cell abc en={english_hash('x')} -->"
    for text, message in [
        ("stray text\n" + marker + "\n译文\n", "before the first entry"),
        (marker + "\n译文\n" + marker + "\n又一次\n", "translated twice"),
        (marker + "\n\n", "no translation"),
        ("<!-- text: a {0} -->\n甲\n<!-- text: a {0} -->\n乙\n", "translated twice"),
    ]:
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=message):
            parse(path)


def test_cjk_line_breaks_are_joined_outside_code() -> None:
    text = "第一行\n第二行，a\nb 中\n```\n代码\n代码\n```"
    assert join_cjk_lines(text) == "第一行第二行，a\nb 中\n```\n代码\n代码\n```"


def test_a_link_out_of_the_notebooks_folder_gains_one_level() -> None:
    # Written as from the English notebook; the Chinese one sits in notebooks/zh-CN/.
    text = "[术语表](../docs/glossary.md)、[02](02_floats_ulps_and_overflow.ipynb)、[站点](https://a/../b)"
    assert rebased(text) == (
        "[术语表](../../docs/glossary.md)、[02](02_floats_ulps_and_overflow.ipynb)、"
        "[站点](https://a/../b)"
    )


# --- what the helpers show, in Chinese ----------------------------------------------------


def test_templates_are_found_in_code() -> None:
    source = (
        "wrong(f\"{n} tiles of {L:.2f} {'agree' if ok else 'differ'}\")\n"
        'table(rows, ["case", f"{dtype} bytes"])\n'
        'ax.set_title("a title {braces}")\n'
        'ax.plot(x, y, label=f"ours {x}")\n'
        'wrong(f"{value}")\n'
    )
    assert output_strings.templates_in_source(source) == [
        "{0} tiles of {1} {2}",
        "agree",
        "differ",
        "case",
        "{0} bytes",
        "a title {{braces}}",
        "ours {0}",
    ]


def test_translate_fills_fields_reorders_them_and_translates_word_values(chinese) -> None:
    exact, templates = i18n.catalog(LANGUAGE)
    assert exact and templates
    template = next(t for t in templates if t.fields >= 2)
    values = [f"<{i}>" for i in range(template.fields)]
    english = template.english.format(*values)
    assert i18n.translate(english) == template.translation.format(*values)
    word, word_zh = next((e, z) for e, z in exact.items() if e.isalpha())
    assert i18n.translate(word) == word_zh
    assert (
        i18n.translate("no entry matches this sentence, 42") == "no entry matches this sentence, 42"
    )
    assert i18n.translate(word, language=i18n.ENGLISH) == word


def test_helpers_speak_the_chosen_language(chinese) -> None:
    # After the status word, Chinese writes the full-width colon, with no space.
    assert repr(UNANSWERED) == "未作答：把 None 替换为你的答案，然后重新运行本单元格"
    assert repr(wrong("unexpected hint")) == "错误：unexpected hint"
    markdown = report.table([["x"]], ["dtype"]).data
    assert markdown.splitlines()[0] == f"| {i18n.translate('dtype')} |"
    language.use(i18n.ENGLISH)
    assert repr(UNANSWERED) == "unanswered: replace None with your answer and run the cell again"


def test_source_listings_show_their_title_in_the_chosen_language(chinese) -> None:
    exact, _ = i18n.catalog(LANGUAGE)
    english, chinese_text = next((e, z) for e, z in exact.items() if e.isalpha())
    listing = book_listing.source_block("int x;", title=english)
    assert listing.markdown() == f"```cpp\n// {chinese_text}\nint x;\n```"
    assert f"// {chinese_text}</span>" in listing.html()
    language.use(i18n.ENGLISH)
    assert f"// {english}</span>" in listing.html()


def test_english_prose_is_found_in_html_outputs_and_widgets_but_not_in_code() -> None:
    listing = book_listing.source_block("// reads the whole tile first\nint x;", title="kernel/x.h")
    prose = "<p>This sentence stayed English.</p><pre>// so did this comment here</pre>"
    outputs = {  # the listing's code comments are code, as in its fenced Markdown
        "listing": {"text/html": listing.html(), "text/markdown": listing.markdown()},
        "html": {"text/html": prose},
        "table": {
            "text/markdown": "| 部分 | 模型 |\n|---|---|\n| flush band | ieee, rtol / atol |"
        },
    }
    cells = [{"cell_type": "code", "id": i, "outputs": [{"data": d}]} for i, d in outputs.items()]
    drawing = {"outputs": [{"data": {"text/markdown": "This drawing stayed English."}}]}
    widgets = {output_strings.WIDGET_STATE: {"state": {"model": {"state": drawing}}}}
    found = output_strings.english_in_outputs({"cells": cells, "metadata": {"widgets": widgets}})
    assert [(cell, text.split("  <-  ")[0]) for cell, text in found] == [
        ("html", "This sentence stayed English"),
        ("table", "flush band"),  # a label left English; identifiers (ieee, rtol) are code
        ("widgets", "This drawing stayed English"),
    ]


def test_a_generated_notebook_keeps_its_own_widget_drawings() -> None:
    # The explorer of notebook 04 stores its drawing in the notebook's widget state, made when
    # the notebook ran: regenerating the Chinese notebook must not bring back the English one.
    english = next(path for path in ENGLISH if path.name.startswith("04_"))
    stored = json.loads(
        notebook_translation.translated_path(english, LANGUAGE).read_text(encoding="utf-8")
    )
    generated = notebook_translation.translate_notebook(english, LANGUAGE)
    assert generated["metadata"]["widgets"] == stored["metadata"]["widgets"]
    original = json.loads(english.read_text(encoding="utf-8"))["metadata"]["widgets"]
    assert stored["metadata"]["widgets"] != original


def test_use_rejects_an_unknown_language() -> None:
    with pytest.raises(ValueError, match="language"):
        language.use("fr")
    assert i18n.current() == i18n.ENGLISH


def test_figures_are_localized_and_render_without_missing_glyphs(chinese) -> None:
    assert notebook_display.cjk_font() is not None, "no Chinese font: run `make fonts`"
    exact, _ = i18n.catalog(LANGUAGE)
    english, chinese_text = next((e, z) for e, z in exact.items() if e.isalpha())
    figure, axes = plt.subplots()
    axes.set_title(english)
    axes.set_xticks([0, 1], [english, "x"])
    notebook_display.localize_figure(figure)
    assert axes.get_title() == chinese_text
    assert axes.xaxis.get_major_formatter().format_ticks([0, 1]) == [chinese_text, "x"]
    axes.set_xlabel(r"$x$ 的值与统一缓冲区")  # words around a formula use the first font
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns for every missing glyph
        figure.savefig(io.BytesIO(), format="png")
    plt.close(figure)


def test_a_figure_given_numbers_as_text_is_localized_as_it_is(chinese) -> None:
    # A learner's ax.text(x, y, 5) or integer tick labels raised a TypeError in the Chinese
    # edition (the translation matched a regular expression against an int).
    figure, axes = plt.subplots()
    axes.text(0.5, 0.5, 5)
    axes.set_xticks([0, 1], labels=[1, 2])
    notebook_display.localize_figure(figure)
    figure.savefig(io.BytesIO(), format="png")
    assert [t.get_text() for t in axes.get_xticklabels()] == ["1", "2"]
    plt.close(figure)


def test_a_font_installed_after_matplotlib_listed_the_fonts_is_found(monkeypatch) -> None:
    # As on a fresh machine where matplotlib cached its font list before `make fonts` ran.
    manager = notebook_display.font_manager.fontManager
    without = [entry for entry in manager.ttflist if entry.name not in notebook_display.CJK_FONTS]
    monkeypatch.setattr(manager, "ttflist", without)
    assert notebook_display.cjk_font() in notebook_display.CJK_FONTS


def test_scratch_copies_are_kept_apart_by_language(chinese, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MISHGRAD_SCRATCH", str(tmp_path))
    copy = scratch.scratch_kernel("05")
    assert copy.path == tmp_path / LANGUAGE / "05" / "mish_grad"
    language.use(i18n.ENGLISH)
    assert scratch.scratch_kernel("05").path == tmp_path / "05" / "mish_grad"
    shutil.rmtree(tmp_path)


def test_the_tiling_legends_name_each_kind_of_core_once(chinese) -> None:
    labels = [patch.get_label() for patch in tiling_viz.legend_handles(["big", "small", "last"])]
    assert labels == ["大核", "小核", "最后一个核", "尾块"]  # not 大核核: "{0} core" after "big"
