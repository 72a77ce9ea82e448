"""The language of what the kernel and aclnn layers say to a learner: a hook the book sets.

A Chinese notebook runs the English code, so the messages a learner debugs with (a
:class:`~mishgrad.kernel.isolation.KernelError`, a refused plan, the build's progress line, ...)
are translated where they are made, as they are composed, their parts first. These layers may
not import the book (:mod:`mishgrad.book.i18n`), so :func:`mishgrad.book.language.use` hands its
translator down (:func:`set_translator`). What the C++ twin or the compiler wrote matches no
template and stays as written, as in the C example and CI logs.
"""

from collections.abc import Callable

_translator: Callable[[str], str] | None = None


def set_translator(translator: Callable[[str], str] | None) -> None:
    """Pass every message through ``translator`` from now on (``None``: show it as written)."""
    global _translator
    _translator = translator


def translate(text: str) -> str:
    """``text`` in the notebook's language: the book's translator, if one is set.

    ``output_strings`` finds the first argument of every call of this name, so
    ``translations/zh-CN`` must hold an entry for it.
    """
    return _translator(text) if _translator else text


class Ambiguous(str):
    """A word shown in English as written, but translated as what it means here.

    The translations hold one entry per English string, and ``"op"`` heads the column of
    AscendC calls in a trace (调用) but names the operator's library in notebook 08 (算子). Such
    a word carries its ``meaning``, an English phrase with an entry of its own (``output_strings``
    finds it by its keyword), which :func:`mishgrad.book.i18n.translate` looks up instead.
    """

    meaning: str

    def __new__(cls, text: str, *, meaning: str) -> "Ambiguous":
        """The word ``text``, to be translated as ``meaning``."""
        word = super().__new__(cls, text)
        word.meaning = meaning
        return word
