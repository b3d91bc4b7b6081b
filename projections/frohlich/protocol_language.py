"""The language audit (docs/frohlich.md §8, Languages): a prompt to an agent of language L
holds no template sentence of another language, once what anyone said (statements, private
reasoning, memories, answers), the agents' names and their personas are set aside.

The rule takes the templates as data: every sentence of every language's template files
(``domain/frohlich/prompts/<language>/*.txt``, placeholders cut out), read as text; no
rendering code is shared with what it checks. A Spanish agent whose poll prompt fell back to
the English template, or an English sentence planted in a Mandarin prompt, fails it; the
multilingual config, whose agents hear each other's words as spoken, passes."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from importlib import resources

from maai.domain.events import ModelCallCompleted, ModelCallRequested
from maai.domain.frohlich.events import MemoryUpdated, ReasoningRecorded, StatementMade
from maai.projections.frohlich.protocol_base import (
    Audit,
    EntryCheck,
    Violation,
    in_one_pass,
    rule,
)
from maai.projections.history import Entry
from maai.projections.leaks import TextIndex

TEMPLATES = "maai.domain.frohlich.prompts"
LANGUAGES = ("en", "es", "zh")
UTILITY_TEMPLATES = ("extract.txt", "extract_system.txt")  # the utility agent's, not a reader's

_PLACEHOLDER = re.compile(r"\$(?:\{\w+\}|\w+)")
_BREAK = re.compile(r"\n|(?<=[.!?。！？：:])\s*")
_CJK = re.compile(r"[\u4e00-\u9fff]")
MIN_WORDS = 4  # a sentence of fewer words may occur in any language (a name, "Dist. 1")
MIN_CJK = 6


def _distinctive(sentence: str) -> bool:
    if len(_CJK.findall(sentence)) >= MIN_CJK:
        return True
    return len(re.findall(r"[^\W\d_]{2,}", sentence)) >= MIN_WORDS


def sentences(template: str) -> set[str]:
    """The template's fixed sentences: the text between its placeholders, cut at line and
    sentence ends, kept where long enough to belong to one language."""
    out = set()
    for fragment in _PLACEHOLDER.split(template.replace("$$", "$")):
        for piece in _BREAK.split(fragment):
            sentence = piece.strip(" \t-|*#>()[]\"'“”")
            if _distinctive(sentence):
                out.add(sentence)
    return out


@cache
def packaged_templates() -> Mapping[str, tuple[str, ...]]:
    """Every language's template files, as text (``words.txt`` included)."""
    root = resources.files(TEMPLATES)
    return {
        language: tuple(
            f.read_text(encoding="utf-8")
            for f in sorted(root.joinpath(language).iterdir(), key=lambda f: f.name)
            if f.name.endswith(".txt") and f.name not in UTILITY_TEMPLATES
        )
        for language in LANGUAGES
    }


class ForeignSentences:
    """For each language, the template sentences of the other languages that its own
    templates do not contain (a sentence shared by two languages proves nothing)."""

    def __init__(self, templates: Mapping[str, Iterable[str]]) -> None:
        texts = {language: list(found) for language, found in templates.items()}
        own = {language: "\n".join(found) for language, found in texts.items()}
        self.index: dict[str, TextIndex] = {}
        for language in texts:
            foreign = {
                sentence
                for other, found in texts.items()
                if other != language
                for text in found
                for sentence in sentences(text)
                if sentence not in own[language]
            }
            self.index[language] = TextIndex(foreign)

    def found_in(self, text: str, language: str) -> set[str]:
        index = self.index.get(language)
        return index.found_in(text) if index is not None else set()


@cache
def _packaged() -> ForeignSentences:
    return ForeignSentences(packaged_templates())


@rule(
    "prompt_language",
    "§8",
    "a prompt to an agent of language L holds no template sentence of another language, once "
    "what anyone said, the agents' names and their personas are set aside",
)
def prompt_language(audit: Audit) -> Iterator[Violation]:
    return audit.found_in_one_pass(_languages)


def language_violations(audit: Audit, foreign: ForeignSentences) -> EntryCheck:
    """The rule's check of each event, with the templates given as data."""
    said: list[str] = [a.name for a in audit.config.agents]
    said += [a.personality for a in audit.config.agents if a.personality]
    languages = {name: audit.config.language_of(name) for name in audit.names}
    excused: set[str] = set()
    searched: dict[str, int] = {}  # how many said texts a sentence was looked for in

    def said_before(sentence: str) -> bool:
        """Whether anyone said ``sentence`` (each said text searched once per sentence: a
        long run's prompts find the same few sentences again and again)."""
        if sentence not in excused:
            start = searched.get(sentence, 0)
            if any(sentence in text for text in said[start:]):
                excused.add(sentence)
            searched[sentence] = len(said)
        return sentence in excused

    def check(entry: Entry) -> Iterator[Violation]:
        event = entry.event
        if isinstance(event, StatementMade | ReasoningRecorded):
            said.append(event.text)
        elif isinstance(event, MemoryUpdated):
            said.append(event.memory)
        elif isinstance(event, ModelCallCompleted):
            said.append(event.answer.text)
        elif isinstance(event, ModelCallRequested) and event.request.agent in languages:
            request = event.request
            language = languages[request.agent]
            prompt = f"{request.system}\n{request.input}"
            found = foreign.found_in(prompt, language)
            # A sentence someone said, or in a name or persona, is not the code's: set aside.
            unsaid = sorted(s for s in found if not said_before(s))
            if unsaid:
                yield Violation(
                    "prompt_language",
                    entry.seq,
                    f"{request.address}: a prompt in {language} holds a template sentence of "
                    f"another language: {unsaid[0]!r}"
                    + (f" (and {len(unsaid) - 1} more)" if len(unsaid) > 1 else ""),
                )

    return check


@in_one_pass
def _languages(audit: Audit) -> EntryCheck:
    return language_violations(audit, _packaged())
