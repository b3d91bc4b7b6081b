"""What the parser read is in the answer's text (docs/frohlich.md §5): a choice's or
ballot's principle and amount, every principle of a ranking, a yes to a poll. Lenient on
purpose: it flags only a value the text gives no ground for, never a style."""

from __future__ import annotations

import re
from collections.abc import Iterator

from maai.domain.frohlich.events import AnswerAccepted
from maai.projections.frohlich.protocol_base import Audit, Violation, rule


def _digits(amount: int) -> re.Pattern[str]:
    text = f"{amount:,}".replace(",", r"[,.\s]?")
    short = rf"|\b{amount // 1000}\s?k\b" if amount % 1000 == 0 else ""
    return re.compile(rf"(?<!\d){text}(?!\d){short}", re.IGNORECASE)


_NUMBERS = {"a": "1", "b": "2", "c": "3", "d": "4"}
_NAMES = {
    "a": r"floor|minimum|最低|m[ií]nimo|piso",
    "b": r"average|平均|promedio|media",
    "c": r"floor|minimum|最低|m[ií]nimo|piso|底线",
    "d": r"range|范围|差距|rango",
}
_YES = re.compile(
    r"\b(?:yes|yeah|yep|sure|agree\w*|ok(?:ay)?|let'?s\s+vote|vote\s+now|no\s+problem|why\s+not|"
    r"s[ií]|vale|claro|de\s+acuerdo|oui|ja|d'accord|einverstanden)\b|同意|是|好|可以|赞成|行",
    re.IGNORECASE,
)
# Words and signs a stated amount may be written with, other than its digits: where they
# occur, the audit cannot tell the amount from the text by itself and does not judge it.
_AMOUNT_WORDS = re.compile(
    r"thousand|hundred|million|grand|\bmil\b|\d\s*k\b|[万千百十一二三四五六七八九０-９]",
    re.IGNORECASE,
)


def _mentions(text: str, letter: str) -> bool:
    """Whether ``text`` names principle ``letter`` at all: the letter as a word of its own
    (bracketed, in a list or chain, quoted), its number, or words of its name. Lenient on
    purpose: this flags only a value the text gives no ground for, never a style."""
    patterns = (
        rf"(?<![A-Za-z'’]){letter}(?![A-Za-z'’])",
        rf"(?<!\d){_NUMBERS[letter]}(?!\d)",
        _NAMES[letter],
    )
    return any(re.search(p, text, re.IGNORECASE) for p in patterns)


def _amount_stated(text: str, amount: int) -> bool:
    return bool(_digits(amount).search(text) or _AMOUNT_WORDS.search(text))


@rule(
    "answers_supported",
    "§5",
    "what the parser read is in the answer's text: a choice's or ballot's principle and "
    "amount, every principle of a ranking, a yes to a poll",
)
def answers_supported(audit: Audit) -> Iterator[Violation]:
    for entry, accepted in audit.history.each(AnswerAccepted):
        if accepted.source != "parser":
            continue
        text = accepted.raw_text
        if accepted.kind in ("choice", "ballot") and isinstance(accepted.value, dict):
            amount = accepted.value.get("amount")
            letter = str(accepted.value.get("principle"))
            if letter in _NUMBERS and not _mentions(text, letter):
                yield Violation(
                    "answers_supported",
                    entry.seq,
                    f"{accepted.address}: ({letter}) read, but the text does not name it",
                )
            if isinstance(amount, int) and not _amount_stated(text, amount):
                yield Violation(
                    "answers_supported",
                    entry.seq,
                    f"{accepted.address}: amount {amount} read, but the text does not state it",
                )
        elif accepted.kind == "ranking" and isinstance(accepted.value, dict):
            unnamed = [x for x in accepted.value.get("order", []) if not _mentions(text, str(x))]
            if unnamed:
                yield Violation(
                    "answers_supported",
                    entry.seq,
                    f"{accepted.address}: ranking read, but the text does not name "
                    + ", ".join(f"({x})" for x in unnamed),
                )
        elif accepted.kind == "poll" and accepted.value is True and not _YES.search(text):
            yield Violation(
                "answers_supported", entry.seq, f"{accepted.address}: read as yes, says no yes"
            )
