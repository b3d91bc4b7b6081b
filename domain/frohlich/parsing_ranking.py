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
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate
from typing import Literal

from maai.domain.answer_text import TOO_LONG, normalise_whitespace, too_long
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
    (
        1,
        r"first|1st|best|top|most\s+(?:preferred|just|favou?red)|(?<!least\s)favou?rite|"
        r"number\s+one",
    ),
    (2, r"second|2nd|next\s+best|number\s+two"),
    (3, r"third|3rd|number\s+three"),
    (
        4,
        r"fourth|4th|last|worst(?![\s-]off)|least\s+(?:preferred|just|favou?red|favou?rite|liked)|"
        r"bottom",
    ),
)
# Spanish and Mandarin ordinals ("(c) primero", "第一：(c)", "最后是(b)"). Mandarin is matched
# without word boundaries; "第一轮" (the first round) is not a rank.
_ORDINALS_ES: tuple[tuple[int, str], ...] = (
    (
        1,
        r"primer[oa]?|1[ºª°]|(?:el|la|lo|mi)\s+mejor|mejor\s+opci[oó]n|favorit[oa]|"
        r"(?:m[aá]s\s+)?preferid[oa]|en\s+primer\s+lugar|m[aá]s\s+just[oa]",
    ),
    (2, r"segund[oa]|2[ºª°]|en\s+segundo\s+lugar"),
    (3, r"tercer[oa]?|3[ºª°]|en\s+tercer\s+lugar"),
    (
        4,
        r"cuart[oa]|4[ºª°]|[uú]ltim[oa]|(?:el|la|lo)\s+peor|peor\s+opci[oó]n|"
        r"menos\s+(?:preferid[oa]|just[oa])|en\s+(?:cuarto|[uú]ltimo)\s+lugar|por\s+[uú]ltimo",
    ),
)
_NOT_A_RANK_ZH = r"(?!轮|次|回合|阶段|步|部分|个分配|种分配|分配)"
_ORDINALS_ZH: tuple[tuple[int, str], ...] = (
    (1, rf"第(?:一|1)(?:名|位)?{_NOT_A_RANK_ZH}|最好|首选|最喜欢|最公平|最优"),
    (2, rf"第(?:二|2)(?:名|位)?{_NOT_A_RANK_ZH}|其次"),
    (3, rf"第(?:三|3)(?:名|位)?{_NOT_A_RANK_ZH}"),
    (4, rf"第(?:四|4)(?:名|位)?{_NOT_A_RANK_ZH}|最后(?!一轮|轮)|最差|最不喜欢|最不公平|最末"),
)
_ORDINAL_RES: tuple[tuple[int, re.Pattern[str]], ...] = (
    *((rank, re.compile(rf"\b(?:{pattern})\b")) for rank, pattern in _ORDINALS),
    *((rank, re.compile(rf"\b(?:{pattern})\b")) for rank, pattern in _ORDINALS_ES),
    *((rank, re.compile(pattern)) for rank, pattern in _ORDINALS_ZH),
)
# Words that place a principle whatever the order of a list: "(c) is best", "(b) is the
# worst". The text must not contradict the order it lists. ("First, ..." opens a sentence.)
_STRONG_ORDINALS: tuple[tuple[int, re.Pattern[str]], ...] = tuple(
    (rank, re.compile(rf"\b(?:{pattern})\b"))
    for rank, pattern in (
        (
            1,
            r"(?<!at\s)best(?![\s-]off)|most\s+(?:preferred|just|favou?red)|(?<!least\s)favou?rite|"
            r"top\s+choice|first\s+(?:choice|place)|number\s+one|rank(?:ed)?\s+(?:first|#?1)",
        ),
        (2, r"second\s+(?:choice|place|best)|next\s+best|rank(?:ed)?\s+(?:second|#?2)"),
        (3, r"third\s+(?:choice|place)|rank(?:ed)?\s+(?:third|#?3)"),
        (
            4,
            r"(?<!at\s)worst(?![\s-]off)|least\s+(?:preferred|just|favou?red|favou?rite|liked)|"
            r"last\s+(?:choice|place)|rank(?:ed)?\s+(?:last|fourth|#?4)",
        ),
        # ("En primer lugar, ..." opens a sentence, like "First, ...".)
        (
            1,
            r"mi\s+(?:primera\s+opci[oó]n|favorit[oa])|(?:el|la)\s+mejor\s+(?:opci[oó]n|principio)",
        ),
        (4, r"(?:el|la)\s+peor\s+(?:opci[oó]n|principio)|mi\s+[uú]ltima\s+opci[oó]n"),
    )
) + tuple(
    (rank, re.compile(pattern))
    for rank, pattern in (
        (1, r"首选|最喜欢|最好(?!的办法)|排(?:名)?第一"),
        (4, r"最不喜欢|最差|排(?:名)?(?:最后|第四)"),
    )
)
# A note on a list item that places it: a strong ordinal that ends its clause.
_CLAUSE_ENDS = r"(?=\s*(?:$|[.,;:!)(]|of\s+(?:the|all|them|these)\b))"
_ITEM_NOTES: tuple[tuple[int, re.Pattern[str]], ...] = tuple(
    (rank, re.compile(f"(?:{regex.pattern}){_CLAUSE_ENDS}")) for rank, regex in _STRONG_ORDINALS
)
_RANKING_CUE = re.compile(
    r"\b(?:rank\w*|order\s+of\s+preference|preference\s+order|best|worst|most\s+preferred|"
    r"least\s+preferred|first\s+choice|top\s+choice|from\s+most|prefer\w*|"
    r"clasificaci[oó]n|clasific[oa]|clasificar\w*|mi\s+orden|orden\s+de\s+preferencia|"
    r"orden[oóa]|ordenar\w*|mejor|peor|prefier\w*|preferid\w*|preferencias?)\b|"
    r"排名|排序|排列|名次|最好|最差|偏好|首选"
)
_LIST_LINE = re.compile(
    r"""^(?P<indent>[ \t]*)(?:
        (?P<ord>first|second|third|fourth|1st|2nd|3rd|4th|best|worst|last|top|bottom
            |primer[oa]?|segund[oa]|tercer[oa]?|cuart[oa]|[uú]ltim[oa]|mejor|peor
            |第[一二三四1-4](?:名|位)?|最好|最差|最后)
            (?:\s+(?:choice|place|preference|rank|pick|option|principle
                |lugar|puesto|opci[oó]n|principio|preferencia))?\s*[:.)\-–]
      | (?:rank(?:ed)?|place|position|no\.?|puesto|lugar|posici[oó]n|排名|名次)
            \s*\#?(?P<rnum>[1-4])\s*[:.)\-–]?
      | \#?(?P<num>[1-4])\s*[.):\-–]
      | (?P<bullet>[-•+])
    )\s*(?P<rest>\S.*)$""",
    re.VERBOSE,
)
# "1. (c) 2. (a) 3. (d) 4. (b)" on one line; "principle 3." is not a list number.
_INLINE_ITEM = re.compile(r"(?<![\w#])(?<!principle\s)(?<!option\s)([1-4])[.)](?=\s)")
_SEQUENCE_SEP = re.compile(
    r"\s*(>|<|,(?!\d)|;|/|\band\s+then\b|\bthen\b|\bfollowed\s+by\b|\band\b|"
    r"\by\s+(?:luego|despu[eé]s)\b|\bluego\b|\bdespu[eé]s\b|\bseguid[oa]\s+(?:de|por)\b|\by\b|"
    r"然后|接着|其次是?|再是|之后是)\s*"
)
_CHAIN_WORDS = {
    ">", "<", "then", "and then", "followed by", "luego", "y luego", "después", "despues",
    "y después", "y despues", "seguido de", "seguida de", "seguido por", "seguida por",
    "然后", "接着", "其次", "其次是", "再是", "之后是",
}  # fmt: skip
_TIES = re.compile(
    r"\b(?:tie|tied|ties|equally|equal\s+(?:first|second|third|rank\w*)|empate\w*|empatad\w*|"
    r"igualmente|por\s+igual|(?:el\s+)?mismo\s+(?:lugar|puesto|nivel))\b|并列|同样好|一样好|不分上下"
)

