"""Reading a ranking of the four principles and a certainty (docs/frohlich.md §3 steps 1.1,
1.2, 1.4, 2.3).

Several independent readings are tried (numbered or bulleted lists, markdown tables, chains
on one line, ordinal words in prose) and a ranking is accepted only when they agree on one
complete order. The principles in the order they were presented, with nothing saying that
this is a ranking, are a description, not a ranking.

A list is read best first unless the words next to it say otherwise ("from worst to best",
"least preferred first"): then it is reversed. Where the direction of a list cannot be told,
or the text contradicts the order it lists ("(c) is best" under a list that puts (a) first),
the result is Undecided.

So is an answer that says an order is reversed without saying which way ("my ranking is
exactly the reverse"), corrects a listed order after it ("(d) should be second"), annotates
a list against its order ("1. (b) least favourite ... 4. (c) the best" under no "worst to
best"), or tables ranks under a column header the parser does not know.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import accumulate

from maai.domain.answer_text import TOO_LONG, normalise_whitespace, too_long
from maai.domain.frohlich.parsing_certainty import read_certainty
from maai.domain.frohlich.parsing_ranking_orders import (
    Ambiguous,
    Direction,
    Order,
    assignments,
    list_orders,
    ordinal_assignments,
    sequence_orders,
    table_orders,
)
from maai.domain.frohlich.parsing_ranking_patterns import (
    BEST_FIRST,
    EITHER_WAY,
    ITEM_NOTES,
    LIST_LINE,
    LOW_END,
    ORDER_CORRECTION,
    RANKING_CUE,
    REVERSED,
    STRONG_ORDINALS,
    TIES,
    WORST_FIRST,
)
from maai.domain.frohlich.parsing_text import (
    CANONICAL_ORDER,
    Invalid,
    Parsed,
    ParseResult,
    Undecided,
    clean_text,
)
from maai.domain.frohlich.types import Principle, Ranking


def parse_ranking(text: str) -> ParseResult[Ranking]:
    """A complete best-to-worst order of the four principles plus one certainty."""
    text = normalise_whitespace(text)
    if too_long(text):
        return Undecided(TOO_LONG)
    clean = clean_text(text)
    certainty = read_certainty(clean)
    order = _ranking_order(clean)
    if isinstance(order, Undecided):
        return order
    if certainty == "conflict":
        return Undecided("the response states more than one certainty level")
    if certainty is None:
        if "?" in clean:
            return Undecided("the response asks a question and states no certainty")
        if _UNREAD_SCRIPT.search(clean) or _UNREAD_LABEL.search(clean):
            return Undecided("the certainty may be written in words the parser does not read")
        return Invalid(
            "You ranked the principles but did not say how certain you are of this ranking. "
            "Please give your complete ranking again and state one certainty: very unsure, "
            "unsure, no opinion, sure, or very sure."
        )
    return Parsed(Ranking(order=order, certainty=certainty))  # type: ignore[arg-type]


# A Spanish certainty label whose value is not one of the levels ("Certeza: ni seguro ni
# inseguro"): a certainty is there, in words the parser does not read.
_UNREAD_LABEL = re.compile(r"\b(?:certeza|seguridad|confianza)\b[^\n:=]{0,80}[:=][ \t]*\S")
_UNREAD_SCRIPT = re.compile("[\u0400-\u04ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def _ranking_order(clean: str) -> tuple[Principle, ...] | Undecided:
    if TIES.search(clean):
        return Undecided("the response ranks some principles equally")
    try:
        candidates = [*list_orders(clean), *table_orders(clean), *sequence_orders(clean)]
    except Ambiguous as ambiguous:
        return Undecided(str(ambiguous))
    ordinals = ordinal_assignments(clean)
    if len(ordinals) == 4 and len(set(ordinals.values())) == 4:
        by_rank = tuple(sorted(ordinals, key=ordinals.__getitem__))
        candidates.append(Order(by_rank, True, "ordinal"))
    resolved = _directed(clean, candidates)
    if isinstance(resolved, Undecided):
        return resolved
    complete = [c for c in resolved if len(c.order) == 4]
    for partial in (c for c in resolved if len(c.order) == 3):
        # Three ordered principles, and the text says where the fourth goes: last.
        (missing,) = set(Principle) - set(partial.order)
        if ordinals.get(missing) == 4:
            complete.append(Order((*partial.order, missing), partial.explicit))
    if not complete:
        return Undecided("no complete order of the four principles was found")
    stated = {c.order for c in complete if c.order != CANONICAL_ORDER or c.explicit}
    if len(stated) > 1:
        return Undecided("the response states more than one order of the principles")
    if stated:
        (order,) = stated
        if order == CANONICAL_ORDER and "?" in clean:
            return Undecided("the response asks a question about the order")
    elif RANKING_CUE.search(clean) and "?" not in clean:
        # Only the principles in their presented order: a ranking only if the text says so.
        order = CANONICAL_ORDER
    else:
        return Undecided("the response repeats the principles in their presented order")
    if _contradicted(clean, order):
        return Undecided("the text places a principle where its listed order does not")
    if REVERSED.search(_without_directions(clean)):
        return Undecided("the text says an order is reversed")
    starts = [c.start for c in complete if c.order == order]
    if ORDER_CORRECTION.search(clean, min(starts, default=0)):
        return Undecided("the order is corrected after it is given")
    return order


def _without_directions(clean: str) -> str:
    for regex in (WORST_FIRST, BEST_FIRST):
        clean = regex.sub(" ", clean)
    return clean


def _directed(clean: str, candidates: list[Order]) -> list[Order] | Undecided:
    """The orders read best first. A list under "from worst to best" is reversed; a list whose
    direction is unclear (a "worst to best" away from it, "in reverse order") makes the answer
    Undecided, and so does an arrow chain under "worst to best" (is "→" "then" or "better")."""
    cue_words: tuple[tuple[re.Pattern[str], Direction], ...] = (
        (WORST_FIRST, "worst"),
        (BEST_FIRST, "best"),
    )
    named: list[tuple[int, int, Direction]] = sorted(
        (m.start(), m.end(), direction)
        for regex, direction in cue_words
        for m in regex.finditer(clean)
    )
    named_starts = [s for s, _, _ in named]
    reach = list(accumulate((e for _, e, _ in named), max))  # furthest end so far

    def held(start: int, end: int) -> bool:
        k = bisect_left(named_starts, end)
        return k > 0 and reach[k - 1] > start

    # "in reverse order", unless it is part of a phrase that names the direction.
    either: list[tuple[int, int, Direction]] = [
        (m.start(), m.end(), "unknown") for m in EITHER_WAY.finditer(clean)
    ]
    cues = sorted(named + [c for c in either if not held(c[0], c[1])])
    starts = [s for s, _, _ in cues]

    def local_cues(order: Order) -> list[int]:
        return [
            i
            for s, e in order.context
            for i in range(bisect_left(starts, s), bisect_left(starts, e))
        ]

    claimed = {i for order in candidates for i in local_cues(order)}
    free = {d for i, (_, _, d) in enumerate(cues) if i not in claimed}
    result = []
    for order in candidates:
        local = {cues[i][2] for i in local_cues(order)}
        direction: Direction = "best"
        if len(local) == 1:
            (direction,) = local
        elif local or free - {"best"} or _low_end_before(clean, order):
            direction = "unknown"
        if order.kind == "fixed":
            result.append(order)
        elif order.kind == "ordinal":
            if {d for _, _, d in cues} - {"best"}:
                # "first", "second" under "worst to best": positions or ranks?
                return Undecided("ordinal words next to a worst-first or reversed order")
            result.append(order)
        elif order.kind == "lt":
            if "best" in local:
                return Undecided("a chain with '<' under the words 'best to worst'")
            result.append(order)
        elif direction == "best":
            result.append(order)
        elif direction == "worst" and order.kind == "listed":
            if len(order.order) == 4:
                result.append(Order(order.order[::-1], True, "fixed", order.context, order.start))
        else:
            return Undecided("it is not clear whether the order runs best first or worst first")
    return result


def _low_end_before(clean: str, order: Order) -> bool:
    """A word for the bottom of a ranking in the words that introduce the order."""
    return any(LOW_END.search(clean, s, min(e, order.start)) for s, e in order.context)


def _contradicted(clean: str, order: tuple[Principle, ...]) -> bool:
    """Whether the text places a principle elsewhere: the prose ("(c) is best"), or a note on
    a list item ("1. (b) - my least favourite" in a list read best first; on an item, only a
    note that ends its clause counts: "(d) - the best", not "(d) - the best at limiting
    inequality")."""
    kept, items = [], []
    in_list = False
    for line in clean.split("\n"):
        item = LIST_LINE.match(line) or line.lstrip().startswith("|")
        if item or (in_list and line.startswith((" ", "\t")) and line.strip()):
            in_list = True
            items.append(line)
            continue
        in_list = False
        kept.append(line)
    found = []
    for text, ordinals in (("\n".join(kept), STRONG_ORDINALS), ("\n".join(items), ITEM_NOTES)):
        for regex in (WORST_FIRST, BEST_FIRST, EITHER_WAY):
            text = regex.sub(" ", text)
        found += assignments(text, ordinals)
    return any(order[rank - 1] is not p for p, rank in found)
