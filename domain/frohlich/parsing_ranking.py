"""Reading a ranking of the four principles and a certainty (docs/frohlich.md §3 steps 1.1,
1.2, 1.4, 2.3).

Several independent readings are tried (numbered or bulleted lists, markdown tables, chains
on one line, ordinal words in prose) and a ranking is accepted only when they agree on one
complete order. The principles in the order they were presented, with nothing saying that
this is a ranking, are a description, not a ranking.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from maai.domain.frohlich.parsing_text import (
    BY_NUMBER,
    CANONICAL_ORDER,
    LETTERS,
    Invalid,
    Parsed,
    ParseResult,
    Undecided,
    clean_text,
    find_mentions,
    identify_principle,
)
from maai.domain.frohlich.types import Certainty, Principle, Ranking

_ORDINALS: tuple[tuple[int, str], ...] = (
    (1, r"first|1st|best|top|most\s+(?:preferred|just|favou?red)|favou?rite|number\s+one"),
    (2, r"second|2nd|next\s+best|number\s+two"),
    (3, r"third|3rd|number\s+three"),
    (4, r"fourth|4th|last|worst(?![\s-]off)|least\s+(?:preferred|just|favou?red)|bottom"),
)
_ORDINAL_RES: tuple[tuple[int, re.Pattern[str]], ...] = tuple(
    (rank, re.compile(rf"\b(?:{pattern})\b")) for rank, pattern in _ORDINALS
)
_RANKING_CUE = re.compile(
    r"\b(?:rank\w*|order\s+of\s+preference|preference\s+order|best|worst|most\s+preferred|"
    r"least\s+preferred|first\s+choice|top\s+choice|from\s+most|prefer\w*)\b"
)
_LIST_LINE = re.compile(
    r"""^(?P<indent>[ \t]*)(?:
        (?P<ord>first|second|third|fourth|1st|2nd|3rd|4th|best|worst|last|top|bottom)
            (?:\s+(?:choice|place|preference|rank|pick|option|principle))?\s*[:.)\-–]
      | (?:rank(?:ed)?|place|position|no\.?)\s*\#?(?P<rnum>[1-4])\s*[:.)\-–]?
      | \#?(?P<num>[1-4])\s*[.):\-–]
      | (?P<bullet>[-•+])
    )\s*(?P<rest>\S.*)$""",
    re.VERBOSE,
)
_SEQUENCE_SEP = re.compile(
    r"\s*(>|<|,(?!\d)|;|/|\band\s+then\b|\bthen\b|\bfollowed\s+by\b|\band\b)\s*"
)
_TIES = re.compile(r"\b(?:tie|tied|ties|equally|equal\s+(?:first|second|third|rank\w*))\b")


@dataclass(frozen=True)
class _Order:
    order: tuple[Principle, ...]
    explicit: bool  # stated as a ranking (">", best/worst, a rank column), not just listed


def parse_ranking(text: str) -> ParseResult[Ranking]:
    """A complete best-to-worst order of the four principles plus one certainty."""
    clean = clean_text(text)
    certainty = _certainty(clean)
    order = _ranking_order(clean)
    if isinstance(order, Undecided):
        return order
    if certainty == "conflict":
        return Undecided("the response states more than one certainty level")
    if certainty is None:
        if "?" in clean:
            return Undecided("the response asks a question and states no certainty")
        return Invalid(
            "You ranked the principles but did not say how certain you are of this ranking. "
            "Please give your complete ranking again and state one certainty: very unsure, "
            "unsure, no opinion, sure, or very sure."
        )
    return Parsed(Ranking(order=order, certainty=certainty))  # type: ignore[arg-type]


def _ranking_order(clean: str) -> tuple[Principle, ...] | Undecided:
    if _TIES.search(clean):
        return Undecided("the response ranks some principles equally")
    candidates = [*_list_orders(clean), *_table_orders(clean), *_sequence_orders(clean)]
    ordinals = _ordinal_assignments(clean)
    complete = [c for c in candidates if len(c.order) == 4]
    if len(ordinals) == 4 and len(set(ordinals.values())) == 4:
        complete.append(_Order(tuple(sorted(ordinals, key=ordinals.__getitem__)), True))
    for partial in (c for c in candidates if len(c.order) == 3):
        # Three ordered principles, and the text says where the fourth goes: last.
        (missing,) = set(Principle) - set(partial.order)
        if ordinals.get(missing) == 4:
            complete.append(_Order((*partial.order, missing), partial.explicit))
    if not complete:
        return Undecided("no complete order of the four principles was found")
    stated = {c.order for c in complete if c.order != CANONICAL_ORDER or c.explicit}
    if len(stated) > 1:
        return Undecided("the response states more than one order of the principles")
    if stated:
        (order,) = stated
        if order != CANONICAL_ORDER:
            return order
        if "?" not in clean:
            return order
        return Undecided("the response asks a question about the order")
    # Only the principles in their presented order: a ranking only if the text says so.
    if _RANKING_CUE.search(clean) and "?" not in clean:
        return CANONICAL_ORDER
    return Undecided("the response repeats the principles in their presented order")


def _permutation(order: Iterable[Principle]) -> tuple[Principle, ...] | None:
    result: list[Principle] = []
    for p in order:
        if result and result[-1] is p:
            continue  # "(c) floor constraint" names one principle twice in a row
        if p in result:
            return None
        result.append(p)
    return tuple(result) if len(result) in (3, 4) else None


def _list_orders(clean: str) -> list[_Order]:
    groups: list[list[tuple[int, Principle | None, bool]]] = []
    current: list[tuple[int, Principle | None, bool]] = []
    kind: str | None = None
    indent = 0
    for line in clean.split("\n"):
        m = _LIST_LINE.match(line)
        if m is None:
            if line.strip() and not line.startswith((" ", "\t")) and kind == "bullet":
                groups.append(current)
                current, kind = [], None
            continue
        this_indent = len(m["indent"].expandtabs(4))
        if current and this_indent > indent:
            continue  # a sub-item explaining the item above
        if m["ord"]:
            line_kind, rank, explicit = "ord", _ordinal_rank(m["ord"]), True
        elif m["rnum"] or m["num"]:
            line_kind, rank, explicit = "num", int(m["rnum"] or m["num"]), bool(m["rnum"])
        else:
            line_kind, rank, explicit = "bullet", len(current) + 1, False
        restart = kind != line_kind or (line_kind == "num" and rank == 1) or this_indent < indent
        if restart and current:
            groups.append(current)
            current = []
        if not current:
            kind, indent = line_kind, this_indent
        if line_kind == "bullet":
            rank = len(current) + 1
        current.append((rank, identify_principle(m["rest"]), explicit))
    if current:
        groups.append(current)
    orders = []
    for items in groups:
        group = [item for item in items if item[1] is not None]  # e.g. "5. Certainty: sure"
        ranks = sorted(r for r, _, _ in group)
        if ranks not in ([1, 2, 3, 4], [1, 2, 3]):
            continue
        order = _permutation(p for _, p, _ in sorted(group, key=lambda item: item[0]) if p)
        if order is not None and len(order) == len(group):
            orders.append(_Order(order, any(e for _, _, e in group)))
    return orders


def _ordinal_rank(word: str) -> int:
    for rank, pattern in _ORDINALS:
        if re.fullmatch(pattern, word):
            return rank
    raise ValueError(word)


def _table_orders(clean: str) -> list[_Order]:
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in clean.split("\n")
        if line.strip().startswith("|")
    ]
    rows = [r for r in rows if not all(re.fullmatch(r":?-*:?", c) for c in r)]
    if len(rows) < 5:
        return []
    header, body = rows[0], rows[1:]
    rank_col = next(
        (
            i
            for i, c in enumerate(header)
            if re.fullmatch(r"#|rank\w*|position|place|order|no\.?", c)
        ),
        None,
    )
    pairs: list[tuple[int, Principle | None]] = []
    for position, row in enumerate(body, 1):
        rank: int | None = position
        if rank_col is not None and rank_col < len(row):
            rank = _cell_rank(row[rank_col])
        others = [c for i, c in enumerate(row) if i != rank_col]
        principle = next((p for p in map(identify_principle, others) if p is not None), None)
        if principle is None:
            continue  # e.g. a "Certainty" row
        if rank is None:
            return []
        pairs.append((rank, principle))
    if sorted(r for r, _ in pairs) != [1, 2, 3, 4] or any(p is None for _, p in pairs):
        return []
    order = _permutation(p for _, p in sorted(pairs) if p is not None)
    return [_Order(order, rank_col is not None)] if order and len(order) == 4 else []


def _cell_rank(cell: str) -> int | None:
    m = re.fullmatch(r"#?([1-4])(?:st|nd|rd|th)?\.?(?:\s*\(.*\))?", cell)
    if m:
        return int(m.group(1))
    for rank, pattern in _ORDINALS:
        if re.fullmatch(rf"(?:{pattern})(?:\s*\(.*\))?", cell):
            return rank
    return None


def _sequence_orders(clean: str) -> list[_Order]:
    """Orders written on one line: "c > a > d > b", "(c), then (a), then (d), and last (b)",
    "floor constraint, floor, range constraint, average", "3 > 1 > 4 > 2"."""
    orders: list[_Order] = []
    for line in clean.split("\n"):
        for segment in re.split(r"[:.!?](?:\s|$)|[\]}]|\s[-–—]\s", line):
            if re.search(r"[<>]", segment):
                # An arrow chain: commas inside it belong to the elements ("(d), and (b) last").
                pieces = re.split(r"\s*([<>])\s*", segment)
            else:
                pieces = _SEQUENCE_SEP.split(segment)
            parts, seps = pieces[::2], {s.strip() for s in pieces[1::2]}
            parts = [p.strip(" \"'[]{}-–—") for p in parts]
            parts = [p for p in parts if p]
            if len(parts) not in (3, 4) or len(seps & {">", "<"}) > 1:
                continue
            explicit = bool(seps & {">", "<", "then", "and then", "followed by"})
            explicit = explicit or bool(re.search(r"\b(?:last|finally|lastly)\b", segment))
            tokens = _bare_tokens(parts)
            if tokens and all(t.isdigit() for t in tokens):
                # Bare numbers name principles only as a stated ranking, never as list positions.
                if not (seps & {">", "<"} or re.search(r"rank|order|prefer", line)):
                    continue
                named: list[Principle | None] = [BY_NUMBER[t] for t in tokens]
            elif tokens and all(t.isalpha() for t in tokens):
                named = [LETTERS[t] for t in tokens]
            else:
                named = [identify_principle(p) for p in parts]
            if any(p is None for p in named):
                continue
            order = _permutation(p for p in named if p is not None)
            if order is None or len(order) != len(parts):
                continue
            orders.append(_Order(order[::-1] if "<" in seps else order, explicit))
    return orders


def _bare_tokens(parts: list[str]) -> list[str] | None:
    """The letters or digits of "my ranking is c > a > d > b is final"-style parts: the first
    part may carry words before its token, the last part words after it."""
    tokens = []
    for i, part in enumerate(parts):
        pattern = r"\(?([a-d1-4])\)?"
        if i == 0:
            pattern = rf"(?:.*\s)?{pattern}"
        if i == len(parts) - 1:
            pattern = rf"{pattern}(?:\s.*)?"
        m = re.fullmatch(pattern, part)
        if m is None:
            return None
        tokens.append(m.group(1))
    return tokens


def _ordinal_assignments(clean: str) -> dict[Principle, int]:
    """Principle → rank from clauses like "(c) is my first choice" or "worst: (b)"."""
    assigned: dict[Principle, int] = {}
    clauses: list[str] = []
    for clause in re.split(r"[.;!?\n](?!\d)|\band\b|\bthen\b|\bbut\b|\bwhile\b", clean):
        # Commas separate "(c) first, (a) second" but not "first, maximizing the floor".
        many = len({m.principle for m in find_mentions(clause)}) > 1
        clauses.extend(clause.split(",") if many else [clause])
    for clause in clauses:
        principles = {m.principle for m in find_mentions(clause)}
        ranks = {r for r, ordinal in _ORDINAL_RES if ordinal.search(clause)}
        if len(principles) != 1 or len(ranks) != 1:
            continue
        (principle,), (rank,) = principles, ranks
        if assigned.get(principle, rank) != rank or (
            rank in assigned.values() and assigned.get(principle) != rank
        ):
            return {}
        assigned[principle] = rank
    return assigned


# ---------------------------------------------------------------------------------------------
# Certainty

_LEVELS: tuple[tuple[Certainty, str], ...] = (
    (
        Certainty.VERY_UNSURE,
        r"very\s+(?:unsure|uncertain)|extremely\s+unsure|completely\s+unsure|sehr\s+unsicher|"
        r"très\s+incertaine?|muy\s+insegur[oa]",
    ),
    (
        Certainty.VERY_SURE,
        r"very\s+(?:sure|certain|confident)|extremely\s+(?:sure|certain|confident)|"
        r"absolutely\s+(?:sure|certain)|completely\s+(?:sure|certain)|highly\s+(?:certain|confident)|"
        r"sehr\s+sicher|très\s+sûre?|muy\s+segur[oa]",
    ),
    (
        Certainty.NO_OPINION,
        r"no\s+(?:strong\s+)?opinion|neutral|indifferent|keine\s+meinung|sans\s+opinion|"
        r"aucune\s+opinion|sin\s+opini[oó]n",
    ),
    (
        Certainty.UNSURE,
        r"unsure|uncertain|not\s+(?:very\s+|really\s+|entirely\s+|too\s+|that\s+)?(?:sure|certain)|"
        r"unsicher|incertaine?|pas\s+sûre?|insegur[oa]",
    ),
    (
        Certainty.SURE,
        r"(?:fairly\s+|pretty\s+|quite\s+|reasonably\s+)?(?:sure|certain|confident)|sicher|sûre?|"
        r"segur[oa]",
    ),
)
_LEVEL = "|".join(f"(?P<{c.value}>{p})" for c, p in _LEVELS)
_LABELLED = re.compile(
    r"\b(?:certainty|confidence|sicherheit|certitude|certeza|seguridad)(?:\s+(?:level|rating))?"
    r"\"?\s*(?:is|:|=|-|–|—)\s*\"?(?:i\s+am\s+|i'm\s+|i\s+feel\s+)?(?:\d\s*(?:/\s*5)?\s*[-(]?\s*)?"
    rf"(?:{_LEVEL})\b"
)
_SELF = re.compile(
    r"\b(?:i\s+am|i'm|i\s+feel|i\s+remain|feeling|ich\s+bin|je\s+suis|estoy)\s+"
    rf"(?:{_LEVEL})\b(?!\s+(?:that|whether|if|how|what|which|who|when|why|where)\b)"
)
_STANDALONE = re.compile(rf"(?:^|[.!?]\s+)[\s\-•(\[]*(?:{_LEVEL})[\s.!)\]]*$", re.MULTILINE)
_PARENTHESIZED = re.compile(rf"\((?:{_LEVEL})\)")


def _certainty(clean: str) -> Certainty | None | Literal["conflict"]:
    """The single certainty stated; None if none; "conflict" if several differ."""
    for sources in ((_LABELLED,), (_SELF, _STANDALONE, _PARENTHESIZED)):
        found = {
            Certainty(name)
            for regex in sources
            for m in regex.finditer(clean)
            for name, value in m.groupdict().items()
            if value is not None
        }
        if len(found) > 1:
            return "conflict"
        if found:
            return found.pop()
    return None
