"""Deterministic parsers for the collaboration game's answers (docs/collaboration.md §2).

Answers come in labelled parts (``MESSAGE:``, ``BELIEF:``, ``PREDICTION:``, ``REASONING:``,
``CHOICE:``), as the prompts ask. A number must be one whole number from 0 to 100; a choice
one of the agent's own options. Where the text cannot be read for sure the parser says
Undecided (the utility agent reads the numbers or the choice next); a hedged or out-of-range
number is Invalid (the participant is told why). A wrong value is far worse than a missing
one.
"""

from __future__ import annotations

import re
from typing import Any

from maai.domain.reading import Invalid, Parsed, ParseResult, Undecided

LABELS = ("message", "belief", "prediction", "reasoning", "choice")
_LABEL = re.compile(
    r"^[ \t>*_#-]*(?:\*\*|__)?\s*(message|belief|prediction|reasoning|choice|decision)"
    r"\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?",
    re.IGNORECASE | re.MULTILINE,
)

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_DIGITS = "|".join(k for k, v in _UNITS.items() if 0 < v < 10)
_WORD_NUMBER = re.compile(
    r"\b(?:(?P<hundred>(?:one\s+|a\s+)?hundred)"
    rf"|(?P<tens>{'|'.join(_TENS)})(?:[\s-](?P<unit>{_DIGITS}))?"
    rf"|(?P<small>{'|'.join(_UNITS)}))\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"(?:\b(?:around|about|approximately|approx\.?|roughly|maybe|perhaps|somewhere|circa|"
    r"more\s+or\s+less|give\s+or\s+take|or\s+so|ish)\b|-ish\b|~|≈)",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![\w.,])(-?\d+(?:[.,]\d+)?)(?![\w.,]*\d)")
_RANGE = re.compile(r"\d\s*(?:-|–|—|to)\s*\d")


def sections(text: str) -> dict[str, str]:
    """The labelled parts of an answer (label -> text up to the next label); ``decision``
    counts as ``choice``. A label given twice keeps its last part (models correct
    themselves)."""
    found: dict[str, str] = {}
    marks = list(_LABEL.finditer(text))
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        label = mark.group(1).lower()
        label = "choice" if label == "decision" else label
        found[label] = text[mark.end() : end].strip().strip("*_").strip()
    return found


def before_labels(text: str) -> str:
    first = _LABEL.search(text)
    return (text[: first.start()] if first else text).strip()


def parse_percent(text: str, what: str) -> ParseResult[int]:
    """One whole number from 0 to 100: ``70``, ``70%``, ``70/100``, ``seventy percent``."""
    cleaned = text.strip().strip("*_`\"'").strip()
    if not cleaned:
        return Undecided(f"no {what} given")
    if _HEDGE.search(cleaned):
        return Invalid(
            f"Your {what} must be one whole number from 0 to 100, not an approximate one "
            f"({cleaned[:40]!r})."
        )
    if _RANGE.search(cleaned):
        return Invalid(f"Your {what} must be one number from 0 to 100, not a range.")
    cleaned = re.sub(r"\s*(?:/|out\s+of)\s*100\b", "", cleaned, flags=re.IGNORECASE)
    numbers = [m.group(1) for m in _NUMBER.finditer(cleaned)]
    words = [_word_value(m) for m in _WORD_NUMBER.finditer(cleaned)]
    if len(numbers) + len(words) != 1:
        return Undecided(f"expected one number for the {what}, found {len(numbers) + len(words)}")
    if words:
        value = words[0]
    else:
        raw = numbers[0].replace(",", ".")
        if "." in raw:
            number = float(raw)
            if number <= 1:
                return Undecided(f"{raw} could be a probability or a percentage")
            if not number.is_integer():
                return Invalid(f"Your {what} must be a whole number from 0 to 100.")
        value = int(float(raw))
    if not 0 <= value <= 100:
        return Invalid(f"Your {what} must be between 0 and 100; {value} is not.")
    return Parsed(value)


def _word_value(match: re.Match[str]) -> int:
    if match.group("hundred"):
        return 100
    if match.group("small"):
        return _UNITS[match.group("small").lower()]
    value = _TENS[match.group("tens").lower()]
    if match.group("unit"):
        value += _UNITS[match.group("unit").lower()]
    return value


def parse_option(text: str, own: list[str], others: list[str]) -> ParseResult[str]:
    """One of the agent's own options, named by its name (``A``, ``Option A``, ``(A)``)."""
    cleaned = text.strip().strip("*_`\"'").strip()
    if not cleaned:
        return Undecided("no choice given")
    named = _options_named(cleaned, own)
    foreign = [o for o in _options_named(cleaned, others) if o.upper() not in _upper(own)]
    if len(named) == 1 and not foreign:
        return Parsed(named[0])
    if not named and foreign:
        return Invalid(f"You do not have option {foreign[0]}; your options are {', '.join(own)}.")
    if not named:
        return Undecided("no option named")
    return Undecided(f"several options named: {', '.join(named)}")


def _upper(names: list[str]) -> set[str]:
    return {n.upper() for n in names}


def _options_named(text: str, names: list[str]) -> list[str]:
    found = []
    for name in names:
        word = re.escape(name)
        if len(name) == 1:
            # A single letter counts alone, or after "option", or in brackets: never an
            # article ("a partnership") or a pronoun.
            pattern = rf"(?:^|\boption\s+|\(|\b(?:choose|pick|select)\s+){word}(?:\)|\b)"
            if re.search(pattern, text, re.IGNORECASE if name != "A" and name != "I" else 0) or (
                text.strip().rstrip(".").upper() == name.upper()
            ):
                found.append(name)
        elif re.search(rf"\b{word}\b", text, re.IGNORECASE):
            found.append(name)
    return found


def read_turn(text: str, *, message: bool, belief: bool, prediction: bool) -> ParseResult[Any]:
    """A turn's labelled answer: the parts asked for, each read by its own rule. The message
    is taken as written (before the labels when it has none), never by the utility agent."""
    parts = sections(text)
    value: dict[str, Any] = {"reasoning": parts.get("reasoning") or None}
    undecided: list[str] = []
    if message:
        body = parts.get("message")
        if body is None:
            body = before_labels(text)
        if not body.strip():
            return Invalid("Your message to your partner was empty; write one after MESSAGE:.")
        value["message"] = body.strip()
    for wanted, label in ((belief, "belief"), (prediction, "prediction")):
        if not wanted:
            continue
        part = parts.get(label)
        if part is None:
            undecided.append(f"no {label.upper()}: line")
            value[label] = None
            continue
        result = parse_percent(part, label)
        if isinstance(result, Invalid):
            return result
        if isinstance(result, Undecided):
            undecided.append(result.reason)
            value[label] = None
            continue
        value[label] = result.value
    if undecided:
        return Undecided("; ".join(undecided))
    return Parsed(value)


def read_decision(text: str, own: list[str], others: list[str]) -> ParseResult[Any]:
    parts = sections(text)
    choice = parts.get("choice")
    result = parse_option(choice if choice is not None else text, own, others)
    if isinstance(result, Parsed):
        return Parsed({"option": result.value, "reasoning": parts.get("reasoning") or None})
    return result
