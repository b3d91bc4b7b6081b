"""Small text readers for the audits, written apart from the game's own parsers and rules
(``domain/collaboration/parsing.py``, ``rules.py``) so that an audit can catch their bugs:
labelled parts of an answer, the numbers a text states, sentences."""

from __future__ import annotations

import re

# A label starts a line, maybe after markdown and one qualifier word ("Updated belief"), and
# ends at a colon, maybe after a short object ("Message to Ben", "Belief (0-100)").
_LABEL = re.compile(
    r"^[\s>*_#-]*(?:[a-z]+\s+)?(belief|prediction|reasoning|message|reply|choice|decision)\b"
    r"[^:：\n]{0,40}[:：]",
    re.IGNORECASE | re.MULTILINE,
)
_ALIASES = {"decision": "choice", "reply": "message"}
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w]|[.,]\d)")
_UNITS = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
]  # fmt: skip
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_WORD = re.compile(
    rf"\b(?:(?P<tens>{'|'.join(_TENS)})(?:[\s-]+(?P<unit>{'|'.join(_UNITS[1:10])}))?"
    rf"|(?P<small>{'|'.join(_UNITS)})|(?P<hundred>hundred))\b",
    re.IGNORECASE,
)
_SCALE = re.compile(r"\b0\s*(?:to|and|-|–)\s*100\b|\bout\s+of\s+100\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")


def parts(text: str) -> dict[str, list[str]]:
    """Label (lower case; ``decision`` counts as ``choice``, ``reply`` as ``message``) ->
    every part it labels."""
    found: dict[str, list[str]] = {}
    marks = list(_LABEL.finditer(text))
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        label = mark.group(1).lower()
        label = _ALIASES.get(label, label)
        found.setdefault(label, []).append(text[mark.end() : end].strip())
    return found


def without(text: str, label: str) -> str:
    """``text`` without the parts labelled ``label``."""
    marks = list(_LABEL.finditer(text))
    kept, start = [], 0
    for i, mark in enumerate(marks):
        if _ALIASES.get(mark.group(1).lower(), mark.group(1).lower()) == label:
            kept.append(text[start : mark.start()])
            start = marks[i + 1].start() if i + 1 < len(marks) else len(text)
    kept.append(text[start:])
    return "".join(kept)


def numbers(text: str) -> set[int]:
    """Every whole number from 0 to 100 the text may state: digits (70, 70.0), a probability
    (0.7 → 70) or words (seventy)."""
    out: set[int] = set()
    for match in _NUMBER.finditer(text):
        value = float(match.group(0).replace(",", "."))
        if value <= 1 and ("." in match.group(0) or "," in match.group(0)):
            out.add(round(value * 100))
        if value.is_integer():
            out.add(int(value))
    for match in _WORD.finditer(text):
        if match.group("hundred"):
            out.add(100)
        elif match.group("small"):
            out.add(_UNITS.index(match.group("small").lower()))
        else:
            value = 20 + 10 * _TENS.index(match.group("tens").lower())
            if match.group("unit"):
                value += _UNITS.index(match.group("unit").lower())
            out.add(value)
    return {n for n in out if 0 <= n <= 100}


def stated_numbers(text: str) -> set[int]:
    """Whole numbers in ``text`` written as digits, leaving out the scale of the questions
    (``from 0 to 100``, ``out of 100``) and decimals."""
    text = _SCALE.sub(" ", text)
    return {int(m.group(0)) for m in _NUMBER.finditer(text) if m.group(0).isdigit()}


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


def blank(text: str, needles: list[str]) -> str:
    """``text`` with every occurrence of each needle cut out (longest first)."""
    for needle in sorted({n for n in needles if n}, key=len, reverse=True):
        text = text.replace(needle, " ")
    return text


def decimal(value: float) -> re.Pattern[str] | None:
    """A pattern for ``value`` written as the prompts write it (``0.75``), where it is a
    fraction that cannot be mistaken for a plain count."""
    written = f"{value:g}"
    if "." not in written:
        return None
    return re.compile(rf"(?<![\d.]){re.escape(written)}(?!\d)")