# Which way a list runs. Best first is the default; these words, next to a list, say so.
_WORST_FIRST = re.compile(
    r"""\bworst(?![\s-]off)\s+(?:one\s+)?(?:to|through|up\s+to)\s+(?:the\s+)?best(?![\s-]off)\b
      | \bleast\s+(?:\w+\s+){0,2}?(?:to|through)\s+(?:the\s+)?most\b
      | \b(?:least\s+(?:preferred|favou?red|favou?rite|liked|desirable|just)|worst(?![\s-]off))
          (?:\s+(?:one|principle|option))?\s+first\b
      | \b(?:start|starting|begin|beginning)\s+(?:with|from|at)\s+(?:the\s+|my\s+)?
          (?:worst|least|bottom)\b
      | \b(?:ascending|increasing)\s+order\s+of\s+(?:preference|desirability|justice|fairness)\b
      | \border\s+of\s+increasing\s+preference\b
      | \breversed?\s+order\s+of\s+preference\b
      | \b(?:best|favou?rite|most\s+preferred)(?:\s+one)?\s+(?:for\s+)?last\b
      | \b(?:best(?![\s-]off)|(?<!least\s)favou?rite|most\s+preferred|top\s+choice|first\s+choice)
          (?:\s+(?:one|principle|option))?\s+(?:is\s+|comes\s+|goes\s+)?(?:at|on)\s+the\s+
          (?:bottom|end)\b
      | \b(?:worst(?![\s-]off)|least\s+(?:preferred|favou?red|favou?rite|liked))
          (?:\s+(?:one|principle|option))?\s+(?:is\s+|comes\s+|goes\s+)?(?:at|on)\s+the\s+top\b
      | \b(?:mi\s+)?(?:favorit[oa]|preferid[oa])\s+(?:est[aá]\s+|va\s+|queda\s+)?
          (?:al\s+final|abajo|en\s+[uú]ltimo\s+lugar)\b
      | 最喜欢的\S{0,3}?(?:放|排)在最后 | 最好的\S{0,3}?(?:放|排)在最后
      | \bbottom\s+(?:to|up\s+to)\s+(?:the\s+)?top\b | \bfrom\s+the\s+bottom\s+up\b
      | \bdel?\s+(?:(?:lo|la|el|los|las)\s+)?peor(?:es)?\s+al?\s+(?:(?:lo|la|el|los|las)\s+)?mejor
      | \bmenos\s+(?:\w+\s+)?(?:a|al|hasta\s+el)\s+(?:la\s+|lo\s+)?m[aá]s\b
      | \borden\s+(?:ascendente|creciente)\s+de\s+preferencia\b
      | \bvom\s+schlechtesten\s+zum\s+besten\b | \bdu\s+pire\s+au\s+meilleur\b
      | 从最差到最好 | 从差到好 | 从最不\S{0,6}?到最 | (?:偏好|喜好)(?:程度)?从低到高 | 升序""",
    re.VERBOSE,
)
_BEST_FIRST = re.compile(
    r"""\bbest(?![\s-]off)\s+(?:one\s+)?(?:to|through)\s+(?:the\s+)?worst(?![\s-]off)\b
      | \bmost\s+(?:\w+\s+){0,2}?(?:to|through)\s+(?:the\s+)?least\b
      | \b(?:best|most\s+preferred|favou?rite|top)(?:\s+(?:one|principle|option))?\s+first\b
      | \b(?:worst(?![\s-]off)|least\s+preferred)(?:\s+one)?\s+(?:for\s+)?last\b
      | \b(?:start|starting|begin|beginning)\s+(?:with|from|at)\s+(?:the\s+|my\s+)?
          (?:best|most|top|favou?rite)\b
      | \b(?:descending|decreasing)\s+order\s+of\s+(?:preference|desirability|justice|fairness)\b
      | \border\s+of\s+decreasing\s+preference\b
      | \btop\s+to\s+(?:the\s+)?bottom\b
      | \b(?:mi\s+)?(?:favorit[oa]|preferid[oa])\s+(?:est[aá]\s+|va\s+|queda\s+)?
          (?:primero|arriba|al\s+principio|en\s+primer\s+lugar)\b
      | 最喜欢的\S{0,3}?(?:放|排)在(?:最前|第一|前面)
      | \b(?:best(?![\s-]off)|(?<!least\s)favou?rite|most\s+preferred|top\s+choice|first\s+choice)
          (?:\s+(?:one|principle|option))?\s+(?:is\s+|comes\s+|goes\s+)?(?:at|on)\s+the\s+top\b
      | \b(?:worst(?![\s-]off)|least\s+(?:preferred|favou?red|favou?rite|liked))
          (?:\s+(?:one|principle|option))?\s+(?:is\s+|comes\s+|goes\s+)?(?:at|on)\s+the\s+
          (?:bottom|end)\b
      | \bdel?\s+(?:(?:lo|la|el|los|las)\s+)?mejor(?:es)?\s+al?\s+(?:(?:lo|la|el|los|las)\s+)?peor
      | \bm[aá]s\s+(?:\w+\s+)?(?:a|al|hasta\s+el)\s+(?:la\s+|lo\s+)?menos\b
      | \borden\s+(?:descendente|decreciente)\s+de\s+preferencia\b
      | \bvom\s+besten\s+zum\s+schlechtesten\b | \bdu\s+meilleur\s+au\s+pire\b
      | 从最好到最差 | 从好到差 | 从最(?!不)\S{0,6}?到最不 | 降序
      | (?:偏好|喜好)(?:程度)?从高到低""",
    re.VERBOSE,
)
_EITHER_WAY = re.compile(
    r"""\b(?:in\s+reverse|(?:reversed?|inverse|inverted)\s+order|ascending|descending|
          (?:increasing|decreasing)\s+order|orden\s+inverso|ascendente|descendente)\b
      | 倒序 | 逆序""",
    re.VERBOSE,
)
# A low end then a high end in the words that introduce a list, in wording no phrase above
# knows ("de la peor a la mejor", "least liked ... most liked"): the direction is left open.
_LOW = (
    r"\bworst(?![\s-]off)|(?<!at\s)\bleast\b|\blowest\b|\bbottom\b|\bpeor(?:es)?\b|\bmenos\b|"
    r"\bpire\b|\bmoins\b|\bschlechteste\w*|最差|最不|最低"
)
_HIGH = (
    r"\bbest(?![\s-]off)|\bmost\b|\btop\b|\bfirst\b|\bhighest\b|\bmejor(?:es)?\b|\bm[aá]s\b|"
    r"\bmeilleur\b|\bplus\b|\bbeste\w*|最好|最高|最喜欢"
)
_LOW_END = re.compile(
    rf"(?:{_LOW})[^.!?\n]{{0,60}}?(?:{_HIGH})|\b(?:ascend\w*|revers\w*|inverse\w*|invert\w*)\b|"
    r"升序|倒序"
)
# "exactly the reverse", "the opposite order": an order turned round, but which one?
_REVERSED = re.compile(
    r"\b(?:reverse[ds]?|reversing|opposite|inverse|inverted|backwards?|upside[\s-]down|"
    r"flip(?:ped|s)?|al\s+rev[eé]s|invers[oa]|invertid[oa]|contrari[oa])\b|相反|反过来|倒过来|颠倒"
)
# Words that correct a listed order after it: "(d) should be second", "swap (a) and (c)".
_ORDER_CORRECTION = re.compile(
    r"\b(?:should\s+(?:be|come|go|rank|have\s+been)\s+(?:ranked\s+|placed\s+|put\s+)?"
    r"(?:the\s+)?(?:first|second|third|fourth|last|1st|2nd|3rd|4th|#?[1-4]|number\s+\w+|higher|"
    r"lower|above|below|ahead|before|after|on\s+top)|swap\w*|switch\w*|mov(?:e|ed|ing)\s+"
    r"(?:\(?[a-d]\)|it|that|them|up|down)|i\s+meant|correction|actually|on\s+second\s+thought|"
    r"wait(?=\s*[,.!:;\u2014\u2013-])|mistake|typo|scratch\s+that|let\s+me\s+(?:correct|fix|revise)|"
    r"deber[ií]a\s+(?:ser|ir|estar|quedar)\s+(?:el\s+|la\s+|en\s+)?(?:primer[oa]?|segund[oa]|"
    r"tercer[oa]?|cuart[oa]|[uú]ltim[oa]|antes|despu[eé]s)|en\s+realidad|mejor\s+dicho|(?:me\s+)?corrijo|"
    r"intercambi\w*|quise\s+decir|error|instead|oops|other\s+way\s+a?round|mix(?:ed)?\s+up|"
    r"belongs?\s+(?:in\s+)?(?:the\s+)?(?:first|second|third|fourth|last|top|bottom)|"
    r"make\s+(?:that|it)|"
    r"al\s+rev[eé]s)\b"
    r"|应该(?:排|放|是)(?:在)?(?:第[一二三四1-4]|最后|前面|后面)|其实|更正|调换|对调|换一下|改为|改成|说错|写错|纠正"
)
Direction = Literal["best", "worst", "unknown"]
# How an order was written: "fixed" states each rank (rank labels or column, ordinal words,
# a countdown list); "listed" is the order of writing (list positions, bullets, rows, commas);
# "gt" / "lt" are chains with ">" / "<" (an arrow "→" reads as ">"); "ordinal" comes from
# ordinal words in prose ("(c) first, (a) second ...").
Kind = Literal["fixed", "listed", "gt", "lt", "ordinal"]


