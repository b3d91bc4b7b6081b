"""Reading the players' answers: ``OFFER: n`` and ``ACCEPT`` / ``REJECT``, each on a line of
its own. Where the text says it twice with different values, or not at all, the parser is
undecided (the player is asked again): it never guesses."""

from __future__ import annotations

import re

from maai.domain.reading import Invalid, Parsed, ParseResult, Undecided

_OFFER = re.compile(r"^\s*\**\s*OFFER\s*:\s*\**\s*(-?\d+)\s*\**\s*$", re.IGNORECASE | re.MULTILINE)
_RESPONSE = re.compile(r"^\s*\**\s*(ACCEPT|REJECT)\s*\**\s*\.?\s*$", re.IGNORECASE | re.MULTILINE)


def read_offer(text: str, pie: int) -> ParseResult[int]:
    found = {int(m.group(1)) for m in _OFFER.finditer(text)}
    if not found:
        return Undecided("no line 'OFFER: n'")
    if len(found) > 1:
        return Undecided(f"several different offers: {sorted(found)}")
    (amount,) = found
    if not 0 <= amount <= pie:
        return Invalid(f"Your offer must be a whole number from 0 to {pie}.")
    return Parsed(amount)


def read_response(text: str) -> ParseResult[bool]:
    found = {m.group(1).upper() for m in _RESPONSE.finditer(text)}
    if len(found) != 1:
        return Undecided("neither or both of the lines 'ACCEPT' and 'REJECT'")
    return Parsed(found == {"ACCEPT"})


def reasoning_of(text: str) -> str | None:
    """What the proposer wrote besides the offer line (private to the proposer)."""
    rest = _OFFER.sub("", text).strip()
    return rest or None
