"""The notebook's language: one call switches its text, its figures and its scratch copies.

The Chinese notebooks run the English notebooks' code cells unchanged, after one extra cell:
``language.use("zh-CN")``. From then on the helpers' text is translated
(:mod:`mishgrad.book.i18n`), figures are drawn with a Chinese font and their text translated
as they are displayed (:mod:`mishgrad.book.notebook_display`), so are the messages the kernel
and aclnn layers compose for a learner (errors, progress lines, listing titles:
:func:`mishgrad.kernel.messages.set_translator`), and a notebook's scratch copy of the kernel
lives in a folder of its own language, so the two editions never share a learner's edits
(:mod:`mishgrad.kernel.scratch`).
"""

from mishgrad.kernel import messages, scratch

from . import i18n, notebook_display


def use(language: str) -> None:
    """Show text and figures in ``language`` (``"en"`` or ``"zh-CN"``) from now on.

    Raises
    ------
    ValueError
        If the language is not ``"en"`` or one of
        :data:`mishgrad.book.translation_files.LANGUAGES`.
    """
    i18n.set_current(language)
    notebook_display.use_language(language)
    english = language == i18n.ENGLISH
    messages.set_translator(None if english else i18n.translate)
    scratch.set_subfolder("" if english else language)