@dataclass(frozen=True)
class _Order:
    order: tuple[Principle, ...]
    explicit: bool  # stated as a ranking (">", best/worst, a rank column), not just listed
    kind: Kind = "fixed"
    # Where words about its direction belong to it: the sentence that holds it, or the last
    # sentence of the line that introduces it ("My ranking, from worst to best:").
    context: tuple[tuple[int, int], ...] = ()
    start: int = 0  # where the order itself begins


class _Ambiguous(Exception):
    """An order was found whose reading is not certain: the whole answer is Undecided."""


def parse_ranking(text: str) -> ParseResult[Ranking]:
    """A complete best-to-worst order of the four principles plus one certainty."""
    text = normalise_whitespace(text)
    if too_long(text):
        return Undecided(TOO_LONG)
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
    if _TIES.search(clean):
        return Undecided("the response ranks some principles equally")
    try:
        candidates = [*_list_orders(clean), *_table_orders(clean), *_sequence_orders(clean)]
    except _Ambiguous as ambiguous:
        return Undecided(str(ambiguous))
    ordinals = _ordinal_assignments(clean)
    if len(ordinals) == 4 and len(set(ordinals.values())) == 4:
        by_rank = tuple(sorted(ordinals, key=ordinals.__getitem__))
        candidates.append(_Order(by_rank, True, "ordinal"))
    resolved = _directed(clean, candidates)
    if isinstance(resolved, Undecided):
        return resolved
    complete = [c for c in resolved if len(c.order) == 4]
    for partial in (c for c in resolved if len(c.order) == 3):
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
        if order == CANONICAL_ORDER and "?" in clean:
            return Undecided("the response asks a question about the order")
    elif _RANKING_CUE.search(clean) and "?" not in clean:
        # Only the principles in their presented order: a ranking only if the text says so.
        order = CANONICAL_ORDER
    else:
        return Undecided("the response repeats the principles in their presented order")
    if _contradicted(clean, order):
        return Undecided("the text places a principle where its listed order does not")
    if _REVERSED.search(_without_directions(clean)):
        return Undecided("the text says an order is reversed")
    starts = [c.start for c in complete if c.order == order]
    if _ORDER_CORRECTION.search(clean, min(starts, default=0)):
        return Undecided("the order is corrected after it is given")
    return order


