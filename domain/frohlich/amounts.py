"""Dollar amounts as participants write them, normalized to whole dollars.

Accepted: ``$15,000``, ``15k``, ``15.5k``, ``15.000`` and ``15 000`` (thousands separators of
other locales), ``15'000`` (Swiss), ``1,50,000`` (Indian grouping), ``US$ 15.000,00``
(European decimals), ``15000 dollars``, ``15 thousand``, ``fifteen thousand``. Currency signs
and words are accepted but do not change the number: the experiment has one currency.

A separator followed by exactly three digits is read as a thousands separator; any other
digits after a single ``.`` or ``,`` are decimals. A single ``.`` group (``12.000``) is read as
thousands only where the figure says it is money (``12.000 dólares``, ``$12.000``): alone it could
be a decimal, and its value is left unknown. Non-whole, negative, zero and contradictory amounts
are rejected rather than rounded or guessed.

Spanish: ``12 mil`` is 12,000, ``12,5 mil`` 12,500 and ``13 mil 500`` 13,500; ``13 mil
quinientos`` (the figure goes on in words) has no value.

Amounts next to Chinese text are read too: ``12000美元``, ``1万2千``, ``一万二千``, ``1.2万``; a
numeral that leaves its last unit out (``一万二``) has no value here. Full-width digits and
punctuation are folded to ASCII first (``fold_width``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from maai.domain.answer_text import normalise_whitespace, too_long

# Characters of Chinese and Japanese text: a figure may touch them ("底线为12000美元").
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
_NUMBER = re.compile(
    rf"""
    (?P<sign>(?<![\w.,])[-−](?=[\d$€£]|us))?
    (?:(?P<pre>(?:us\s?\$|usd|\$|€|eur|£)\s?)(?P<sign2>[-−](?=\d))? | (?<![.,'’])(?<![^\W{_CJK}]))
    (?P<num>
        \d{{1,3}}(?P<sep>[,.'’\u00a0\u202f\u2009 ])\d{{3}}(?:(?P=sep)\d{{3}})*(?:[.,]\d+)?
      | \d{{1,2}}(?:,\d{{2}})+,\d{{3}}(?:\.\d+)?
      | \d+(?:[.,]\d+)?
    )
    (?![\d%]|[.,'’\u00a0\u202f\u2009 ]\d)
    (?:
        (?P<suffix>\s?(?:k|thousand|grand|mil|mn|mio|million|millones|millón|millon)\b)
        (?P<extra>(?<=mil)\s(?:y\s)?\d{{1,3}}(?![\d%]|[.,'’]\d))?
      | (?![^\W\d_{_CJK}])
    )
    (?P<post>\s?(?:us\$|\$|€|美元|美金|元)|\s(?:usd|dollars?|bucks|euros?|eur|d[óo]lar(?:es)?)\b)?
    """,
    re.IGNORECASE | re.VERBOSE,
)

# Chinese numerals, alone or mixed with digits: 一万二千, 1万2千, 1.2万, 十二万.
_CJK_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}
_CJK_UNITS = {"十": 10, "百": 100, "千": 1_000, "万": 10_000}
# A numeral starts with a digit (千万 "by all means" is a word) and holds a unit.
# (Possessive digit runs: a run of digits is one token, never split, so matching stays linear.)
_CJK_NUMBER = re.compile(
    r"(?<![\d.零〇一二两三四五六七八九十百千万])(?:\d++(?:\.\d++)?+|[零〇一二两三四五六七八九十])"
    r"(?:\d++(?:\.\d++)?+|[零〇一二两三四五六七八九十百千万])*(?<=[十百千万])"
    r"(?:\d++(?:\.\d++)?+|[零〇一二两三四五六七八九十百千万])*"
    r"(?P<post>\s?(?:美元|美金|元|块|dollars?|d[óo]lar(?:es)?|usd)|\s?\$)?",
    re.IGNORECASE,
)

_SUFFIX_FACTORS = {
    "k": 1_000,
    "thousand": 1_000,
    "grand": 1_000,
    "mil": 1_000,  # Spanish and Portuguese: "12 mil dólares"
    "mn": 1_000_000,
    "mio": 1_000_000,
    "million": 1_000_000,
    "millones": 1_000_000,
    "millón": 1_000_000,
    "millon": 1_000_000,
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


_WIDE_PUNCTUATION = {
    "，": ", ",
    "、": ", ",
    "。": ". ",
    "：": ": ",
    "；": "; ",
    "！": "! ",
    "？": "? ",
    "（": " (",
    "）": ") ",
    "\u3000": " ",
}


def fold_width(text: str) -> str:
    """Full-width digits, letters and punctuation as ASCII (``１３，０００`` → ``13,000``,
    ``（c）`` → `` (c) ``); the ideographic full stop and comma end a sentence or an item."""
    text = re.sub(r"(?<=[０-９])，(?=[０-９]{3}(?![０-９]))", ",", text)
    text = re.sub("[，、。：；！？（）\u3000]", lambda m: _WIDE_PUNCTUATION[m.group(0)], text)
    return re.sub("[\uff01-\uff5e]", lambda m: chr(ord(m.group(0)) - 0xFEE0), text)


def find_amounts(text: str) -> list[AmountMention]:
    """Every numeric and spelled-out number in ``text``, in order of appearance."""
    mentions = [_chinese(m) for m in _CJK_NUMBER.finditer(text)]
    taken = [(m.start, m.end) for m in mentions]
    for match in _NUMBER.finditer(text):
        if not any(s < match.end() and match.start() < e for s, e in taken):
            mentions.append(_numeric(match))
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
    text = normalise_whitespace(text)
    if too_long(text):
        return None
    mentions = find_amounts(fold_width(text))
    values = {m.whole_dollars for m in mentions}
    if len(values) != 1:
        return None
    return values.pop()


# Spanish number words after "mil" ("13 mil quinientos"): the figure goes on in words.
_WORDS_AFTER_MIL = re.compile(
    r"\s+(?:y\s+)?(?:\w*ient[oa]s|cien(?:to)?|un[oa]?|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|"
    r"diez|once|doce|trece|catorce|quince|dieci\w+|veinti?\w*|treinta|cuarenta|cincuenta|"
    r"sesenta|setenta|ochenta|noventa)\b",
    re.IGNORECASE,
)


def _numeric(match: re.Match[str]) -> AmountMention:
    suffix = (match["suffix"] or "").strip().lower()
    value = _number_value(match["num"], match["sep"], has_suffix=bool(suffix))
    if value is not None and suffix:
        value *= _SUFFIX_FACTORS[suffix]
    if value is not None and match["extra"]:
        value += int(re.sub(r"\D", "", match["extra"]))  # "13 mil 500": 13,500
    elif suffix == "mil" and _WORDS_AFTER_MIL.match(match.string, match.end("suffix")):
        value = None
    marked = bool(match["pre"] or match["post"] or suffix)
    if not marked and re.fullmatch(r"\d{1,3}\.\d{3}", match["num"]):
        value = None  # "12.000": twelve thousand, or twelve with three decimals?
    return AmountMention(
        start=match.start(),
        end=match.end(),
        text=match.group(0).strip(),
        value=value,
        marked=marked,
        negative=bool(match["sign"] or match["sign2"]),
    )


def _chinese(match: re.Match[str]) -> AmountMention:
    post = match["post"] or ""
    numeral = match.group(0)[: len(match.group(0)) - len(post)].strip()
    return AmountMention(
        start=match.start(),
        end=match.end(),
        text=match.group(0).strip(),
        value=_chinese_value(numeral),
        marked=bool(post) or "千" in numeral or "万" in numeral,
        negative=False,
    )


def _chinese_value(numeral: str) -> Decimal | None:
    """一万二千 → 12000, 1万2千 → 12000, 1.2万 → 12000, 十二万 → 120000; None where a unit is
    left out (一万二, "twelve thousand" to a speaker but not spelled so) or the form is odd."""
    total = section = Decimal(0)
    current: Decimal | None = None
    last_unit: int | None = None
    for token in re.findall(r"\d+(?:\.\d+)?|.", numeral):
        if token[0].isdigit():
            if current is not None:
                return None
            current = Decimal(token)
        elif token in _CJK_DIGITS:
            if current is not None and token not in "零〇":
                return None  # digits in a row (一二三): not a numeral of units
            current = None if token in "零〇" else Decimal(_CJK_DIGITS[token])
            if token in "零〇":
                last_unit = None  # 一万零五百: nothing is left out
        elif token == "万":
            section += current if current is not None else Decimal(0)
            if section == 0:
                return None
            total, section, current, last_unit = total + section * 10_000, Decimal(0), None, 10_000
        else:
            unit = _CJK_UNITS[token]
            if current is None and section == 0 and total == 0 and unit == 10:
                current = Decimal(1)  # 十二 is twelve
            if current is None:
                return None
            section += current * unit
            current, last_unit = None, unit
    if current is not None:
        if last_unit is not None:
            return None  # 一万二: the unit after the last digit is left out
        section += current
    return total + section


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
