"""The readings of an order of the four principles that ``parsing_ranking`` compares: numbered
or bulleted lists, markdown tables, chains on one line ("c > a > d > b") and ordinal words in
prose (docs/frohlich.md §5 "Parsing")."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from maai.domain.frohlich.parsing_ranking_patterns import (
    BEST_FIRST,
    CHAIN_WORDS,
    INLINE_ITEM,
    LIST_LINE,
    ORDINAL_RES,
    ORDINALS,
    ORDINALS_ES,
    ORDINALS_ZH,
    SEQUENCE_SEP,
    WORST_FIRST,
)
from maai.domain.frohlich.parsing_text import (
    BY_NUMBER,
    CANONICAL_ORDER,
    LETTERS,
    find_mentions,
    identify_principle,
)
from maai.domain.frohlich.types import Principle

Direction = Literal["best", "worst", "unknown"]
# How an order was written: "fixed" states each rank (rank labels or column, ordinal words,
# a countdown list); "listed" is the order of writing (list positions, bullets, rows, commas);
# "gt" / "lt" are chains with ">" / "<" (an arrow "→" reads as ">"); "ordinal" comes from
# ordinal words in prose ("(c) first, (a) second ...").
Kind = Literal["fixed", "listed", "gt", "lt", "ordinal"]


@dataclass(frozen=True)
class Order:
    order: tuple[Principle, ...]
    explicit: bool  # stated as a ranking (">", best/worst, a rank column), not just listed
    kind: Kind = "fixed"
    # Where words about its direction belong to it: the sentence that holds it, or the last
    # sentence of the line that introduces it ("My ranking, from worst to best:").
    context: tuple[tuple[int, int], ...] = ()
    start: int = 0  # where the order itself begins


class Ambiguous(Exception):
    """An order was found whose reading is not certain: the whole answer is Undecided."""


def _line_starts(clean: str) -> list[int]:
    return [0, *(m.end() for m in re.finditer(r"\n", clean))]


def _sentence_at(clean: str, position: int) -> tuple[int, int]:
    """The sentence around ``position``, within its line."""
    line_start = clean.rfind("\n", 0, position) + 1
    line_end = clean.find("\n", position)
    line_end = len(clean) if line_end < 0 else line_end
    start = line_start
    for m in re.finditer(r"[.!?]\s", clean[line_start:position]):
        start = line_start + m.end()
    end = re.search(r"[.!?](?=\s|$)", clean[position:line_end])
    return start, position + end.end() if end else line_end


def _introduction(
    clean: str, line: int, lines: list[str], starts: list[int]
) -> tuple[tuple[int, int], ...]:
    """The last sentence of the nearest non-blank line above ``line``."""
    above = next((i for i in range(line - 1, -1, -1) if lines[i].strip()), None)
    if above is None:
        return ()
    end = starts[above] + len(lines[above].rstrip())
    return (_sentence_at(clean, max(starts[above], end - 1)),)


def _permutation(order: Iterable[Principle]) -> tuple[Principle, ...] | None:
    result: list[Principle] = []
    for p in order:
        if result and result[-1] is p:
            continue  # "(c) floor constraint" names one principle twice in a row
        if p in result:
            return None
        result.append(p)
    return tuple(result) if len(result) in (3, 4) else None


def _lines_with_inline_lists(clean: str) -> list[tuple[int, int, str]]:
    """(line number, column, line); a line holding "1. (c) 2. (a) 3. (d) 4. (b)" becomes four,
    each with the column where it starts."""
    result: list[tuple[int, int, str]] = []
    for number, line in enumerate(clean.split("\n")):
        marks = list(INLINE_ITEM.finditer(line))
        if [int(m.group(1)) for m in marks] in ([1, 2, 3, 4], [1, 2, 3]):
            ends = [m.start() for m in marks[1:]] + [len(line)]
            result.extend(
                (number, m.start(), f"{m.group(1)}. {line[m.end() : end].strip()}")
                for m, end in zip(marks, ends, strict=True)
            )
        else:
            result.append((number, 0, line))
    return result


def list_orders(clean: str) -> list[Order]:
    groups: list[tuple[tuple[int, int], list[tuple[int, Principle | None, str]]]] = []
    current: list[tuple[int, Principle | None, str]] = []
    first_line = (0, 0)
    kind: str | None = None
    indent = 0
    for number, column, line in _lines_with_inline_lists(clean):
        m = LIST_LINE.match(line)
        if m is None:
            if line.strip() and not line.startswith((" ", "\t")) and kind == "bullet":
                groups.append((first_line, current))
                current, kind = [], None
            continue
        this_indent = len(m["indent"].expandtabs(4))
        if current and this_indent > indent:
            continue  # a sub-item explaining the item above
        if m["ord"]:
            line_kind, rank, label = "ord", _ordinal_rank(m["ord"]), "rank"
        elif m["rnum"] or m["num"]:
            line_kind, rank = "num", int(m["rnum"] or m["num"])
            label = "rank" if m["rnum"] else "number"
        else:
            line_kind, rank, label = "bullet", len(current) + 1, "bullet"
        countdown = [r for r, _, _ in current] == list(range(len(current) + 1, 1, -1))
        restart = (
            kind != line_kind
            or (line_kind == "num" and rank == 1 and not (current and countdown))
            or this_indent < indent
        )
        if restart and current:
            groups.append((first_line, current))
            current = []
        if not current:
            kind, indent, first_line = line_kind, this_indent, (number, column)
        if line_kind == "bullet":
            rank = len(current) + 1
        current.append((rank, identify_principle(m["rest"]), label))
    if current:
        groups.append((first_line, current))
    orders = []
    starts = _line_starts(clean)
    lines = clean.split("\n")
    for (line_no, column), items in groups:
        group = [item for item in items if item[1] is not None]  # e.g. "5. Certainty: sure"
        ranks = sorted(r for r, _, _ in group)
        if ranks not in ([1, 2, 3, 4], [1, 2, 3]):
            continue
        order = _permutation(p for _, p, _ in sorted(group, key=lambda item: item[0]) if p)
        if order is None or len(order) != len(group):
            continue
        written = [r for r, _, _ in group]
        labels = {label for _, _, label in group}
        if column:  # "My ranking, worst first: 1. (b) 2. (d) ...": the words before the items
            context: tuple[tuple[int, int], ...] = (
                _sentence_at(clean, starts[line_no] + column - 1),
            )
        else:
            context = _introduction(clean, line_no, lines, starts)
        start = starts[line_no] + column
        if "rank" in labels or (written == sorted(written, reverse=True)):
            # Rank labels, or a countdown "4. ... 1.": each line states its rank.
            orders.append(Order(order, True, "fixed", context, start))
        else:
            orders.append(Order(order, False, "listed", context, start))
    return orders


def _ordinal_rank(word: str) -> int:
    if word in ("mejor", "peor"):  # "Mejor: (c)", "Peor: (b)" as list labels
        return 1 if word == "mejor" else 4
    for rank, pattern in (*ORDINALS, *ORDINALS_ES, *ORDINALS_ZH):
        if re.fullmatch(pattern, word):
            return rank
    raise ValueError(word)


def table_orders(clean: str) -> list[Order]:
    numbered = [(i, line) for i, line in enumerate(clean.split("\n"))]
    table = [(i, line) for i, line in numbered if line.strip().startswith("|")]
    rows = [(i, [cell.strip() for cell in line.strip().strip("|").split("|")]) for i, line in table]
    rows = [(i, r) for i, r in rows if not all(re.fullmatch(r":?-*:?", c) for c in r)]
    if len(rows) < 5:
        return []
    (header_line, header), body = rows[0], [r for _, r in rows[1:]]
    rank_col = next(
        (
            i
            for i, c in enumerate(header)
            if re.fullmatch(
                r"(?:my\s+)?(?:#|rank\w*|position|place|order|no\.?|puesto|posici[oó]n|lugar|"
                r"clasificaci[oó]n|排名|名次|排序)(?:\s*\(.*\))?",
                c,
            )
        ),
        None,
    )
    if rank_col is None and _unnamed_rank_column(header, body):
        raise Ambiguous("a column of the table may hold the ranks, under an unknown header")
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
    if not order or len(order) != 4:
        return []
    if rank_col is not None:
        return [Order(order, True, "fixed")]
    starts = _line_starts(clean)
    context = _introduction(clean, header_line, clean.split("\n"), starts)
    return [Order(order, False, "listed", context, starts[header_line])]


def _unnamed_rank_column(header: list[str], body: list[list[str]]) -> bool:
    """Whether a column that names no principle holds the numbers 1 to 4 in another order
    than the rows ("| (a) | 3 |"): ranks, or scores, under a header the parser does not know."""
    rows = [row for row in body if any(identify_principle(c) for c in row)]
    for column in range(len(header)):
        cells = [row[column] if column < len(row) else "" for row in rows]
        if any(identify_principle(c) for c in cells):
            continue
        ranks = [_cell_rank(c) for c in cells]
        if sorted(r for r in ranks if r is not None) == [1, 2, 3, 4] and ranks != [1, 2, 3, 4]:
            return True
    return False


def _cell_rank(cell: str) -> int | None:
    m = re.fullmatch(r"#?([1-4])(?:st|nd|rd|th)?\.?(?:\s*\(.*\))?", cell)
    if m:
        return int(m.group(1))
    for rank, pattern in ORDINALS:
        if re.fullmatch(rf"(?:{pattern})(?:\s*\(.*\))?", cell):
            return rank
    return None


def sequence_orders(clean: str) -> list[Order]:
    """Orders written on one line: "c > a > d > b", "(c), then (a), then (d), and last (b)",
    "floor constraint, floor, range constraint, average", "3 > 1 > 4 > 2"."""
    orders: list[Order] = []
    starts = _line_starts(clean)
    lines = clean.split("\n")
    for number, line in enumerate(lines):
        column = 0
        for segment in re.split(r"(?:[:.!?](?:\s|$)|[\]}]|\s[-–—]\s)", line):
            at, column = column, column + len(segment)
            column = _skip_separator(line, column)
            if re.search(r"[<>]", segment):
                # An arrow chain: commas inside it belong to the elements ("(d), and (b) last").
                pieces = re.split(r"\s*([<>])\s*", segment)
            else:
                pieces = SEQUENCE_SEP.split(segment)
            parts, seps = pieces[::2], {s.strip() for s in pieces[1::2]}
            parts = [p.strip(" \"'[]{}-–—") for p in parts]
            parts = [p for p in parts if p]
            if len(parts) not in (3, 4) or len(seps & {">", "<"}) > 1:
                continue
            chained = bool(seps & CHAIN_WORDS)
            explicit = chained or bool(
                re.search(
                    r"\b(?:last|finally|lastly|por\s+[uú]ltimo|finalmente|al\s+final)\b|最后",
                    segment,
                )
            )
            tokens = _bare_tokens(parts)
            if tokens and all(t.isdigit() for t in tokens):
                named: list[Principle | None] = [BY_NUMBER[t] for t in tokens]
                if not (chained or _numbers_name_principles(tokens, line)):
                    raise Ambiguous(
                        "bare numbers could be principle numbers or the ranks of (a)-(d)"
                    )
                explicit = explicit or bool(
                    re.search(r"rank|order|prefer|clasific|orden|prefier|排名|排序|偏好", line)
                )
            elif tokens and all(t.isalpha() for t in tokens):
                named = [LETTERS[t] for t in tokens]
            else:
                named = [identify_principle(p) for p in parts]
            if any(p is None for p in named):
                continue
            order = _permutation(p for p in named if p is not None)
            if order is None or len(order) != len(parts):
                continue
            kind: Kind = "lt" if "<" in seps else "gt" if ">" in seps else "listed"
            start = starts[number] + at + len(segment) - len(segment.lstrip())
            context: tuple[tuple[int, int], ...] = (_sentence_at(clean, start),)
            if not line[:at].strip(" ([{*-:"):
                # "From worst to best:\n(b), (d), (a), (c)"
                context += _introduction(clean, number, lines, starts)
            ordered = order[::-1] if "<" in seps else order
            orders.append(Order(ordered, explicit, kind, context, start))
    return orders


def _skip_separator(line: str, column: int) -> int:
    """The column after the segment separator that starts at ``column``."""
    m = re.match(r"[:.!?](?:\s|$)|[\]}]|\s[-–—]\s", line[column:])
    return column + (m.end() if m else 0)


def _numbers_name_principles(tokens: list[str], line: str) -> bool:
    """Whether "3, 1, 4, 2" lists principle numbers in order (rather than the ranks of (a),
    (b), (c), (d)): when both readings give the same order, or the line says the list runs by
    preference ("from best to worst: 3, 1, 4, 2", "in order of preference")."""
    ranks = (int(t) for t in tokens)
    as_ranks = [p for _, p in sorted(zip(ranks, CANONICAL_ORDER, strict=False))]
    if len(tokens) == 4 and as_ranks == [BY_NUMBER[t] for t in tokens]:
        return True
    return any(r.search(line) for r in (WORST_FIRST, BEST_FIRST)) or bool(
        re.search(r"\bprefer|\borden\s+de\s+preferencia|偏好", line)
    )


def _bare_tokens(parts: list[str]) -> list[str] | None:
    """The letters or digits of "my ranking is c > a > d > b is final"-style parts: the first
    part may carry words before its token, the last part words after it."""
    tokens = []
    for i, part in enumerate(parts):
        pattern = r"\(?([a-d1-4])\)?"
        if i == 0:
            pattern = rf"(?:.*[\s\u4e00-\u9fff])?{pattern}"
        if i == len(parts) - 1:
            pattern = rf"{pattern}(?:[\s\u4e00-\u9fff].*)?"
        m = re.fullmatch(pattern, part)
        if m is None:
            return None
        tokens.append(m.group(1))
    return tokens


def ordinal_assignments(clean: str) -> dict[Principle, int]:
    """Principle → rank from clauses like "(c) is my first choice" or "worst: (b)"."""
    assigned: dict[Principle, int] = {}
    for principle, rank in assignments(clean, ORDINAL_RES):
        if assigned.get(principle, rank) != rank or (
            rank in assigned.values() and assigned.get(principle) != rank
        ):
            return {}
        assigned[principle] = rank
    return assigned


def assignments(
    clean: str, ordinals: tuple[tuple[int, re.Pattern[str]], ...]
) -> list[tuple[Principle, int]]:
    """(principle, rank) for every clause that names one principle and one rank."""
    clauses: list[str] = []
    for clause in re.split(
        r"[.;!?\n](?!\d)|\band\b|\bthen\b|\bbut\b|\bwhile\b|\by\b|\bluego\b|\bdespu[eé]s\b|"
        r"\bpero\b|然后|接着|但是?|而",
        clean,
    ):
        # Commas separate "(c) first, (a) second" but not "first, maximizing the floor".
        many = len({m.principle for m in find_mentions(clause)}) > 1
        clauses.extend(clause.split(",") if many else [clause])
    found = []
    for clause in clauses:
        principles = {m.principle for m in find_mentions(clause)}
        ranks = {r for r, ordinal in ordinals if ordinal.search(clause)}
        if len(principles) == 1 and len(ranks) == 1:
            found.append((principles.pop(), ranks.pop()))
    return found