def _without_directions(clean: str) -> str:
    for regex in (_WORST_FIRST, _BEST_FIRST):
        clean = regex.sub(" ", clean)
    return clean


def _directed(clean: str, candidates: list[_Order]) -> list[_Order] | Undecided:
    """The orders read best first. A list under "from worst to best" is reversed; a list whose
    direction is unclear (a "worst to best" away from it, "in reverse order") makes the answer
    Undecided, and so does an arrow chain under "worst to best" (is "→" "then" or "better")."""
    named: list[tuple[int, int, Direction]] = sorted(
        (m.start(), m.end(), direction)
        for regex, direction in ((_WORST_FIRST, "worst"), (_BEST_FIRST, "best"))
        for m in regex.finditer(clean)
    )
    named_starts = [s for s, _, _ in named]
    reach = list(accumulate((e for _, e, _ in named), max))  # furthest end so far

    def held(start: int, end: int) -> bool:
        k = bisect_left(named_starts, end)
        return k > 0 and reach[k - 1] > start

    # "in reverse order", unless it is part of a phrase that names the direction.
    either = [(m.start(), m.end(), "unknown") for m in _EITHER_WAY.finditer(clean)]
    cues = sorted(named + [c for c in either if not held(c[0], c[1])])
    starts = [s for s, _, _ in cues]

    def local_cues(order: _Order) -> list[int]:
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
                result.append(_Order(order.order[::-1], True, "fixed", order.context, order.start))
        else:
            return Undecided("it is not clear whether the order runs best first or worst first")
    return result


