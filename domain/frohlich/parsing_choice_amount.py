"""The amount that goes with a chosen (c) or (d): which figure of an answer is the floor or
range, and when it is approximate, corrected, given as alternatives or written in Spanish
thousands (docs/frohlich.md §5 "Parsing")."""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal

from maai.domain.frohlich.amounts import AmountMention, find_amounts
from maai.domain.frohlich.parsing_choice_patterns import (
    CORRECTION,
    ENGLISH_WORDS,
    FLOOR_WORDS,
    NOT_AMOUNT_BEFORE,
    RANGE_WORDS,
    SPANISH_WORDS,
)
from maai.domain.frohlich.parsing_text import Mention, Undecided, context_before
from maai.domain.frohlich.types import Principle


def candidate_amounts(clean: str, mentions: list[Mention]) -> list[AmountMention]:
    found = find_amounts(clean)
    if any(a.value is None for a in found) and reads_as_spanish(clean):
        found = [spanish_thousands(a) for a in found]
    return [
        a
        for a in found
        if not any(m.start < a.end and a.start < m.end for m in mentions)
        and not NOT_AMOUNT_BEFORE.search(context_before(clean, a.start))
        and (a.marked or a.value is None or a.value >= 100)
    ]


def reads_as_spanish(clean: str) -> bool:
    return len(SPANISH_WORDS.findall(clean)) >= 2 and not ENGLISH_WORDS.search(clean)


def spanish_thousands(amount: AmountMention) -> AmountMention:
    grouped = re.fullmatch(r"(?:us\s?\$|\$)?\s?(\d{1,3})\.(\d{3})", amount.text)
    if amount.value is not None or grouped is None:
        return amount
    return replace(amount, value=Decimal(grouped.group(1) + grouped.group(2)), marked=True)


def amount_for(
    clean: str, anchor: Mention, mentions: list[Mention]
) -> AmountMention | Undecided | None:
    """The amount that goes with the chosen principle, preferring the decision sentence."""
    candidates = candidate_amounts(clean, mentions)
    if not candidates:
        return None
    bounds = [0, *(m.end() for m in re.finditer(r"[.!?](?=\s|$)|\n", clean)), len(clean)]
    start = max(b for b in bounds if b <= anchor.start)
    end = min(b for b in bounds if b > anchor.start)
    in_sentence = [a for a in candidates if start <= a.start < end]
    after = [a for a in in_sentence if a.start >= anchor.end]
    labelled = [
        a
        for a in candidates
        if re.search(
            r"(?:\b(?:amount|floor|range|constraint|limit|value|threshold|piso|rango|monto|"
            r"cantidad|cifra|l[ií]mite|m[ií]nimo|restricci[oó]n)|"
            r"底线|范围|差距|金额|数额|下限|上限|限制|约束)\s*[:=]\s*$",
            context_before(clean, a.start),
        )
    ]
    if any(
        re.search(
            r"\b(?:or|to|and|between|o|y|entre|hasta)\s+(?:\w+\s+)?$|[-–/~]\s*$|"
            r"(?:或者?|到|至|和|还是|或是)\s*$",
            context_before(clean, a.start),
        )
        for a in (in_sentence[1:] if in_sentence else candidates[1:])
    ):
        return Undecided("the amount is given as alternatives or a range")
    keyword = FLOOR_WORDS if anchor.principle is Principle.FLOOR_CONSTRAINT else RANGE_WORDS
    for group in (after, in_sentence, labelled, candidates):
        if not group:
            continue
        if group is after and directly_follows(clean, anchor, group[0]):
            return group[0]
        # Several amounts: the one introduced by the principle's own word ("a floor of $X").
        keyed = [
            a
            for a in group
            if re.search(rf"(?:{keyword})\D{{0,20}}$", context_before(clean, a.start))
        ]
        for pick in (group, keyed):
            if len({(a.value, a.negative) for a in pick}) == 1:
                return pick[0]
        return Undecided("several different amounts are stated")
    return None


def amount_taken_back(
    clean: str, anchor: Mention, amount: AmountMention, mentions: list[Mention]
) -> bool:
    """A correction word after the choice, followed by another figure: "I choose (c) with a
    floor of $12,000. Actually, make that $13,000"."""
    for marker in CORRECTION.finditer(clean, anchor.end):
        later = [a for a in candidate_amounts(clean, mentions) if a.start > marker.start()]
        if any((a.value, a.negative) != (amount.value, amount.negative) for a in later):
            return True
    return False


def directly_follows(clean: str, anchor: Mention, amount: AmountMention) -> bool:
    gap = clean[anchor.end : amount.start]
    return bool(
        re.fullmatch(
            r"[\s,:=(\-–]*(?:(?:with|at|of|and|a|an|the|my|floor|range|constraint|minimum|"
            r"maximum|limit|set|to|amount|is|=|:|con|un|una|de|del|el|la|mi|piso|suelo|rango|"
            r"m[ií]nimo|m[aá]ximo|l[ií]mite|restricci[oó]n|es|"
            r"底线|范围|差距|最低收入|收入|不低于|不超过|为|是|定为|设为|设定为|的)\s*)*[\s,:=(\-–]*",
            gap,
        )
    )
