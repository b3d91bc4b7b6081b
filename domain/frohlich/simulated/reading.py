"""Lenient reading of free text: which principle, which amount, which order, yes or no.

Used two ways: by the participant to follow what others said in the public history, and by
the simulated utility agent to emulate a forgiving extractor. Every reader returns ``None``
when the text does not say: nothing here ever fills in a value that is not written. Each
reader reads English, Spanish and Mandarin alike (a group may mix them): principle names,
amounts (``$13,000``, ``$13.000``, ``13.000 dólares``, ``13,000美元``), certainty words and
yes or no.
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
        re.compile(
            r"floor[- ]constraint|average(?: income)? with a floor"
            r"|(?:maximizar el )?ingreso promedio con un m[ií]nimo(?: garantizado)?"
            r"|m[ií]nimo garantizado|在最低收入限制下最大化平均收入|最低收入限制",
            re.I,
        ),
    ),
    (
        Principle.RANGE_CONSTRAINT,
        re.compile(
            r"range[- ]constraint|average(?: income)? with a range"
            r"|(?:maximizar el )?ingreso promedio con un l[ií]mite al rango"
            r"|l[ií]mite al rango|在收入范围限制下最大化平均收入|收入范围限制",
            re.I,
        ),
    ),
    (
        Principle.FLOOR,
        re.compile(
            r"maximi[sz](?:e|ing) the floor|floor income|(?:maximizar el )?ingreso m[ií]nimo"
            r"|最大化最低收入",
            re.I,
        ),
    ),
    (
        Principle.AVERAGE,
        re.compile(
            r"maximi[sz](?:e|ing) the average(?! income with| with)"
            r"|(?:maximizar el )?ingreso promedio(?! con)|最大化平均收入",
            re.I,
        ),
    ),
)
_AMOUNT = re.compile(
    # Spanish groups thousands with a dot ("$13.000", "13.000 dólares"); Mandarin writes the
    # currency after the number ("13,000美元"). Tried before the English forms.
    r"\$?\s?(?P<dotted>\b\d{1,3}(?:\.\d{3})+)(?!\d|\.\d)(?:,\d\d)?"
    r"|(?P<yuan>\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?美元"
    r"|\$\s?(?P<dollars>\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?P<k>\s?[kK]\b)?"
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
_STANCE_MARKER_ES_ZH = re.compile(
    r"\b(?:(?:sigo )?apoyando|apoyo|prefiero|sigo prefiriendo|elijo|voto por|me quedo con"
    r"|defiendo|me pasar[eé] a|mi (?:voto|elecci[oó]n|posici[oó]n|preferencia))\b"
    r"|我(?:仍然|现在|会)?(?:支持|选择|选|倾向于|投票给|主张|转向)|我的(?:投票|选择|立场|偏好)",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|\n+")
_CERTAINTY_WORDS = r"very[ _]unsure|very[ _]sure|no[ _]opinion|unsure|sure"
_CERTAINTY_WORDS_ES = r"muy inseguro|muy seguro|sin opini[oó]n|inseguro|seguro"
_CERTAINTY_WORDS_ZH = r"非常不确定|非常确定|无意见|不确定|确定(?!程度)"
_CERTAINTY_LABELLED = re.compile(
    rf"(?:certainty|certeza|确定程度)\W{{0,6}}"
    rf"({_CERTAINTY_WORDS}|{_CERTAINTY_WORDS_ES}|{_CERTAINTY_WORDS_ZH})",
    re.I,
)
_CERTAINTY_ANY = re.compile(rf"(?<!not )(?<!not very )\b({_CERTAINTY_WORDS})\b", re.I)
_CERTAINTY_ANY_ES_ZH = re.compile(
    rf"(?<!no estoy )\b({_CERTAINTY_WORDS_ES})\b|({_CERTAINTY_WORDS_ZH})", re.I
)
_CERTAINTY_NAMES = {
    "muy inseguro": Certainty.VERY_UNSURE,
    "inseguro": Certainty.UNSURE,
    "sin opinión": Certainty.NO_OPINION,
    "sin opinion": Certainty.NO_OPINION,
    "seguro": Certainty.SURE,
    "muy seguro": Certainty.VERY_SURE,
    "非常不确定": Certainty.VERY_UNSURE,
    "不确定": Certainty.UNSURE,
    "无意见": Certainty.NO_OPINION,
    "确定": Certainty.SURE,
    "非常确定": Certainty.VERY_SURE,
}
_NUMBERED = re.compile(r"^\W{0,3}([1-4])\s*[.):\-]\s*(.+)$", re.M)
_YES = re.compile(
    r"\b(yes|agree|let's vote|ready to vote|hold the vote now|s[ií]|de acuerdo|votemos"
    r"|listo para votar)\b|同意|是|准备好投票",
    re.I,
)
_NO = re.compile(
    r"\b(no|not yet|more discussion|not ready|todav[ií]a no|m[aá]s discusi[oó]n)\b"
    r"|否|不同意|还不行|更多讨论",
    re.I,
)
_LEADING = re.compile(r"^\W*(yes|no|s[ií])\b|^\W*(不同意|同意|是|否)", re.I)
_LEADING_YES = {"yes", "sí", "si", "同意", "是"}


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
        dotted = m.group("dotted")
        raw = m.group("yuan") or m.group("dollars") or m.group("grouped") or m.group("thousands")
        value = float(dotted.replace(".", "") if dotted else raw.replace(",", ""))
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
        marker = _STANCE_MARKER.search(sentence) or _STANCE_MARKER_ES_ZH.search(sentence)
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
    found |= {_certainty(m.group(1) or m.group(2)) for m in _CERTAINTY_ANY_ES_ZH.finditer(text)}
    return found.pop() if len(found) == 1 else None


def _certainty(word: str) -> Certainty:
    named = _CERTAINTY_NAMES.get(word.lower())
    return named if named is not None else Certainty(re.sub(r"[ _]", "_", word.lower()))


def poll_answer_in(text: str) -> bool | None:
    leading = _LEADING.match(text)
    if leading:
        return (leading.group(1) or leading.group(2)).lower() in _LEADING_YES
    yes, no = bool(_YES.search(text)), bool(_NO.search(text))
    return yes if yes != no else None