def _low_end_before(clean: str, order: _Order) -> bool:
    """A word for the bottom of a ranking in the words that introduce the order."""
    return any(_LOW_END.search(clean, s, min(e, order.start)) for s, e in order.context)


def _contradicted(clean: str, order: tuple[Principle, ...]) -> bool:
    """Whether the text places a principle elsewhere: the prose ("(c) is best"), or a note on
    a list item ("1. (b) - my least favourite" in a list read best first; on an item, only a
    note that ends its clause counts: "(d) - the best", not "(d) - the best at limiting
    inequality")."""
    kept, items = [], []
    in_list = False
    for line in clean.split("\n"):
        item = _LIST_LINE.match(line) or line.lstrip().startswith("|")
        if item or (in_list and line.startswith((" ", "\t")) and line.strip()):
            in_list = True
            items.append(line)
            continue
        in_list = False
        kept.append(line)
    found = []
    for text, ordinals in (("\n".join(kept), _STRONG_ORDINALS), ("\n".join(items), _ITEM_NOTES)):
        for regex in (_WORST_FIRST, _BEST_FIRST, _EITHER_WAY):
            text = regex.sub(" ", text)
        found += _assignments(text, ordinals)
    return any(order[rank - 1] is not p for p, rank in found)


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
    result = []
    for number, line in enumerate(clean.split("\n")):
        marks = list(_INLINE_ITEM.finditer(line))
        if [int(m.group(1)) for m in marks] in ([1, 2, 3, 4], [1, 2, 3]):
            ends = [m.start() for m in marks[1:]] + [len(line)]
            result.extend(
                (number, m.start(), f"{m.group(1)}. {line[m.end() : end].strip()}")
                for m, end in zip(marks, ends, strict=True)
            )
        else:
            result.append((number, 0, line))
    return result


