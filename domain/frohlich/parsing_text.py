"""Shared ground of the participant-text parsers: result types, clean-up, principle mentions.

A mention is a place where a text names a principle unambiguously: by name ("maximizing the
floor"), by letter in brackets ("(c)", "c)") or by number after a word that says so
("principle 3"). Bare words ("floor", "c") are read only where the structure around them
(a list item, a table cell, a chain "c > a > d > b") makes them unambiguous.

Names are read in English, Spanish ("Maximizar el ingreso promedio con un mínimo garantizado")
and Mandarin ("在最低收入限制下最大化平均收入"); letters in full-width brackets ("（c）") too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from maai.domain.frohlich.amounts import fold_width
from maai.domain.frohlich.types import Principle
from maai.domain.reading import Invalid as Invalid
from maai.domain.reading import Parsed as Parsed
from maai.domain.reading import ParseResult as ParseResult
from maai.domain.reading import Undecided as Undecided

CANONICAL_ORDER: tuple[Principle, ...] = tuple(Principle)
LETTERS = {p.value: p for p in Principle}
BY_NUMBER = {str(i): p for i, p in enumerate(Principle, 1)}


def clean_text(text: str) -> str:
    """Lower case, markdown emphasis removed, arrows and quotes unified, full-width characters
    folded to ASCII (``（c）`` → ``(c)``, ``。`` → ``.``); lines kept."""
    text = _LIST_MARK.sub(_list_mark, text.replace("\r\n", "\n"))
    text = fold_width(text)
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    # Bounded whitespace keeps every pattern below linear on degenerate (padded) output.
    text = re.sub(r"[ \t\u00a0\u202f\u2009]+", _squeeze_spaces, text)
    text = re.sub(r"\n\s*\n(?:\s*\n)+", "\n\n", text)
    text = re.sub("[\u201c\u201d\u201e\u00ab\u00bb\u300c\u300d\u300e\u300f]", '"', text)
    text = re.sub(r"^(\s*)\*\s", r"\1- ", text, flags=re.MULTILINE)  # "* item" is a bullet
    text = re.sub(r"\*\*|__|\*|`|~~", "", text)
    text = re.sub(r"^\s*#+\s", "", text, flags=re.MULTILINE)
    text = re.sub(r"^\s*>\s?", "", text, flags=re.MULTILINE)
    text = re.sub(r"->|=>|→|⟶|➔|≻|>>|›", ">", text)
    text = re.sub(r"<-|≺|<<|‹", "<", text)
    return text.lower()


# List numbers of other languages at the start of a line: "1、", "一、", "1º", "1.ª".
_LIST_MARK = re.compile(
    r"^([ \t]*)(?:([0-9０-９])\s*、|([一二三四])、|([0-9])\s*\.?\s*[ºª°](?:\s*[.):\-–])?)",
    re.MULTILINE,
)


def _list_mark(match: re.Match[str]) -> str:
    digit = match.group(2) or match.group(4)
    number = str("一二三四".index(match.group(3)) + 1) if match.group(3) else fold_width(digit)
    return f"{match.group(1)}{number}. "


def _squeeze_spaces(match: re.Match[str]) -> str:
    run = match.group(0)
    at_line_start = match.start() == 0 or match.string[match.start() - 1] == "\n"
    if at_line_start:
        return run.expandtabs(4)[:16]  # indentation tells sub-items from items
    return " "


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    principle: Principle


_MAX = r"maximi[sz](?:e|es|ed|ing|ation\s+of)\s+(?:the\s+)?"
_WITH = r"(?:income\s+)?(?:with|subject\s+to|under|given)\s+(?:a\s+|an\s+|the\s+)?"
_NAME_PATTERNS: tuple[tuple[Principle, str], ...] = (
    (
        Principle.FLOOR_CONSTRAINT,
        rf"(?:{_MAX})?average\s+{_WITH}(?:floor|minimum)(?:[\s-]+constraint)?",
    ),
    (Principle.FLOOR_CONSTRAINT, r"floor[\s-]+constrain(?:t|ed|ts)(?:\s+average)?"),
    (Principle.RANGE_CONSTRAINT, rf"(?:{_MAX})?average\s+{_WITH}range(?:[\s-]+constraint)?"),
    (
        Principle.RANGE_CONSTRAINT,
        r"range[\s-]+(?:constrain(?:t|ed|ts)|limit(?:ed|s)?)(?:\s+average)?",
    ),
    (Principle.FLOOR, rf"{_MAX}floor(?:\s+income)?"),
    (Principle.FLOOR, r"(?:floor[\s-]+maximi[sz]\w*|max(?:imum)?[\s-]+floor|maximin)"),
    (Principle.AVERAGE, rf"{_MAX}average(?:\s+income)?"),
    (Principle.AVERAGE, r"(?:average[\s-]+maximi[sz]\w*|max(?:imum)?[\s-]+average)"),
)
_LETTER_PATTERNS: tuple[str, ...] = (
    r"\(\s*([a-d])\s*\)",
    r"\[([a-d])\]",
    r"(?<![\w(\[])([a-d])\)",
    r"\b(?:principle|principe|principio|prinzip|option)\s+\(?([a-d])\b\)?",
    r"(?:原则|选项)\s*\(?([a-d])(?![a-z])\)?",
)
_NUMBER_PATTERN = (
    r"\b(?:principle|principe|principio|prinzip|option)\s*(?:#|no\.?\s*|number\s*)?([1-4])\b"
    r"|(?:原则|选项)\s*(?:#|第)?([1-4])(?!\d)"
)


# Spanish names ("Maximizar el ingreso promedio con un piso de X"); the constrained averages
# come first so that their "promedio" is not read as (b).
_MAX_ES = r"maximi[zs](?:ar|a|o|amos|ando|aci[oó]n\s+de(?:l|\s+la)?)\s+(?:el\s+|la\s+|los\s+)?"
_INCOME_ES = r"(?:(?:el\s+|la\s+)?(?:ingresos?|rentas?)\s+)?"
_AVERAGE_ES = (
    rf"(?:{_MAX_ES})?{_INCOME_ES}(?:promedio|medio|media)\s+con\s+(?:un\s+|una\s+|el\s+|la\s+)?"
)
_NAME_PATTERNS_ES: tuple[tuple[Principle, str], ...] = (
    (
        Principle.FLOOR_CONSTRAINT,
        rf"{_AVERAGE_ES}(?:(?:piso|m[ií]nimo|suelo)(?:\s+garantizado)?|"
        r"restricci[oó]n\s+(?:de|del|al)\s+(?:piso|m[ií]nimo|suelo))",
    ),
    (
        Principle.RANGE_CONSTRAINT,
        rf"{_AVERAGE_ES}(?:l[ií]mite\s+(?:al|de|del|en\s+el)\s+rango|"
        r"restricci[oó]n\s+(?:de|del|al)\s+rango|rango(?:\s+m[aá]ximo|\s+limitado)?)",
    ),
    (
        Principle.FLOOR_CONSTRAINT,
        r"restricci[oó]n\s+(?:de|del|al)\s+(?:piso|m[ií]nimo|suelo)|(?:m[ií]nimo|piso)\s+garantizado",
    ),
    (
        Principle.RANGE_CONSTRAINT,
        r"(?:restricci[oó]n|l[ií]mite)\s+(?:de|del|al)\s+rango|rango\s+limitado",
    ),
    (
        Principle.FLOOR,
        rf"{_MAX_ES}(?:(?:ingresos?|rentas?)\s+)?(?:m[ií]nimo|m[aá]s\s+bajo|piso|suelo)",
    ),
    (Principle.AVERAGE, rf"{_MAX_ES}(?:(?:ingresos?|rentas?)\s+)?(?:promedio|medio|media)"),
)
# Mandarin names: written without spaces, so they are matched without word boundaries.
_NAME_PATTERNS_ZH: tuple[tuple[Principle, str], ...] = (
    (
        Principle.FLOOR_CONSTRAINT,
        r"在?(?:最低收入|底线|下限)(?:的)?(?:限制|约束|保障|条件|前提)下的?"
        r"(?:最大化平均收入|平均收入最大化)"
        # "最低收入不低于X的条件下最大化平均收入": the amount between is not part of the name.
        r"|(?:最低收入|底线|下限)不低于[^,.;!?\n]{0,16}?"
        r"(?P<tail>的?(?:条件|前提|情况|限制|约束)下的?(?:最大化平均收入|平均收入最大化))"
        r"|有?(?:最低收入|底线|下限)(?:限制|约束)的?(?:平均收入最大化|最大化平均收入)"
        r"|(?:底线|最低收入|下限)(?:限制|约束)|最低收入不低于",
    ),
    (
        Principle.RANGE_CONSTRAINT,
        r"在?(?:收入)?(?:范围|差距|极差)(?:的)?(?:限制|约束|条件|前提)下的?"
        r"(?:最大化平均收入|平均收入最大化)"
        r"|(?:收入)?(?:范围|差距|极差)不超过[^,.;!?\n]{0,16}?"
        r"(?P<tail>的?(?:条件|前提|情况|限制|约束)下的?(?:最大化平均收入|平均收入最大化))"
        r"|有?(?:收入)?(?:范围|差距|极差)(?:限制|约束)的?(?:平均收入最大化|最大化平均收入)"
        r"|(?:收入)?(?:范围|差距|极差)(?:限制|约束)|收入(?:差距|范围)不超过",
    ),
    (Principle.FLOOR, r"最大化最低收入|最低收入最大化|最大化底线收入|底线收入最大化"),
    (Principle.AVERAGE, r"最大化平均收入|平均收入最大化"),
)


_NAME_RES: tuple[tuple[Principle, re.Pattern[str]], ...] = (
    *((principle, re.compile(rf"\b(?:{pattern})\b")) for principle, pattern in _NAME_PATTERNS),
    *((principle, re.compile(rf"\b(?:{pattern})\b")) for principle, pattern in _NAME_PATTERNS_ES),
    *((principle, re.compile(pattern)) for principle, pattern in _NAME_PATTERNS_ZH),
)
_LETTER_RES: tuple[re.Pattern[str], ...] = tuple(re.compile(p) for p in _LETTER_PATTERNS)
_NUMBER_RE = re.compile(_NUMBER_PATTERN)


def find_mentions(text: str) -> list[Mention]:
    """Principle mentions in cleaned text that cannot be anything else (names, "(c)",
    "principle 3"); bare words such as "floor" are left to structured contexts."""
    return list(_mentions(text))


# The ranking parser asks about the same clauses several times, and the decider may parse
# an answer again on every walk until its event is folded: remember recent texts.
@lru_cache(maxsize=2048)
def _mentions(text: str) -> tuple[Mention, ...]:
    found: list[Mention] = []
    taken = bytearray(len(text))  # earlier (more specific) patterns claim their characters

    def claim(match: re.Match[str], principle: Principle) -> None:
        # A name with an amount inside names the principle by its end only (the "tail").
        start, end = match.span("tail") if "tail" in match.re.groupindex else (-1, -1)
        if start < 0:
            start, end = match.span()
        if not any(taken[start:end]):
            taken[start:end] = b"\x01" * (end - start)
            found.append(Mention(start, end, principle))

    for principle, name_re in _NAME_RES:
        for m in name_re.finditer(text):
            claim(m, principle)
    for letter_re in _LETTER_RES:
        for m in letter_re.finditer(text):
            claim(m, LETTERS[m.group(1)])
    for m in _NUMBER_RE.finditer(text):
        claim(m, BY_NUMBER[m.group(1) or m.group(2)])
    return tuple(sorted(found, key=lambda m: m.start))


def identify_principle(item: str) -> Principle | None:
    """The principle a list item, table cell or chain element names: its first explicit
    mention, else the head words ("Floor", "Average with floor", "c.")."""
    mentions = find_mentions(item)
    if mentions:
        return mentions[0].principle
    head = re.split(
        r"\s[-–—]\s|:|\(|\b(?:because|porque|ya\s+que)\b|,|;|\.\s|因为|由于",
        item.strip(),
        maxsplit=1,
    )[0]
    head = head.strip(" .-–—:")
    letter = re.fullmatch(r"\(?([a-d])\)?\.?", head)
    if letter:
        return LETTERS[letter.group(1)]
    if _CJK.search(head):
        return _identify_chinese(head)
    words = set(re.findall(r"[^\W\d_]+", head))
    if len(words) > 8:
        return None
    if "range" in words:
        return Principle.RANGE_CONSTRAINT
    if "floor" in words:
        constrained = words & {"average", "mean", "constraint", "constrained", "minimum"}
        return Principle.FLOOR_CONSTRAINT if constrained else Principle.FLOOR
    if words & {"average", "mean"}:
        return Principle.AVERAGE
    return _identify_spanish(words)


_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")


def _identify_spanish(words: set[str]) -> Principle | None:
    """Short Spanish heads: "Rango", "Piso", "Promedio con piso", "Media"."""
    if words & {"rango"}:
        return Principle.RANGE_CONSTRAINT
    if words & {"piso", "suelo"} or (words & {"mínimo", "minimo"} and "ingreso" in words):
        constrained = words & {"promedio", "media", "medio", "restricción", "restriccion", "con"}
        return Principle.FLOOR_CONSTRAINT if constrained else Principle.FLOOR
    if words & {"promedio", "media"}:
        return Principle.AVERAGE
    return None


def _identify_chinese(head: str) -> Principle | None:
    """Short Mandarin heads: "范围约束", "底线", "平均收入", "最低收入"."""
    if len(_CJK.findall(head)) > 16:
        return None
    if re.search("范围|差距|极差", head):
        return Principle.RANGE_CONSTRAINT
    if re.search("底线|最低|下限", head):
        return Principle.FLOOR_CONSTRAINT if "平均" in head else Principle.FLOOR
    if "平均" in head:
        return Principle.AVERAGE
    return None


def context_before(clean: str, position: int, width: int = 60) -> str:
    """The few characters before ``position``: the context looked at, bounded so that long
    responses do not make the parsers quadratic."""
    return clean[max(0, position - width) : position]
