"""Lenient reading of free text: which principle, which amount, which order, yes or no.

Used two ways: by the participant to follow what others said in the public history, and by
the simulated utility agent to emulate a forgiving extractor. Every reader returns ``None``
when the text does not say: nothing here ever fills in a value that is not written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from maai.domain.frohlich.types import Certainty, Principle


@dataclass(frozen=True)
class Stance:
    """A principle with its amount; unlike ``PrincipleChoice`` the amount may be missing."""

    principle: Principle
    amount: int | None = None

    @property
    def complete(self) -> bool:
        return (self.amount is not None) == self.principle.needs_amount


_LETTER = re.compile(r"\(\s*([a-dA-D])\s*\)")
# Keyword forms for text that names a principle without its letter. Order matters: the
# constrained forms must be tried before the bare floor/average forms they contain.
_KEYWORDS: tuple[tuple[Principle, re.Pattern[str]], ...] = (
    (
        Principle.FLOOR_CONSTRAINT,
        re.compile(r"floor[- ]constraint|average(?: income)? with a floor", re.I),
    ),
    (
        Principle.RANGE_CONSTRAINT,
        re.compile(r"range[- ]constraint|average(?: income)? with a range", re.I),
    ),
    (Principle.FLOOR, re.compile(r"maximi[sz](?:e|ing) the floor|floor income", re.I)),
    (Principle.AVERAGE, re.compile(r"maximi[sz](?:e|ing) the average(?! income with| with)", re.I)),
)
_AMOUNT = re.compile(
    r"\$\s?(?P<dollars>\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?P<k>\s?[kK]\b)?"
    r"|(?P<grouped>\b\d{1,3}(?:,\d{3})+\b)"
    r"|(?P<thousands>\b\d+(?:\.\d+)?)\s?[kK]\b"
)
# Below this a number is a payoff in dollars or a count, never a floor or a range.
_MIN_AMOUNT = 100
_STANCE_MARKER = re.compile(
    r"\b(?:i (?:still |now |also |would |will |really )?(?:support|favou?r|prefer|choose|"
    r"vote|back|pick|argue for|go with|stick with)|my (?:vote|choice|position|preference)|"
    r"i'?m (?:voting|going) (?:for|with)|i'll (?:go|stick) with)\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_CERTAINTY_WORDS = r"very[ _]unsure|very[ _]sure|no[ _]opinion|unsure|sure"
_CERTAINTY_LABELLED = re.compile(rf"certainty\W{{0,6}}({_CERTAINTY_WORDS})\b", re.I)
_CERTAINTY_ANY = re.compile(rf"(?<!not )(?<!not very )\b({_CERTAINTY_WORDS})\b", re.I)
_NUMBERED = re.compile(r"^\W{0,3}([1-4])\s*[.):\-]\s*(.+)$", re.M)
_YES = re.compile(r"\b(yes|agree|let's vote|ready to vote|hold the vote now)\b", re.I)
_NO = re.compile(r"\b(no|not yet|more discussion|not ready)\b", re.I)
_LEADING = re.compile(r"^\W*(yes|no)\b", re.I)


def mentions(text: str) -> list[tuple[int, int, Principle]]:
    """(start, end, principle) of each principle named; letters win over keywords."""
    found = [(m.start(), m.end(), Principle(m.group(1).lower())) for m in _LETTER.finditer(text)]
    if found:
        return found
    for principle, pattern in _KEYWORDS:
        for m in pattern.finditer(text):
            if not any(s <= m.start() < e for s, e, _ in found):
                found.append((m.start(), m.end(), principle))
    return sorted(found)


def amount_in(text: str) -> int | None:
    """The first plausible dollar amount in ``text``."""
    for m in _AMOUNT.finditer(text):
        raw = m.group("dollars") or m.group("grouped") or m.group("thousands")
        value = float(raw.replace(",", ""))
        if m.group("thousands") or m.group("k"):
            value *= 1000
        if value >= _MIN_AMOUNT:
            return int(round(value))
    return None


def _stance_at(sentence: str, spots: list[tuple[int, int, Principle]], i: int) -> Stance:
    start, end, principle = spots[i]
    if not principle.needs_amount:
        return Stance(principle)
    stop = spots[i + 1][0] if i + 1 < len(spots) else len(sentence)
    return Stance(principle, amount_in(sentence[end:stop]))


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


@lru_cache(maxsize=4096)  # the same public statements are read again on every later turn
def stance_in(text: str, *, strict: bool = False) -> Stance | None:
    """The position ``text`` argues for: the first principle in a first-person sentence
    ("I support ...", "My vote: ..."), else the first principle named at all. ``strict``
    refuses that last guess when several principles are named ("torn between (a) and (c)")."""
    parts = [(s, mentions(s)) for s in sentences(text)]
    for sentence, spots in parts:
        marker = _STANCE_MARKER.search(sentence)
        if marker and spots:
            after = [i for i, spot in enumerate(spots) if spot[0] >= marker.start()]
            return _stance_at(sentence, spots, after[0] if after else 0)
    if strict and len(distinct_principles(text)) != 1:
        return None
    for sentence, spots in parts:
        if spots:
            return _stance_at(sentence, spots, 0)
    return None


def distinct_principles(text: str) -> set[Principle]:
    return {p for _, _, p in mentions(text)}


def ranking_in(text: str) -> tuple[Principle, ...] | None:
    """A complete best-to-worst order, from a numbered list or, failing that, from the order
    in which all four principles are first named. Anything less is no ranking."""
    numbered: dict[int, Principle] = {}
    for m in _NUMBERED.finditer(text):
        spots = mentions(m.group(2))
        if spots and int(m.group(1)) not in numbered:
            numbered[int(m.group(1))] = spots[0][2]
    order = tuple(numbered[k] for k in sorted(numbered))
    if len(numbered) == 4 and len(set(order)) == 4:
        return order
    first: list[Principle] = []
    for _, _, principle in mentions(text):
        if principle not in first:
            first.append(principle)
    return tuple(first) if len(first) == 4 else None


def certainty_in(text: str) -> Certainty | None:
    labelled = _CERTAINTY_LABELLED.search(text)
    if labelled:
        return _certainty(labelled.group(1))
    found = {_certainty(m.group(1)) for m in _CERTAINTY_ANY.finditer(text)}
    return found.pop() if len(found) == 1 else None


def _certainty(word: str) -> Certainty:
    return Certainty(re.sub(r"[ _]", "_", word.lower()))


def poll_answer_in(text: str) -> bool | None:
    leading = _LEADING.match(text)
    if leading:
        return leading.group(1).lower() == "yes"
    yes, no = bool(_YES.search(text)), bool(_NO.search(text))
    return yes if yes != no else None