def _list_orders(clean: str) -> list[_Order]:
    groups: list[tuple[tuple[int, int], list[tuple[int, Principle | None, str]]]] = []
    current: list[tuple[int, Principle | None, str]] = []
    first_line = (0, 0)
    kind: str | None = None
    indent = 0
    for number, column, line in _lines_with_inline_lists(clean):
        m = _LIST_LINE.match(line)
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
    for (line, column), items in groups:
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
            context: tuple[tuple[int, int], ...] = (_sentence_at(clean, starts[line] + column - 1),)
        else:
            context = _introduction(clean, line, lines, starts)
        start = starts[line] + column
        if "rank" in labels or (written == sorted(written, reverse=True)):
            # Rank labels, or a countdown "4. ... 1.": each line states its rank.
            orders.append(_Order(order, True, "fixed", context, start))
        else:
            orders.append(_Order(order, False, "listed", context, start))
    return orders


def _ordinal_rank(word: str) -> int:
    if word in ("mejor", "peor"):  # "Mejor: (c)", "Peor: (b)" as list labels
        return 1 if word == "mejor" else 4
    for rank, pattern in (*_ORDINALS, *_ORDINALS_ES, *_ORDINALS_ZH):
        if re.fullmatch(pattern, word):
            return rank
    raise ValueError(word)


