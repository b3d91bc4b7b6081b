"""Dollar amounts as participants write them, normalized to whole dollars.

Accepted: ``$15,000``, ``15k``, ``15.5k``, ``15.000`` and ``15 000`` (thousands separators of
other locales), ``15'000`` (Swiss), ``1,50,000`` (Indian grouping), ``US$ 15.000,00``
(European decimals), ``15000 dollars``, ``15 thousand``, ``fifteen thousand``. Currency signs
and words are accepted but do not change the number: the experiment has one currency.

A separator followed by exactly three digits is read as a thousands separator (``15.000`` is
15,000, not 15); any other digits after a single ``.`` or ``,`` are decimals. Non-whole,
negative, zero and contradictory amounts are rejected rather than rounded or guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

_NUMBER = re.compile(
    r"""
    (?P<sign>(?<![\w.,])[-−](?=[\d$€£]|us))?
    (?:(?P<pre>(?:us\s?\$|usd|\$|€|eur|£)\s?)(?P<sign2>[-−](?=\d))? | (?<![\w.,'’]))
    (?P<num>
        \d{1,3}(?P<sep>[,.'’\u00a0\u202f\u2009 ])\d{3}(?:(?P=sep)\d{3})*(?:[.,]\d+)?
      | \d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?
      | \d+(?:[.,]\d+)?
    )
    (?![\d%]|[.,'’\u00a0\u202f\u2009 ]\d)
    (?:
        (?P<suffix>\s?(?:k|thousand|grand|mn|mio|million)\b)
      | (?![^\W\d_])
    )
    (?P<post>\s?(?:us\$|\$|€)|\s(?:usd|dollars?|bucks|euros?|eur)\b)?
    """,
    re.IGNORECASE | re.VERBOSE,
)

_SUFFIX_FACTORS = {
    "k": 1_000,
    "thousand": 1_000,
    "grand": 1_000,
    "mn": 1_000_000,
    "mio": 1_000_000,
    "million": 1_000_000,
}

_UNITS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    w: 10 * i
    for i, w in enumerate(
        ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    )
    if w != "_"
}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000}
_NUMBER_WORD = "|".join([*_UNITS, *_TENS, *_SCALES])
_WORD_NUMBER = re.compile(
    rf"\b(?:(?:a|{'|'.join([*_UNITS, *_TENS])})[\s-]+)?(?:(?:{_NUMBER_WORD}|and)[\s-]+)*"
    rf"(?:{_NUMBER_WORD})\b(?P<post>\s+(?:dollars?|bucks)\b)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class AmountMention:
    """One number found in a text. ``value`` is None where the format is ambiguous;
    ``marked`` says a currency sign/word or a thousands suffix makes it certainly money."""

    start: int
    end: int
    text: str
    value: Decimal | None
    marked: bool
    negative: bool

    @property
    def whole_dollars(self) -> int | None:
        """The amount as a positive whole number of dollars, or None."""
        if self.value is None or self.negative or self.value <= 0:
            return None
        if self.value != self.value.to_integral_value():
            return None
        return int(self.value)


def find_amounts(text: str) -> list[AmountMention]:
    """Every numeric and spelled-out number in ``text``, in order of appearance."""
    mentions = [_numeric(m) for m in _NUMBER.finditer(text)]
    taken = [(m.start, m.end) for m in mentions]
    for match in _WORD_NUMBER.finditer(text):
        if any(s < match.end() and match.start() < e for s, e in taken):
            continue
        mention = _spelled(match)
        if mention is not None:
            mentions.append(mention)
    return sorted(mentions, key=lambda m: m.start)


def parse_amount(text: str) -> int | None:
    """The single positive whole-dollar amount ``text`` states, or None.

    Several mentions are fine when they agree (``$15,000 (fifteen thousand dollars)``).
    """
    mentions = find_amounts(text)
    values = {m.whole_dollars for m in mentions}
    if len(values) != 1:
        return None
    return values.pop()


def _numeric(match: re.Match[str]) -> AmountMention:
    suffix = (match["suffix"] or "").strip().lower()
    value = _number_value(match["num"], match["sep"], has_suffix=bool(suffix))
    if value is not None and suffix:
        value *= _SUFFIX_FACTORS[suffix]
    return AmountMention(
        start=match.start(),
        end=match.end(),
        text=match.group(0).strip(),
        value=value,
        marked=bool(match["pre"] or match["post"] or suffix),
        negative=bool(match["sign"] or match["sign2"]),
    )


def _number_value(num: str, sep: str | None, *, has_suffix: bool) -> Decimal | None:
    if sep is not None:
        # Grouped thousands; "1.500k" could mean 1.5k or 1,500k, so refuse to guess.
        if has_suffix:
            return None
        head, dec_sep, decimals = _split_decimals(num, sep)
        if dec_sep == sep:
            return None
        digits = head.replace(sep, "")
        return Decimal(f"{digits}.{decimals}" if decimals else digits)
    if re.fullmatch(r"\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?", num):
        return Decimal(num.replace(",", ""))
    return Decimal(num.replace(",", "."))


def _split_decimals(num: str, sep: str) -> tuple[str, str | None, str]:
    """Split a trailing decimal part (a ``.``/``,`` followed by other than three digits, or a
    separator different from the grouping one)."""
    tail = re.search(r"([.,])(\d+)$", num)
    if tail is None:
        return num, None, ""
    dec_sep, decimals = tail.group(1), tail.group(2)
    if dec_sep == sep and len(decimals) == 3:
        return num, None, ""
    return num[: tail.start()], dec_sep, decimals


def _spelled(match: re.Match[str]) -> AmountMention | None:
    words = re.split(r"[\s-]+", match.group(0).lower())
    if match["post"]:
        words = words[:-1]
    if not any(w in _SCALES for w in words) and not match["post"]:
        return None  # "one", "two" are ordinary words unless they count dollars
    total = current = 0
    for i, word in enumerate(words):
        if word == "and":
            continue
        if word == "a":
            current = 1 if i + 1 < len(words) and words[i + 1] in _SCALES else current
        elif word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * _SCALES[word]
            current = 0
    return AmountMention(
        start=match.start(),
        end=match.end(),
        text=match.group(0).strip(),
        value=Decimal(total + current),
        marked=True,
        negative=False,
    )
