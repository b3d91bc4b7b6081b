"""The Frohlich experiment's prompt templates, one file per text, per language (``en/``,
``es/``, ``zh/``); loaded by the generic ``maai.domain.prompts.PromptSet``.

Besides the templates, each language has ``words.txt``: the short texts the code puts
around them (money, table headers, the public history's frame, markers), one
``key = value`` line each, every value itself a template. English is the reference: every
language must have every template and every word English has (:func:`check_languages`,
run when a config is loaded), so that a missing text is a startup error, never a fallback.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from string import Template

from maai.domain.prompts import MissingTemplateError, PromptSet

PROMPTS = PromptSet(__name__)

LANGUAGES = ("en", "es", "zh")
"""The languages a run or an agent may speak (docs/frohlich.md, Languages)."""
REFERENCE_LANGUAGE = "en"
WORDS = "words"


def template(name: str, language: str = "en") -> Template:
    return PROMPTS.template(name, language)


def render(template_name: str, language: str = "en", /, **values: object) -> str:
    return PROMPTS.render(template_name, language, **values)


def parse_words(text: str) -> dict[str, str]:
    """``key = value`` lines (``#`` comments, blank lines skipped); a value in double quotes
    keeps its leading and trailing spaces."""
    words: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(" = ")
        if not sep:
            raise ValueError(f"not a 'key = value' line: {line!r}")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        words[key.strip()] = value
    return words


@cache
def _words(prompts: PromptSet, language: str) -> Mapping[str, Template]:
    raw = parse_words(prompts.template(WORDS, language).template)
    return {key: Template(value) for key, value in raw.items()}


def word(language: str, key: str, /, **values: object) -> str:
    """The word (or short text) ``key`` of ``language``'s ``words.txt``, filled in."""
    if not values:
        return _plain_word(language, key)  # most words have no placeholder: made once
    return _template(language, key).substitute({k: str(v) for k, v in values.items()})


def _template(language: str, key: str) -> Template:
    try:
        return _words(PROMPTS, language)[key]
    except KeyError:
        raise MissingTemplateError(
            f"no word {key!r} in {language}/{WORDS}.txt of {PROMPTS.package}"
        ) from None


@cache
def _plain_word(language: str, key: str) -> str:
    return _template(language, key).substitute({})


def check_languages(languages: Iterable[str], prompts: PromptSet | None = None) -> None:
    """Raise :class:`MissingTemplateError`, naming the file, unless every language in
    ``languages`` has every template and every word the reference language has."""
    _check(PROMPTS if prompts is None else prompts, tuple(sorted(set(languages))))


@cache  # every config validation asks (a history's config is read often); a failure is not kept
def _check(prompts: PromptSet, languages: tuple[str, ...]) -> None:
    names = prompts.names(REFERENCE_LANGUAGE)
    keys = set(_words(prompts, REFERENCE_LANGUAGE))
    for language in languages:
        for name in names:
            prompts.template(name, language)
        missing = sorted(keys - set(_words(prompts, language)))
        if missing:
            raise MissingTemplateError(
                f"{language}/{WORDS}.txt of {prompts.package} lacks: {', '.join(missing)}"
            )