def _table_orders(clean: str) -> list[_Order]:
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
        raise _Ambiguous("a column of the table may hold the ranks, under an unknown header")
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
        return [_Order(order, True, "fixed")]
    starts = _line_starts(clean)
    context = _introduction(clean, header_line, clean.split("\n"), starts)
    return [_Order(order, False, "listed", context, starts[header_line])]


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
    for rank, pattern in _ORDINALS:
        if re.fullmatch(rf"(?:{pattern})(?:\s*\(.*\))?", cell):
            return rank
    return None


def _sequence_orders(clean: str) -> list[_Order]:
    """Orders written on one line: "c > a > d > b", "(c), then (a), then (d), and last (b)",
    "floor constraint, floor, range constraint, average", "3 > 1 > 4 > 2"."""
    orders: list[_Order] = []
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
                pieces = _SEQUENCE_SEP.split(segment)
            parts, seps = pieces[::2], {s.strip() for s in pieces[1::2]}
            parts = [p.strip(" \"'[]{}-–—") for p in parts]
            parts = [p for p in parts if p]
            if len(parts) not in (3, 4) or len(seps & {">", "<"}) > 1:
                continue
            chained = bool(seps & _CHAIN_WORDS)
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
                    raise _Ambiguous(
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
            context = (_sentence_at(clean, start),)
            if not line[:at].strip(" ([{*-:"):
                # "From worst to best:\n(b), (d), (a), (c)"
                context += _introduction(clean, number, lines, starts)
            ordered = order[::-1] if "<" in seps else order
            orders.append(_Order(ordered, explicit, kind, context, start))
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
    return any(r.search(line) for r in (_WORST_FIRST, _BEST_FIRST)) or bool(
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


def _ordinal_assignments(clean: str) -> dict[Principle, int]:
    """Principle → rank from clauses like "(c) is my first choice" or "worst: (b)"."""
    assigned: dict[Principle, int] = {}
    for principle, rank in _assignments(clean, _ORDINAL_RES):
        if assigned.get(principle, rank) != rank or (
            rank in assigned.values() and assigned.get(principle) != rank
        ):
            return {}
        assigned[principle] = rank
    return assigned


def _assignments(
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


# ---------------------------------------------------------------------------------------------
# Certainty

_LEVELS: tuple[tuple[Certainty, str], ...] = (
    (
        Certainty.VERY_UNSURE,
        r"very\s+(?:unsure|uncertain)|extremely\s+unsure|completely\s+unsure|sehr\s+unsicher|"
        r"not\s+at\s+all\s+(?:sure|certain|confident)|"
        r"très\s+incertaine?|muy\s+insegur[oa]|no\s+estoy\s+(?:nada|para\s+nada)\s+segur[oa]|"
        r"(?:totalmente|completamente)\s+insegur[oa]|nada\s+segur[oa]|"
        r"非常不确定|很不确定|完全不确定|十分不确定|非常没有把握|完全没有把握|非常没有信心",
    ),
    (
        Certainty.VERY_SURE,
        r"very\s+(?:sure|certain|confident)|extremely\s+(?:sure|certain|confident)|"
        r"absolutely\s+(?:sure|certain)|completely\s+(?:sure|certain)|highly\s+(?:certain|confident)|"
        r"sehr\s+sicher|très\s+sûre?|muy\s+segur[oa]|"
        r"(?:totalmente|completamente|absolutamente)\s+segur[oa]|"
        r"非常确定|很确定|十分确定|完全确定|非常有把握|很有把握|非常有信心|很有信心|十分有信心",
    ),
    (
        Certainty.NO_OPINION,
        r"no\s+(?:strong\s+)?opinion|neutral|indifferent|keine\s+meinung|sans\s+opinion|"
        r"aucune\s+opinion|sin\s+opini[oó]n|ninguna\s+opini[oó]n|"
        r"no\s+tengo\s+(?:una\s+|ninguna\s+)?opini[oó]n(?:\s+formada)?|"
        r"没有意见|无意见|没意见|中立|无所谓",
    ),
    (
        Certainty.UNSURE,
        r"unsure|uncertain|"
        r"not\s+(?:very\s+|really\s+|entirely\s+|too\s+|that\s+)?(?:sure|certain|confident)|"
        r"unsicher|incertaine?|pas\s+sûre?|insegur[oa]|poco\s+segur[oa]|"
        r"no\s+estoy\s+(?:muy\s+|del\s+todo\s+|tan\s+)?segur[oa]|"
        r"(?:algo|un\s+poco|bastante)\s+insegur[oa]|"
        r"不太确定|不大确定|不确定|没有?把握|没有?信心|不太有信心",
    ),
    (
        Certainty.SURE,
        r"(?:fairly\s+|pretty\s+|quite\s+|reasonably\s+)?(?:sure|certain|confident)|sicher|sûre?|"
        r"(?:bastante\s+|razonablemente\s+)?segur[oa]|比较确定|确定|比较有把握|有把握|比较有信心|有信心",
    ),
)
_LEVEL = "|".join(f"(?P<{c.value}>{p})" for c, p in _LEVELS)
_LABELLED = re.compile(
    r"(?:\b(?:certainty|confidence|sicherheit|certitude|certeza|seguridad|confianza)|确定程度|确定性|"
    r"确信程度|把握程度|信心程度|确信度|确定度|信心)(?:\s+(?:level|rating))?"
    r"\"?\s*(?:is|es|:|=|-|–|—)\s*\"?(?:i\s+am\s+|i'm\s+|i\s+feel\s+|estoy\s+|我)?"
    r"(?:\d\s*(?:/\s*5)?\s*[-(]?\s*)?"
    # A level ends at a word's end; Chinese text may go straight on ("确定程度：确定因为...").
    rf"(?:{_LEVEL})(?![a-z\u00c0-\u024f])"
)
_SELF = re.compile(
    r"\b(?:i\s+am|i'm|i\s+feel|i\s+remain|feeling|ich\s+bin|je\s+suis|(?<!no\s)estoy|"
    r"(?<!no\s)me\s+siento|(?<!no\s)sigo)\s+"
    rf"(?:{_LEVEL})\b(?!\s+(?:that|whether|if|how|what|which|who|when|why|where)\b)"
    # "Estoy seguro de que ..." is sure of something else.
    r"(?!\s+(?:de\s+)?(?:que|si|c[oó]mo|cu[aá]l|qu[eé]|qui[eé]n)\b)"
)
# Mandarin: "我非常确定。", "我对这个排名不太确定"; the level must end the clause ("我确定(c)最好"
# is sure of something else).
_SELF_ZH = re.compile(
    r"我(?!们)(?:对[^,.;!?\n]{0,12}?)?(?:感到|觉得|是|还是|仍然|依然|也)?"
    rf"(?:{_LEVEL})(?=\s*(?:$|[,.;!?\n]|的\s*[.!\n]))"
)
# "No estoy muy seguro de esto": a Spanish negation before the self-statement.
_SELF_NEGATED = re.compile(
    r"\b(?:(?P<very_unsure>no\s+(?:estoy|me\s+siento)\s+(?:nada|para\s+nada)\s+segur[oa])\b"
    r"|\b(?P<unsure>no\s+(?:estoy|me\s+siento)\s+(?:muy\s+|del\s+todo\s+|tan\s+)?segur[oa])\b)"
    r"(?!\s+(?:de\s+)?(?:que|si|c[oó]mo|cu[aá]l|qu[eé]|qui[eé]n)\b)"
)
_STANDALONE = re.compile(rf"(?:^|[.!?]\s+)[\s\-•(\[]*(?:{_LEVEL})[\s.!)\]]*$", re.MULTILINE)
_PARENTHESIZED = re.compile(rf"\((?:{_LEVEL})\)")


def _certainty(clean: str) -> Certainty | None | Literal["conflict"]:
    """The single certainty stated; None if none; "conflict" if several differ."""
    for sources in ((_LABELLED,), (_SELF, _SELF_NEGATED, _SELF_ZH, _STANDALONE, _PARENTHESIZED)):
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
