"""Shared ground of the participant-text parsers: result types, clean-up, principle mentions.

A mention is a place where a text names a principle unambiguously: by name ("maximizing the
floor"), by letter in brackets ("(c)", "c)") or by number after a word that says so
("principle 3"). Bare words ("floor", "c") are read only where the structure around them
(a list item, a table cell, a chain "c > a > d > b") makes them unambiguous.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from maai.domain.frohlich.amounts import fold_width
from maai.domain.frohlich.types import Principle
from maai.domain.reading import Invalid as Invalid
from maai.domain.reading import Parsed as Parsed
from maai.domain.reading import ParseResult as ParseResult
from maai.domain.reading import Undecided as Undecided

CANONICAL_ORDER: tuple[Principle, ...] = tuple(Principle)
LETTERS = {p.value: p for p in Principle}
BY_NUMBER = {str(i): p for i, p in enumerate(Principle, 1)}


def clean_text(text: str) -> str:
    """Lower case, markdown emphasis removed, arrows and quotes unified, full-width characters
    folded to ASCII (``（c）`` → ``(c)``, ``。`` → ``.``); lines kept."""
    text = fold_width(text.replace("\r\n", "\n"))
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    # Bounded whitespace keeps every pattern below linear on degenerate (padded) output.
    text = re.sub(r"[ \t\u00a0\u202f\u2009]+", _squeeze_spaces, text)
    text = re.sub(r"\n\s*\n(?:\s*\n)+", "\n\n", text)
    text = re.sub("[\u201c\u201d\u201e\u00ab\u00bb\u300c\u300d\u300e\u300f]", '"', text)
    text = re.sub(r"^(\s*)\*\s", r"\1- ", text, flags=re.MULTILINE)  # "* item" is a bullet
    text = re.sub(r"\*\*|__|\*|`|~~", "", text)
    text = re.sub(r"^\s*#+\s", "", text, flags=re.MULTILINE)
    text = re.sub(r"^\s*>\s?", "", text, flags=re.MULTILINE)
    text = re.sub(r"->|=>|→|⟶|➔|≻|>>|›", ">", text)
    text = re.sub(r"<-|≺|<<|‹", "<", text)
    return text.lower()


def _squeeze_spaces(match: re.Match[str]) -> str:
    run = match.group(0)
    at_line_start = match.start() == 0 or match.string[match.start() - 1] == "\n"
    if at_line_start:
        return run.expandtabs(4)[:16]  # indentation tells sub-items from items
    return " "


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    principle: Principle


_MAX = r"maximi[sz](?:e|es|ed|ing|ation\s+of)\s+(?:the\s+)?"
_WITH = r"(?:income\s+)?(?:with|subject\s+to|under|given)\s+(?:a\s+|an\s+|the\s+)?"
_NAME_PATTERNS: tuple[tuple[Principle, str], ...] = (
    (
        Principle.FLOOR_CONSTRAINT,
        rf"(?:{_MAX})?average\s+{_WITH}(?:floor|minimum)(?:[\s-]+constraint)?",
    ),
    (Principle.FLOOR_CONSTRAINT, r"floor[\s-]+constrain(?:t|ed|ts)(?:\s+average)?"),
    (Principle.RANGE_CONSTRAINT, rf"(?:{_MAX})?average\s+{_WITH}range(?:[\s-]+constraint)?"),
    (
        Principle.RANGE_CONSTRAINT,
        r"range[\s-]+(?:constrain(?:t|ed|ts)|limit(?:ed|s)?)(?:\s+average)?",
    ),
    (Principle.FLOOR, rf"{_MAX}floor(?:\s+income)?"),
    (Principle.FLOOR, r"(?:floor[\s-]+maximi[sz]\w*|max(?:imum)?[\s-]+floor|maximin)"),
    (Principle.AVERAGE, rf"{_MAX}average(?:\s+income)?"),
    (Principle.AVERAGE, r"(?:average[\s-]+maximi[sz]\w*|max(?:imum)?[\s-]+average)"),
)
_LETTER_PATTERNS: tuple[str, ...] = (
    r"\(\s*([a-d])\s*\)",
    r"\[([a-d])\]",
    r"(?<![\w(\[])([a-d])\)",
    r"\b(?:principle|principe|principio|prinzip|option)\s+\(?([a-d])\b\)?",
    r"(?:原则|选项)\s*\(?([a-d])(?![a-z])\)?",
)
_NUMBER_PATTERN = (
    r"\b(?:principle|principe|principio|prinzip|option)\s*(?:#|no\.?\s*|number\s*)?([1-4])\b"
    r"|(?:原则|选项)\s*(?:#|第)?([1-4])(?!\d)"
)


_NAME_RES: tuple[tuple[Principle, re.Pattern[str]], ...] = tuple(
    (principle, re.compile(rf"\b{pattern}\b")) for principle, pattern in _NAME_PATTERNS
)
_LETTER_RES: tuple[re.Pattern[str], ...] = tuple(re.compile(p) for p in _LETTER_PATTERNS)
_NUMBER_RE = re.compile(_NUMBER_PATTERN)


def find_mentions(text: str) -> list[Mention]:
    """Principle mentions in cleaned text that cannot be anything else (names, "(c)",
    "principle 3"); bare words such as "floor" are left to structured contexts."""
    return list(_mentions(text))


# The ranking parser asks about the same clauses several times, and the decider may parse
# an answer again on every walk until its event is folded: remember recent texts.
@lru_cache(maxsize=2048)
def _mentions(text: str) -> tuple[Mention, ...]:
    found: list[Mention] = []
    taken = bytearray(len(text))  # earlier (more specific) patterns claim their characters

    def claim(match: re.Match[str], principle: Principle) -> None:
        if not any(taken[match.start() : match.end()]):
            taken[match.start() : match.end()] = b"\x01" * (match.end() - match.start())
            found.append(Mention(match.start(), match.end(), principle))

    for principle, name_re in _NAME_RES:
        for m in name_re.finditer(text):
            claim(m, principle)
    for letter_re in _LETTER_RES:
        for m in letter_re.finditer(text):
            claim(m, LETTERS[m.group(1)])
    for m in _NUMBER_RE.finditer(text):
        claim(m, BY_NUMBER[m.group(1) or m.group(2)])
    return tuple(sorted(found, key=lambda m: m.start))


def identify_principle(item: str) -> Principle | None:
    """The principle a list item, table cell or chain element names: its first explicit
    mention, else the head words ("Floor", "Average with floor", "c.")."""
    mentions = find_mentions(item)
    if mentions:
        return mentions[0].principle
    head = re.split(r"\s[-–—]\s|:|\(|\bbecause\b|,|;|\.\s", item.strip(), maxsplit=1)[0]
    head = head.strip(" .-–—:")
    letter = re.fullmatch(r"\(?([a-d])\)?\.?", head)
    if letter:
        return LETTERS[letter.group(1)]
    words = set(re.findall(r"[a-z]+", head))
    if len(words) > 8:
        return None
    if "range" in words:
        return Principle.RANGE_CONSTRAINT
    if "floor" in words:
        constrained = words & {"average", "mean", "constraint", "constrained", "minimum"}
        return Principle.FLOOR_CONSTRAINT if constrained else Principle.FLOOR
    if words & {"average", "mean"}:
        return Principle.AVERAGE
    return None
