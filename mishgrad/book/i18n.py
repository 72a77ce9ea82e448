"""The language of what the helpers show: computed sentences, tables, figures and verdicts.

Once a Chinese notebook has called ``language.use("zh-CN")`` (:mod:`mishgrad.book.language`),
what the helpers show passes through :func:`translate`, which looks it up in the ``text:``
entries of ``translations/zh-CN/*.md``.

An entry's English side is a template: the literal text of the f-string that made the string,
with ``{0}``, ``{1}`` … where its fields were. :func:`translate` matches the finished string
against the templates, takes the field values out, translates each value that is itself a
translated string (``"yes"`` → ``"是"``), and puts the values into the translated template.
A string no entry matches is shown as it is (``tests/rules/translations.py`` keeps the entries
complete).
"""

import functools
import re
import string
from dataclasses import dataclass
from typing import Final

from mishgrad.kernel.messages import Ambiguous

from .translation_files import LANGUAGES, language_dir, parse

ENGLISH: Final = "en"
_WORD: Final = re.compile(r"[A-Za-z]{2,}")
#: The separator after a label ("wrong: ..."), where a language has its own: Chinese writes
#: the full-width colon, with no space after it.
_COLONS: Final = {"zh-CN": "："}
_current = ENGLISH


def set_current(language: str) -> None:
    """Translate the helpers' text into ``language`` (``"en"`` or ``"zh-CN"``) from now on.

    Raises
    ------
    ValueError
        If the language is not ``"en"`` or one of
        :data:`mishgrad.book.translation_files.LANGUAGES`.
    """
    global _current
    if language != ENGLISH and language not in LANGUAGES:
        raise ValueError(f"language must be one of {(ENGLISH, *LANGUAGES)}, not {language!r}")
    _current = language


def current() -> str:
    """The language helpers show text in."""
    return _current


@dataclass(frozen=True)
class Template:
    """One ``text:`` entry, compiled: the English template as a regular expression."""

    english: str
    pattern: re.Pattern[str]
    fields: int
    translation: str


def worth_translating(template: str) -> bool:
    """A template with a word of two or more letters outside its fields."""
    return bool(_WORD.search(re.sub(r"\{\d+\}", "", template)))


def fields_of(template: str) -> list[str]:
    """The field names of a template, in order (``["0", "1"]`` for ``"{0} of {1}"``)."""
    return [field for _, field, _, _ in string.Formatter().parse(template) if field is not None]


def _compile(english: str, translation: str) -> Template:
    pieces = []
    for literal, field, _, _ in string.Formatter().parse(english):
        pieces.append(re.escape(literal))
        if field is not None:
            pieces.append(f"(?P<f{field}>.*?)")
    pattern = re.compile("".join(pieces), re.DOTALL)
    return Template(english, pattern, len(fields_of(english)), translation)


@functools.cache
def catalog(language: str) -> tuple[dict[str, str], tuple[Template, ...]]:
    """A language's entries: exact strings, and templates with fields (most literal text first).

    Raises
    ------
    ValueError
        If two files translate the same English differently, or a template has no word
        (two letters) outside its fields.
    """
    merged: dict[str, str] = {}
    for path in sorted(language_dir(language).glob("*.md")):
        for english, translation in parse(path).texts.items():
            if merged.setdefault(english, translation) != translation:
                raise ValueError(f"{path.name}: {english!r} is translated differently elsewhere")
    exact = {
        english.replace("{{", "{").replace("}}", "}"): translation
        for english, translation in merged.items()
        if not fields_of(english)
    }
    templates = [_compile(e, t) for e, t in merged.items() if fields_of(e)]
    for template in templates:  # translate() skips text without a word: so must templates
        if not worth_translating(template.english):
            raise ValueError(f"{template.english!r} has no word outside its fields")
    templates.sort(key=lambda t: -len(t.pattern.pattern))
    return exact, tuple(templates)


def colon(language: str | None = None) -> str:
    """The separator after a label ("wrong: ...") in the current language (or ``language``)."""
    return _COLONS.get(language or _current, ": ")


def translate(text: str, language: str | None = None) -> str:
    """``text`` in the current language (or ``language``); unchanged when no entry matches.

    An :class:`~mishgrad.kernel.messages.Ambiguous` word is looked up as what it means.
    """
    language = language or _current
    if language == ENGLISH or not isinstance(text, str) or not text:
        return text  # a number given as a figure's text (ax.text(0, 0, 5)) stays as it is
    if isinstance(text, Ambiguous):
        meant = translate(text.meaning, language)
        return text if meant == text.meaning else meant
    exact, templates = catalog(language)
    if text in exact:
        return exact[text]
    if not worth_translating(text):  # every template has a word: numbers alone match none
        return text
    for template in templates:
        match = template.pattern.fullmatch(text)
        if match:
            # A value may itself be a translated string (a word, a phrase): each is shorter
            # than the text, so this ends.
            values = [translate(match[f"f{i}"], language) for i in range(template.fields)]
            return template.translation.format(*values)
    return text
