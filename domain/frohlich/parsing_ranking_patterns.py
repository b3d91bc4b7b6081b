"""The words the ranking parser looks for (``parsing_ranking``): ordinal words, list lines,
chains, ties, the direction of a list (best first or worst first), reversals and corrections,
in English, Spanish and Mandarin. Tables only."""

from __future__ import annotations

import re

ORDINALS: tuple[tuple[int, str], ...] = (
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
ORDINALS_ES: tuple[tuple[int, str], ...] = (
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
ORDINALS_ZH: tuple[tuple[int, str], ...] = (
    (1, rf"第(?:一|1)(?:名|位)?{_NOT_A_RANK_ZH}|最好|首选|最喜欢|最公平|最优"),
    (2, rf"第(?:二|2)(?:名|位)?{_NOT_A_RANK_ZH}|其次"),
    (3, rf"第(?:三|3)(?:名|位)?{_NOT_A_RANK_ZH}"),
    (4, rf"第(?:四|4)(?:名|位)?{_NOT_A_RANK_ZH}|最后(?!一轮|轮)|最差|最不喜欢|最不公平|最末"),
)
ORDINAL_RES: tuple[tuple[int, re.Pattern[str]], ...] = (
    *((rank, re.compile(rf"\b(?:{pattern})\b")) for rank, pattern in ORDINALS),
    *((rank, re.compile(rf"\b(?:{pattern})\b")) for rank, pattern in ORDINALS_ES),
    *((rank, re.compile(pattern)) for rank, pattern in ORDINALS_ZH),
)
# Words that place a principle whatever the order of a list: "(c) is best", "(b) is the
# worst". The text must not contradict the order it lists. ("First, ..." opens a sentence.)
STRONG_ORDINALS: tuple[tuple[int, re.Pattern[str]], ...] = tuple(
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
ITEM_NOTES: tuple[tuple[int, re.Pattern[str]], ...] = tuple(
    (rank, re.compile(f"(?:{regex.pattern}){_CLAUSE_ENDS}")) for rank, regex in STRONG_ORDINALS
)
RANKING_CUE = re.compile(
    r"\b(?:rank\w*|order\s+of\s+preference|preference\s+order|best|worst|most\s+preferred|"
    r"least\s+preferred|first\s+choice|top\s+choice|from\s+most|prefer\w*|"
    r"clasificaci[oó]n|clasific[oa]|clasificar\w*|mi\s+orden|orden\s+de\s+preferencia|"
    r"orden[oóa]|ordenar\w*|mejor|peor|prefier\w*|preferid\w*|preferencias?)\b|"
    r"排名|排序|排列|名次|最好|最差|偏好|首选"
)
LIST_LINE = re.compile(
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
INLINE_ITEM = re.compile(r"(?<![\w#])(?<!principle\s)(?<!option\s)([1-4])[.)](?=\s)")
SEQUENCE_SEP = re.compile(
    r"\s*(>|<|,(?!\d)|;|/|\band\s+then\b|\bthen\b|\bfollowed\s+by\b|\band\b|"
    r"\by\s+(?:luego|despu[eé]s)\b|\bluego\b|\bdespu[eé]s\b|\bseguid[oa]\s+(?:de|por)\b|\by\b|"
    r"然后|接着|其次是?|再是|之后是)\s*"
)
CHAIN_WORDS = {
    ">", "<", "then", "and then", "followed by", "luego", "y luego", "después", "despues",
    "y después", "y despues", "seguido de", "seguida de", "seguido por", "seguida por",
    "然后", "接着", "其次", "其次是", "再是", "之后是",
}  # fmt: skip
TIES = re.compile(
    r"\b(?:tie|tied|ties|equally|equal\s+(?:first|second|third|rank\w*)|empate\w*|empatad\w*|"
    r"igualmente|por\s+igual|(?:el\s+)?mismo\s+(?:lugar|puesto|nivel))\b|并列|同样好|一样好|不分上下"
)

# Which way a list runs. Best first is the default; these words, next to a list, say so.
WORST_FIRST = re.compile(
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
BEST_FIRST = re.compile(
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
EITHER_WAY = re.compile(
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
LOW_END = re.compile(
    rf"(?:{_LOW})[^.!?\n]{{0,60}}?(?:{_HIGH})|\b(?:ascend\w*|revers\w*|inverse\w*|invert\w*)\b|"
    r"升序|倒序"
)
# "exactly the reverse", "the opposite order": an order turned round, but which one?
REVERSED = re.compile(
    r"\b(?:reverse[ds]?|reversing|opposite|inverse|inverted|backwards?|upside[\s-]down|"
    r"flip(?:ped|s)?|al\s+rev[eé]s|invers[oa]|invertid[oa]|contrari[oa])\b|相反|反过来|倒过来|颠倒"
)
# Words that correct a listed order after it: "(d) should be second", "swap (a) and (c)".
ORDER_CORRECTION = re.compile(
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
