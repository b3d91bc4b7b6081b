"""The game's rules as pure functions (docs/collaboration.md §1, §2): points, strategies,
mismatch, the reference threshold u*, and the checks on messages."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Literal

from maai.domain.collaboration.config import OptionConfig

Strategy = Literal["collaborative", "individual"]


def option_named(options: list[OptionConfig], name: str) -> OptionConfig | None:
    for option in options:
        if option.name.upper() == name.upper():
            return option
    return None


def strategy_of(option: OptionConfig) -> Strategy:
    return "collaborative" if option.kind == "collaborative" else "individual"


def points(own: OptionConfig, partner_strategy: Strategy) -> int:
    """An agent's points: a collaborative option pays its upside when the partner also
    collaborates (any collaborative option), its downside when the partner goes
    individual; the individual option pays its guaranteed points whatever the partner does."""
    if own.kind == "individual":
        assert own.points is not None
        return own.points
    assert own.upside is not None and own.downside is not None
    return own.upside if partner_strategy == "collaborative" else own.downside


def mismatch(a: Strategy, b: Strategy) -> bool:
    return a != b


def u_star(option: OptionConfig, individual: OptionConfig) -> Fraction:
    """The belief above which collaborating with ``option`` pays in expectation:
    u* = (Y − D) / (U − D)."""
    assert option.upside is not None and option.downside is not None
    assert individual.points is not None
    return Fraction(individual.points - option.downside, option.upside - option.downside)


def individual_option(options: list[OptionConfig]) -> OptionConfig:
    return next(o for o in options if o.kind == "individual")


# --- message rules ------------------------------------------------------------------------
# Participants may express willingness, negotiate and signal; they must not disclose their
# belief percentage, the option they are considering, or their prediction of the partner's
# belief. Code checks every message; a wrong flag is far cheaper than a missed one, so the
# checks lean to flagging and the audit shows each breach with its text.

_PERCENT = re.compile(
    r"(?<![\d.,])(\d{1,3}(?:[.,]\d+)?)\s*(?:%|percent\b|per\s*cent\b|pct\b)", re.IGNORECASE
)
_BELIEF_WORDS = (
    r"belief|believe|confiden\w*|certain\w*|sure|probabilit\w*|likel\w*|chance|odds|estimate"
)
_NEAR_NUMBER = re.compile(
    rf"\b(?:{_BELIEF_WORDS})\b[^.!?\n\d]{{0,30}}?(?<![\d.,])(\d{{1,3}})(?![\d.,]\d)"
    rf"(?:\s*(?:/|out\s+of)\s*100)?",
    re.IGNORECASE,
)
_YOU = re.compile(r"\byou(?:r|'re|\s+are|\s+seem|\s+probably|\s+must)?\b", re.IGNORECASE)


def message_breaches(text: str, option_names: list[str]) -> list[str]:
    """Each rule the message breaks, as a short description (empty: none)."""
    found: list[str] = []
    for match in list(_PERCENT.finditer(text)) + list(_NEAR_NUMBER.finditer(text)):
        value = float(match.group(1).replace(",", "."))
        if not 0 <= value <= 100:
            continue
        before = text[max(0, match.start() - 40) : match.start()]
        kind = "prediction" if _YOU.search(before) else "belief"
        found.append(f"{kind} disclosed: {match.group(0).strip()!r}")
    for name in sorted(set(option_names), key=len, reverse=True):
        word = re.escape(name)
        pattern = (
            rf"\b(?i:option|choice|plan|alternative|pick|choose|choosing|go\s+(?:for|with))"
            rf"\s+[\"'(]?{word}\b|\({word}\)|[\"']{word}[\"']"
        )
        flags = re.IGNORECASE if len(name) > 1 else 0
        hit = re.search(pattern, text, flags)
        if hit is None and len(name) > 1:
            hit = re.search(rf"\b{word}\b", text, re.IGNORECASE)
        if hit is not None:
            found.append(f"option disclosed: {hit.group(0).strip()!r}")
    return list(dict.fromkeys(found))
