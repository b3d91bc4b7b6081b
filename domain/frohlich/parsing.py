"""Deterministic parsers for what participants write (docs/frohlich.md §5 "Parsing").

Each parser returns ``Parsed(value)``, ``Undecided(reason)`` (this code cannot tell; the caller
may ask the utility agent) or ``Invalid(reason)`` (decided: the answer is not acceptable; the
reason is addressed to the participant). The parsers prefer Undecided to a guess: a wrong
parse silently corrupts the data, an Undecided costs one utility-agent call.
Decisions the rules leave open are listed in docs/rules.md.

English, Spanish and Mandarin are read by the same parsers, whatever the run's language (a
participant may answer in another language): decision phrases ("I choose", "elijo", "我选"),
negations ("no elijo", "我不选"), corrections ("en realidad", "其实", "我改选"), other people's
positions ("Ana prefiere", "张三选了"), yes and no ("sí", "todavía no", "同意", "不同意") and the
vote-proposal line of each language (``VOTE_PROPOSAL_PHRASES``).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from types import MappingProxyType

from maai.domain.answer_text import TOO_LONG, normalise_whitespace, too_long
from maai.domain.frohlich.amounts import AmountMention, find_amounts
from maai.domain.frohlich.parsing_ranking import parse_ranking
from maai.domain.frohlich.parsing_text import (
    LETTERS,
    Invalid,
    Mention,
    Parsed,
    ParseResult,
    Undecided,
    clean_text,
    find_mentions,
)
from maai.domain.frohlich.types import Principle, PrincipleChoice

__all__ = [
    "VOTE_PROPOSAL_PHRASE",
    "VOTE_PROPOSAL_PHRASES",
    "Invalid",
    "ParseResult",
    "Parsed",
    "Undecided",
    "count_words",
    "parse_ballot",
    "parse_choice",
    "parse_poll_answer",
    "parse_ranking",
    "parse_vote_proposal",
    "truncate_words",
]

# The participants are told to end a statement with this line to propose a vote.
VOTE_PROPOSAL_PHRASE = "I PROPOSE A VOTE"
# The same line in each language, by language code; any of them proposes a vote (a
# participant may speak another language than the group).
VOTE_PROPOSAL_PHRASES: Mapping[str, str] = MappingProxyType(
    {"en": VOTE_PROPOSAL_PHRASE, "es": "PROPONGO UNA VOTACIÓN", "zh": "我提议投票"}
)

# ---------------------------------------------------------------------------------------------
# Choices and ballots

_DECISION = re.compile(
    r"(?:\bi\s+(?:would\s+|will\s+|hereby\s+|now\s+|therefore\s+|still\s+)?"
    r"(?:choose|chose|pick|select|vote\s+for|vote|go\s+with|opt\s+for|support|cast\s+my\s+"
    r"(?:vote|ballot)\s+for)|\bi(?:'m|\s+am)\s+(?:choosing|picking|selecting|voting\s+for|"
    r"going\s+with|opting\s+for)|\bi'll\s+(?:choose|go\s+with|pick|take|vote\s+for)|"
    r"\bmy\s+(?:final\s+|secret\s+)?(?:choice|vote|ballot|selection|decision|pick|answer)"
    r"(?:\s+is)?|\b(?:final\s+)?(?:choice|vote|ballot|selection|decision|answer|principle)\"?\s*[:=]|"
    # A heading that names the decision, the decision on the lines below ("**Vote**\n(c) ...").
    r"(?m:^[ \t]*(?:my\s+)?(?:final\s+|secret\s+)?(?:choice|vote|ballot|selection|decision|"
    r"answer)[ \t]*(?=\n))|"
    r"\b(?:yo\s+)?(?:elijo|escojo|selecciono|eleg[ií]|escog[ií]|elegir[eé]|escoger[eé]|"
    r"elegir[ií]a|escoger[ií]a|voto(?:\s+por)?|votar[eé]\s+por|votar[ií]a\s+por|vot[eé]\s+por|"
    r"me\s+quedo\s+con|me\s+decanto\s+por|me\s+inclino\s+por|opto\s+por|apoyo|"
    r"voy\s+a\s+(?:votar\s+por|elegir|escoger))\b|"
    r"\bmi\s+(?:voto|elecci[oó]n|decisi[oó]n|respuesta|papeleta)(?:\s+(?:final|secreto|secreta))?"
    r"(?:\s+es)?|"
    r"\b(?:voto|elecci[oó]n|decisi[oó]n|respuesta|papeleta|principio)(?:\s+final)?\"?\s*[:=]|"
    r"(?:选择|投票|决定|答案|回答|选票|最终选择)\s*[:=]|"
    r"改(?:选择?|投(?:票给|给)?)(?:为|成)?|(?:我)?把(?:我的)?(?:这一)?票投给|我的(?:一)?票投?给|"
    r"我(?:的)?(?:最终)?(?:会|要|想|将|决定|还是|仍然|依然|就|也)?"
    r"(?:投票给|投给|选择|投票|决定|选|投|支持)(?:的是|是)?|"
    r"\bich\s+wähle|\bmeine\s+wahl|\bje\s+choisis|\bmon\s+choix|\bje\s+vote\s+pour)"
)
_NEGATION = re.compile(
    r"\b(?:not|never|rather\s+than|instead\s+of|over|unlike|against|reject\w*|avoid\w*|than|"
    r"except|don't|won't|wouldn't|nor)\s*$"
    # Spanish: "no elijo (a)", "en lugar de (b)", "más que (d)", "ni (a)".
    r"|\b(?:(?:yo\s+)?no\s+(?:elijo|escojo|elegir[eé]|eleg[ií]|elegir[ií]a|escoger[ií]a|"
    r"voto(?:\s+por)?|votar[eé]\s+por|votar[ií]a\s+por|apoyo|prefiero|quiero|me\s+quedo\s+con|"
    r"opto\s+por)|nunca|jam[aá]s|en\s+lugar\s+de|"
    r"en\s+vez\s+de|m[aá]s\s+que|antes\s+que|a\s+diferencia\s+de|contra|rechaz\w*|"
    r"excepto|salvo|menos|ni|sin)\s*$"
    # Mandarin: "我不选(a)", "而不是(b)", "反对(d)".
    r"|(?:(?:不|没有?|别)(?:会|想|要|打算|再)?改?(?:选择?|投(?:票给|给)?|支持|考虑)|不是|而非|"
    r"反对|拒绝|排除|除了)\s*$"
)
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:refuse|decline)|i\s+(?:will\s+not|won't|cannot|can't|do\s+not|don't)\s+"
    r"(?:choose|pick|select|vote|make\s+a\s+choice|take\s+part|participate)|i\s+abstain|"
    r"abstain\w*|none\s+of\s+(?:the|these)|no\s+principle|"
    r"me\s+(?:abstengo|niego)|no\s+(?:elijo|escojo|voto\s+por)\s+ninguno|ninguno\s+de\s+(?:los|"
    r"estos|ellos)|ning[uú]n\s+principio|no\s+(?:voy\s+a\s+)?(?:votar|elegir))\b"
    r"|弃权|我拒绝|都不选|一个都不选|哪个都不选|不投票|不做选择|不选择任何"
)
_NOT_AMOUNT_BEFORE = re.compile(
    r"\b(?:distribution|dist\.?|round|principle|option|class|step|phase|rank|number|no\.|"
    r"distribuci[oó]n|ronda|principio|opci[oó]n|clase|paso|fase|puesto|lugar|n[uú]mero|"
    r"n\.?º)\s*#?\s*$|(?:分配|方案|第|原则|选项|等级|阶段)\s*#?\s*$"
)
# Words that take back what came before: the decision after the last of them is the answer.
_CORRECTION = re.compile(
    r"\b(?:actually|on\s+(?:second|further)\s+thought|wait(?=\s*[,.!:;\u2014\u2013-])|"
    r"correction|scratch\s+that|let\s+me\s+(?:correct|revise|reconsider|change)|"
    r"i\s+(?:change|changed|have\s+changed|revise|am\s+changing)\s+my\s+"
    r"(?:mind|choice|vote|answer|decision|ballot)|changing\s+my\s+(?:mind|choice|vote|answer)|"
    r"(?:up)?on\s+reflection|having\s+reconsidered|after\s+reconsidering|"
    r"i\s+take\s+(?:that|it)\s+back|"
    r"final\s+(?:answer|choice|vote|ballot|decision|selection)|"
    r"pens[aá]ndolo\s+(?:bien|mejor)|mejor\s+dicho|en\s+realidad|(?:me\s+)?corrijo|rectifico|"
    r"cambio\s+(?:de\s+)?(?:opini[oó]n|idea)|he\s+cambiado\s+de\s+(?:opini[oó]n|idea)|"
    r"cambio\s+mi\s+(?:voto|elecci[oó]n|respuesta|decisi[oó]n)|espera(?=\s*[,.!:;\u2014\u2013-])|"
    r"mi\s+(?:respuesta|elecci[oó]n|decisi[oó]n|voto)\s+final)\b"
    r"|\bno\s*[\u2014\u2013-]+|其实|不对|更正|改为|改成|改选|改投|最终|再想想|重新考虑|"
    r"改变(?:了)?主意|改主意|说错了|纠正|算了"
)
# "Bob prefers (b)", "as Dana said, (b) ...": a principle another participant stands for.
_ATTRIBUTED = re.compile(
    r"\b(?!(?:i|i'd|i'm|i'll|me|my)\b)[a-z]+\s+(?:said|says|argued|argues|wrote|writes|"
    r"proposed|proposes|suggested|suggests|prefers|preferred|wants|wanted|favou?rs|favou?red|"
    r"supports|supported|voted|votes|backs|backed|likes|liked|chose|chooses|thinks|believes)\b"
    # Spanish: "Ana prefiere (a)", "como dijo Luis, (b)", "según Ana, (c)".
    r"|\b(?!(?:yo|me|mi)\b)[^\W\d_]+\s+(?:dijo|dice|dec[ií]a|propuso|propone|sugiri[oó]|sugiere|"
    r"prefiere|prefer[ií]a|prefiri[oó]|quiere|quer[ií]a|apoya|apoy[oó]|vota|vot[oó]|eligi[oó]|"
    r"elige|escogi[oó]|escoge|defiende|defendi[oó]|piensa|cree|opina|argumenta|argument[oó]|"
    r"favorece|se\s+inclina)\b|\bseg[uú]n\s+(?!(?:mi|mis|yo|nuestr[oa]s?)\b)[^\W\d_]+"
)
_OWN_AFTER = re.compile(r"\b(?:pero|aunque|sin\s+embargo|mientras\s+que)\b|但是?|不过|可是")
# Mandarin: "张三选了(a)", "正如李四所说, (b)": a verb of saying or choosing whose subject is
# not "我" (I).
_ATTRIBUTED_ZH = re.compile(
    r"(?<![来如])说(?![明服])|认为|觉得|提议|建议|主张|选了|选择了|投了|投给了|支持|喜欢|倾向于?|偏好|赞成|想要|提出"
)
# Amount words the parser does not read (Spanish number words, Chinese numerals before a
# currency): an amount may be there, so its absence is not decided.
_UNREAD_AMOUNT = re.compile(
    r"\b(?:mil|cien|ciento|doce|trece|catorce|quince|diecis[eé]is|diecisiete|dieciocho|"
    r"diecinueve|veinte|veinti\w+|treinta|cuarenta|cincuenta|millones?)\b"
    r"|[零〇一二两三四五六七八九十百千万]\s*(?:美元|元|块)|[0-9]\s*万"
)
# "about $13,000", "$13,000 or so": not a whole-dollar amount the participant settled on.
_APPROXIMATE_BEFORE = re.compile(
    r"\b(?:about|around|roughly|approximately|approx\.?|circa|something\s+like|maybe|perhaps|"
    r"probably|aproximadamente|aprox\.?|unos|alrededor\s+de|cerca\s+de|m[aá]s\s+o\s+menos|"
    r"quiz[aá]s|tal\s+vez)\s*(?:us)?\$?\s*$|~\s*\$?\s*$|(?:大约|大概|约|差不多|左右)\s*\$?\s*$"
)
_APPROXIMATE_AFTER = re.compile(
    r"\s*(?:or\s+so|or\s+more|or\s+less|or\s+thereabouts|or\s+(?:maybe|perhaps|possibly)|"
    r"-?ish\b|give\s+or\s+take|more\s+or\s+less|or\s+(?:a\s+bit|slightly|somewhat)|"
    r"or\s+(?:higher|lower)|plus\s+or\s+minus|"
    r"o\s+(?:m[aá]s|menos|as[ií]|quiz[aá]s|tal\s+vez)\b|m[aá]s\s+o\s+menos|aproximadamente|"
    r"左右|上下|或(?:者)?(?:更多|更少|更高|更低)|多一点|少一点)"
)
_FLOOR_WORDS = r"\b(?:floor|minimum|lowest|piso|suelo|m[ií]nim[oa])\b|底线|最低|下限|保底"
_RANGE_WORDS = r"\b(?:range|gap|rango|diferencia|brecha)\b|范围|差距|极差|区间"


def parse_choice(text: str) -> ParseResult[PrincipleChoice]:
    """A Phase-1 round choice: one principle, with a whole-dollar amount for (c)/(d)."""
    return _parse_choice(text, "chose")


def parse_ballot(text: str) -> ParseResult[PrincipleChoice]:
    """A secret ballot; the same rules as a choice."""
    return _parse_choice(text, "voted for")


def _parse_choice(text: str, verb: str) -> ParseResult[PrincipleChoice]:
    text = normalise_whitespace(text)
    if too_long(text):
        return Undecided(TOO_LONG)
    masked, quoted = _mask_quotations(text)
    return _read_choice(clean_text(masked), verb, quoted_decision=any(quoted))


def _read_choice(
    clean: str, verb: str, *, quoted_decision: bool = False
) -> ParseResult[PrincipleChoice]:
    mentions = find_mentions(clean)
    bare = re.match(r"\s*\(?([a-d])\)?(?=\s*(?:$|[.,:;\-–)]|with\b|at\b|con\b|\$|\d))", clean)
    if bare and not any(m.start <= bare.start(1) < m.end for m in mentions):
        mentions.insert(0, Mention(bare.start(1), bare.end(1), LETTERS[bare.group(1)]))
    decisions = _decisions(clean, mentions)
    corrected = _corrected_from(clean, decisions)
    if corrected is not None:
        return _read_corrected(clean, corrected, verb)
    decided = _drop_conditional(clean, decisions)
    refused = _REFUSAL.search(clean) is not None
    undeclared = False  # a principle named with no word of choosing in the whole answer
    if not decided:
        if refused:
            return Invalid(
                "You did not choose a principle. You must choose exactly one of (a), (b), (c) "
                "or (d); if you choose (c) or (d), also state the amount in whole dollars."
            )
        if "?" in clean:
            return Undecided("the response asks a question and states no decision")
        if quoted_decision:
            return Undecided("the only decision is inside a quotation")
        decided = [m for m in mentions if not _negated(clean, m) and not _attributed(clean, m)]
        if not decided and any(_attributed(clean, m) for m in mentions):
            return Undecided("the principles named are other participants' positions")
        undeclared = not _CHOOSING.search(clean)
    principles = {m.principle for m in decided}
    if not principles:
        return Undecided("no principle was found")
    if len(principles) > 1:
        return Undecided("more than one principle is named as the choice")
    if undeclared and not _bare_answer(clean, mentions):
        return Undecided("a principle is named, but no decision phrase makes it the choice")
    if _alternative_after(clean, decided[0], mentions):
        return Undecided("the choice is followed by an alternative")
    anchor = decided[0]
    principle = anchor.principle
    if not principle.needs_amount:
        return Parsed(PrincipleChoice(principle=principle))
    amount = _amount_for(clean, anchor, mentions)
    what = "floor" if principle is Principle.FLOOR_CONSTRAINT else "range"
    named = f"({principle.value}) {principle.title.lower()}"
    if amount is None:
        if _UNREAD_AMOUNT.search(clean):
            return Undecided("the amount may be written in words the parser does not read")
        explain = (
            "the lowest income you want guaranteed"
            if principle is Principle.FLOOR_CONSTRAINT
            else "the largest allowed difference between the highest and the lowest income"
        )
        return Invalid(
            f"You {verb} {named} but did not state the {what} amount in dollars ({explain}). "
            f"Please state the {what} as a whole number of dollars."
        )
    if isinstance(amount, Undecided):
        return amount
    if amount.value is None:
        return Undecided(f"the amount {amount.text!r} can be read in more than one way")
    if _amount_taken_back(clean, anchor, amount, mentions):
        return Undecided("the amount is corrected or questioned after the choice")
    if _APPROXIMATE_BEFORE.search(_before(clean, amount.start, 30)) or _APPROXIMATE_AFTER.match(
        clean[amount.end : amount.end + 40]
    ):
        return Undecided(f"the amount {amount.text!r} is given as an approximation")
    if amount.whole_dollars is None:
        problem = "a whole number"
        if amount.negative or amount.value <= 0:
            problem = "a positive amount"
        return Invalid(
            f"You {verb} {named}, but the amount you gave ({amount.text}) is not {problem} "
            f"of dollars. Please state the {what} as a positive whole number of dollars."
        )
    return Parsed(PrincipleChoice(principle=principle, amount=amount.whole_dollars))


# An answer without a word of choosing is a choice only when it is little more than the
# principle (and its amount): "(c), $12,000 floor", "Maximizing the average income.", not
# "Maximizing the floor income protects the poorest, which matters to everyone."
_BARE_WORDS = 6
_CHOOSING = re.compile(
    r"\b(?:choos\w*|chose\w*|pick\w*|vot\w*|select\w*|go(?:ing)?\s+(?:with|for)|opt\w*|"
    r"prefer\w*|support\w*|favou?r\w*|back\w*|decid\w*|decision|ballot|answer|"
    r"elij\w*|escoj\w*|eleg\w*|escog\w*|prefier\w*|apoy\w*|decid\w*|decisi[oó]n|respuesta|"
    r"papeleta|choisi\w*|choix|w[äa]hl\w*)\b|选|投|支持|偏好|倾向|决定|答案"
)


def _bare_answer(clean: str, mentions: list[Mention]) -> bool:
    named = [(m.start, m.end) for m in mentions]
    spans = sorted(named + [(a.start, a.end) for a in find_amounts(clean)])
    rest, at = [], 0
    for start, end in spans:
        rest.append(clean[at:start])
        at = max(at, end)
    rest.append(clean[at:])
    words = " ".join(rest)
    chinese = len(re.findall("[\u3400-\u9fff]", words))
    latin = len(re.findall(r"[^\W\d_]+", re.sub("[\u3400-\u9fff]", " ", words)))
    return latin + chinese // 2 <= _BARE_WORDS


def _decisions(clean: str, mentions: list[Mention]) -> list[tuple[re.Match[str], Mention]]:
    """(decision phrase, mention) pairs: mentions that follow a decision phrase ("I choose",
    "My vote:") closely, with the alternatives named right after them ("(c) or (d)")."""
    result: list[tuple[re.Match[str], Mention]] = []
    # Mentions come in order of their start: the ones in a window are found by bisection, so
    # that an answer of many decisions and mentions stays linear.
    starts = [m.start for m in mentions]

    def within(low: int, high: int) -> list[Mention]:
        return mentions[bisect_left(starts, low) : bisect_left(starts, high)]

    for label in _DECISION.finditer(clean):
        after = clean[label.end() : label.end() + 60]
        bare = re.match(
            r"[\s:=\"'-]*(?:principle\s+|option\s+|principio\s+|opci[oó]n\s+|原则|选项)?"
            r"\(?([a-d])\)?\"?(?=\s*(?:$|[.,;:!)\n]|with\b|at\b|of\b|and\b|con\b|de\b|y\b|\(|"
            r"[\u4e00-\u9fff]))",
            after,
        )
        following = within(label.end(), label.end() + 60)
        if following:
            gap = clean[label.end() : following[0].start]
            if re.fullmatch(
                r"[\s:=\"'(,-]*(?:(?:the|principle|option|for|is|to|number|el|la|principio|"
                r"opci[oó]n|por|para|es|n[uú]mero|的是|是|了)\s*)*",
                gap,
            ):
                result.append((label, following[0]))
                continue
        if bare:
            start = label.end() + bare.start(1)
            result.append((label, Mention(start, start + 1, LETTERS[bare.group(1)])))
    chosen = [
        (label, m) for label, m in result if not _negated(clean, m) and not _asked(clean, label)
    ]
    # "I choose (c) or (d)" names two choices: keep the alternatives so the caller sees both.
    for label, m in list(chosen):
        window = clean[m.end : m.end + 200]
        sentence_end = re.search(r"[.!?](?=\s|$)|\n", window)
        limit = m.end + (sentence_end.start() if sentence_end else len(window))
        chosen.extend(
            (label, n)
            for n in within(m.end, limit)
            if re.search(
                r"(?:\bor|\band|/|\bversus|\bvs\.?|\bo|\by|或者?|还是|和|与)\s*"
                r"(?:principle\s+|option\s+|principio\s+)?$",
                _before(clean, n.start),
            )
        )
    return chosen


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n|$")
_ASKING_BEFORE = re.compile(
    r"\b(?:what\s+if|what\s+about|and\s+if|if|should|shall|could|can|may|do\s+you\s+think|"
    r"qu[eé]\s+pasa\s+si|qu[eé]\s+tal\s+si|y\s+si|si|deber[ií]a|puedo|podr[ií]a|"
    r"les\s+parece)\b|¿|如果|假如|要是|是否|能否|应不应该|该不该"
)


def _asked(clean: str, label: re.Match[str]) -> bool:
    """The decision phrase is part of a hypothetical question ("What if I choose (c)?", "¿Y si
    elijo (b)?", "如果我选(c)呢?", "我选(c)好吗?"); a tag question ("I choose (b), ok?") is not."""
    end = _SENTENCE_END.search(clean, label.end())
    if end is None or end.group(0) != "?":
        return False
    before = _before(clean, label.start(), 200)
    opening = re.split(r"[.!?](?=\s|$)|\n", before)[-1]
    asked_after = clean[max(label.end(), end.start() - 8) : end.start()]
    return bool(_ASKING_BEFORE.search(opening) or re.search(r"[吗呢吧]\s*$", asked_after))


def _corrected_from(clean: str, decisions: list[tuple[re.Match[str], Mention]]) -> int | None:
    """Where the final decision starts when an earlier one is taken back ("My choice is (b).
    Actually, no: I choose (c) ..."): the last correction word that comes after a decision and
    before a later one. None when nothing is taken back."""
    if len(decisions) < 2:
        return None
    last = max(m.start for _, m in decisions)
    first = min(m.start for _, m in decisions)
    markers = [
        k.start()
        for k in _CORRECTION.finditer(clean)
        if first < k.start() and any(k.start() <= label.start() for label, _ in decisions)
    ]
    markers = [k for k in markers if k < last]
    return max(markers) if markers else None


def _read_corrected(clean: str, start: int, verb: str) -> ParseResult[PrincipleChoice]:
    result = _read_choice(clean[start:], verb)
    if isinstance(result, Invalid) and _candidate_amounts(clean[:start], []):
        # "(c) at $13,000. Actually, I choose (c)": the corrected choice drops the amount.
        return Undecided("the corrected choice does not restate its amount")
    return result


def _drop_conditional(clean: str, decisions: list[tuple[re.Match[str], Mention]]) -> list[Mention]:
    """Decided mentions, without hypothetical ones ("if the floor were higher I would vote for
    (a)") when the answer labels its decision elsewhere ("My ballot: (c)")."""
    if len({m.principle for _, m in decisions}) < 2:
        return [m for _, m in decisions]

    def conditional(label: re.Match[str]) -> bool:
        if not re.search(r"would|[ií]a\b|会", label.group(0)):
            return False
        bounds = [0, *(b.end() for b in re.finditer(r"[.!?](?=\s|$)|\n", clean))]
        start = max(b for b in bounds if b <= label.start())
        return bool(
            re.search(
                r"\b(?:if|unless|were|si|a\s+menos\s+que)\b|如果|假如|要是|若",
                clean[start : label.end() + 80],
            )
        )

    labelled = [
        (label, m)
        for label, m in decisions
        if re.search(r"[:=]\s*$", label.group(0)) or re.match(r"\s*[:=]", clean[label.end() :])
    ]
    if not labelled or any(conditional(label) for label, _ in labelled):
        return [m for _, m in decisions]
    return [m for label, m in decisions if not conditional(label)]


def _alternative_after(clean: str, chosen: Mention, mentions: list[Mention]) -> bool:
    """A different principle offered after the decision: "(a)... or maybe (d)"."""
    for n in mentions:
        if n.start <= chosen.start or n.principle is chosen.principle:
            continue
        before = _before(clean, n.start)
        if re.search(
            r"(?:\bor|\bo)\s+(?:else\s+)?(?:maybe|perhaps|possibly|quiz[aá]s|tal\s+vez|bien)\s+"
            r"(?:even\s+)?(?:principle\s+|option\s+|principio\s+)?$|"
            r"(?:^|[.!?]\s+)(?:or|o)\s+(?:principle\s+|principio\s+)?$|"
            r"(?:或者|还是|或是|或|也可以|也许|可能)\s*$",
            before,
        ):
            return True
        # "I choose (a), no - (b).": a correction that names another principle and stops.
        corrected = re.search(
            rf"(?:{_CORRECTION.pattern})[\s,:;.!\u2014\u2013-]*(?:i\s+mean|make\s+(?:it|that)|"
            r"rather|i'd\s+say|let's\s+say)?[\s,:;\u2014\u2013-]*(?:principle\s+|option\s+)?$",
            before,
        )
        if corrected and re.match(
            r"\s*(?:$|[.!;,)\n]|with\b|at\b|\$|\d|instead\b)", clean[n.end :]
        ):
            return True
    return False


def _before(clean: str, position: int, width: int = 60) -> str:
    """The few characters before ``position``: the context looked at, bounded so that long
    responses do not make the parsers quadratic."""
    return clean[max(0, position - width) : position]


def _negated(clean: str, mention: Mention) -> bool:
    before = re.split(r"[.;:!?\n,]", _before(clean, mention.start))[-1]
    words = " ".join(before.split()[-4:])
    return bool(_NEGATION.search(words))


def _attributed(clean: str, mention: Mention) -> bool:
    """The mention stands for another participant's position ("Bob prefers (b)")."""
    clause = re.split(r"[.;!?\n]", _before(clean, mention.start, 80))[-1]
    # "Ana prefiere (a), pero yo prefiero (b)": what follows "pero" is the speaker's own.
    clause = _OWN_AFTER.split(clause)[-1]
    if _ATTRIBUTED.search(clause):
        return True
    # Mandarin: the last such verb has a subject other than "我" ("张三选了", "他们认为").
    verbs = list(_ATTRIBUTED_ZH.finditer(clause))
    if not verbs:
        return False
    subject = clause[: verbs[-1].start()].rsplit(",", 1)[-1]
    return re.search("[\u4e00-\u9fff]", subject) is not None and not re.search("我(?!们)", subject)


def _candidate_amounts(clean: str, mentions: list[Mention]) -> list[AmountMention]:
    found = find_amounts(clean)
    if any(a.value is None for a in found) and _reads_as_spanish(clean):
        found = [_spanish_thousands(a) for a in found]
    return [
        a
        for a in found
        if not any(m.start < a.end and a.start < m.end for m in mentions)
        and not _NOT_AMOUNT_BEFORE.search(_before(clean, a.start))
        and (a.marked or a.value is None or a.value >= 100)
    ]


# Spanish writes "12.000" for twelve thousand (and "12,5" for twelve and a half): in an answer
# written in Spanish, a bare dot-grouped figure is read as thousands. In English, or where the
# language is not clear, it stays unread (Undecided): "12.000" could be twelve.
_SPANISH_WORDS = re.compile(
    r"\b(?:el|la|los|las|un|una|con|de|del|que|por|para|es|mi|y|elijo|escojo|voto|piso|rango|"
    r"m[ií]nimo|promedio|d[oó]lares)\b"
)
_ENGLISH_WORDS = re.compile(
    r"\b(?:the|with|of|and|an|is|my|i|floor|range|choose|vote|dollars|at|for|to)\b"
)


def _reads_as_spanish(clean: str) -> bool:
    return len(_SPANISH_WORDS.findall(clean)) >= 2 and not _ENGLISH_WORDS.search(clean)


def _spanish_thousands(amount: AmountMention) -> AmountMention:
    grouped = re.fullmatch(r"(?:us\s?\$|\$)?\s?(\d{1,3})\.(\d{3})", amount.text)
    if amount.value is not None or grouped is None:
        return amount
    return replace(amount, value=Decimal(grouped.group(1) + grouped.group(2)), marked=True)


def _amount_for(
    clean: str, anchor: Mention, mentions: list[Mention]
) -> AmountMention | Undecided | None:
    """The amount that goes with the chosen principle, preferring the decision sentence."""
    candidates = _candidate_amounts(clean, mentions)
    if not candidates:
        return None
    bounds = [0, *(m.end() for m in re.finditer(r"[.!?](?=\s|$)|\n", clean)), len(clean)]
    start = max(b for b in bounds if b <= anchor.start)
    end = min(b for b in bounds if b > anchor.start)
    in_sentence = [a for a in candidates if start <= a.start < end]
    after = [a for a in in_sentence if a.start >= anchor.end]
    labelled = [
        a
        for a in candidates
        if re.search(
            r"(?:\b(?:amount|floor|range|constraint|limit|value|threshold|piso|rango|monto|"
            r"cantidad|cifra|l[ií]mite|m[ií]nimo|restricci[oó]n)|"
            r"底线|范围|差距|金额|数额|下限|上限|限制|约束)\s*[:=]\s*$",
            _before(clean, a.start),
        )
    ]
    if any(
        re.search(
            r"\b(?:or|to|and|between|o|y|entre|hasta)\s+(?:\w+\s+)?$|[-–/~]\s*$|"
            r"(?:或者?|到|至|和|还是|或是)\s*$",
            _before(clean, a.start),
        )
        for a in (in_sentence[1:] if in_sentence else candidates[1:])
    ):
        return Undecided("the amount is given as alternatives or a range")
    keyword = _FLOOR_WORDS if anchor.principle is Principle.FLOOR_CONSTRAINT else _RANGE_WORDS
    for group in (after, in_sentence, labelled, candidates):
        if not group:
            continue
        if group is after and _directly_follows(clean, anchor, group[0]):
            return group[0]
        # Several amounts: the one introduced by the principle's own word ("a floor of $X").
        keyed = [
            a for a in group if re.search(rf"(?:{keyword})\D{{0,20}}$", _before(clean, a.start))
        ]
        for pick in (group, keyed):
            if len({(a.value, a.negative) for a in pick}) == 1:
                return pick[0]
        return Undecided("several different amounts are stated")
    return None


def _amount_taken_back(
    clean: str, anchor: Mention, amount: AmountMention, mentions: list[Mention]
) -> bool:
    """A correction word after the choice, followed by another figure: "I choose (c) with a
    floor of $12,000. Actually, make that $13,000"."""
    for marker in _CORRECTION.finditer(clean, anchor.end):
        later = [a for a in _candidate_amounts(clean, mentions) if a.start > marker.start()]
        if any((a.value, a.negative) != (amount.value, amount.negative) for a in later):
            return True
    return False


def _directly_follows(clean: str, anchor: Mention, amount: AmountMention) -> bool:
    gap = clean[anchor.end : amount.start]
    return bool(
        re.fullmatch(
            r"[\s,:=(\-–]*(?:(?:with|at|of|and|a|an|the|my|floor|range|constraint|minimum|"
            r"maximum|limit|set|to|amount|is|=|:|con|un|una|de|del|el|la|mi|piso|suelo|rango|"
            r"m[ií]nimo|m[aá]ximo|l[ií]mite|restricci[oó]n|es|"
            r"底线|范围|差距|最低收入|收入|不低于|不超过|为|是|定为|设为|设定为|的)\s*)*[\s,:=(\-–]*",
            gap,
        )
    )


# Quotation marks, opening → closing; a quotation is another voice, not the answer.
_QUOTE_PAIRS = {'"': '"', "\u201c": "\u201d", "\u201e": "\u201c", "\u00ab": "\u00bb",
                "\u300c": "\u300d", "\u300e": "\u300f"}  # fmt: skip
_QUOTATION = re.compile(
    "|".join(
        f"{re.escape(o)}[^{re.escape(o + c)}]{{0,2000}}{re.escape(c)}"
        for o, c in _QUOTE_PAIRS.items()
    )
)


# A quotation right after a decision word is the decision itself ({"vote": "(c) ..."}).
_DECIDES_QUOTED = (
    r"(?:\b(?:choose|chose|pick|select|vote\s+for|vote|ballot|choice|answer|decision|principle|"
    r"elijo|escojo|voto(?:\s+por)?|elecci[oó]n|respuesta|decisi[oó]n|principio)"
    r"|我(?:的)?(?:选择|投票给|投给|投|选))[\W_]{0,4}$"
)


def _mask_quotations(text: str) -> tuple[str, list[bool]]:
    """``text`` with quoted speech blanked out: blockquote lines ("> Alice: I vote for (a)")
    and quotations that name a principle among other words (``"I vote for (b) because..."``).
    A quoted principle name alone (``"(c)"``, JSON values) stays, and so does an answer that is
    quoted as a whole. Also returns, per blanked part, whether it states a decision."""
    decisions: list[bool] = []

    def speech(inner: str) -> bool:
        clean = clean_text(inner)
        mentions = find_mentions(clean)
        if not mentions:
            return False
        rest = clean
        for m in reversed(mentions):
            rest = rest[: m.start] + " " + rest[m.end :]
        decision = _DECISION.search(clean) is not None
        # Chinese is written without spaces: two characters count as a word.
        chinese = len(re.findall("[\u3400-\u9fff]", rest))
        words = len(re.findall(r"[^\W\d_]+", re.sub("[\u3400-\u9fff]", " ", rest)))
        if decision or words + chinese // 2 > 4:
            decisions.append(decision)
            return True
        return False

    lines = text.split("\n")
    quoted = [re.match(r"\s*>", line) is not None for line in lines]
    if not all(q for q, line in zip(quoted, lines, strict=True) if line.strip()):
        lines = [
            " " * len(line) if q and speech(re.sub(r"^\s*>+", "", line)) else line
            for q, line in zip(quoted, lines, strict=True)
        ]
    text = "\n".join(lines)
    whole = text.strip()

    def blank(match: re.Match[str]) -> str:
        before = text[max(0, match.start() - 40) : match.start()].lower()
        if (
            match.group(0) == whole
            or re.search(_DECIDES_QUOTED, before)  # 'My vote: "(c), because ..."'
            or not speech(match.group(0)[1:-1])
        ):
            return match.group(0)
        return match.group(0)[0] + " " + match.group(0)[-1]

    return _QUOTATION.sub(blank, text), decisions


# ---------------------------------------------------------------------------------------------
# Phase-2 statements and polls

_QUOTE_MARKS = "\"'\u201c\u201d\u201e\u2018\u2019\u00ab\u00bb\u300c\u300d\u300e\u300f\u2039\u203a"


def _proposal_words(line: str) -> str:
    """A line as words only: no case, accents, markdown or punctuation; Chinese without spaces
    ("我 提议 投票" reads as "我提议投票")."""
    line = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", line))
    line = "".join(c for c in line if not unicodedata.combining(c))
    words = " ".join(re.sub(r"[^\w\s]|_", " ", line).lower().split())
    return re.sub(r"(?<=[\u3400-\u9fff]) (?=[\u3400-\u9fff])", "", words)


_PROPOSAL_LINES = frozenset(_proposal_words(p) for p in VOTE_PROPOSAL_PHRASES.values())


def parse_vote_proposal(statement: str) -> bool:
    """True when a line of the statement reads ``I PROPOSE A VOTE`` or the same phrase in
    another language (``VOTE_PROPOSAL_PHRASES``: "PROPONGO UNA VOTACIÓN", "我提议投票"), ignoring
    case, accents, markdown and punctuation. Nothing else counts: the rule is told to the
    participants. A quoted line (in quotation marks, inside a quotation opened on an earlier
    line, or a "> " blockquote) repeats someone else's words and is not a proposal."""
    lines = normalise_whitespace(statement).splitlines()
    # The last line holding a closing quotation mark (found once: a statement of many
    # proposal lines stays linear).
    closing = max(
        (i for i, line in enumerate(lines) if any(m in line for m in '"\u201d\u00bb')), default=-1
    )
    open_quote = False
    for i, line in enumerate(lines):
        if _proposal_words(line) in _PROPOSAL_LINES:
            quoted = (
                re.match(r"\s*>", line) is not None
                or any(mark in line for mark in _QUOTE_MARKS)
                # Inside a quotation that an earlier line opened and a later line closes.
                or (open_quote and closing > i)
            )
            if not quoted:
                return True
        open_quote = _quote_open_after(line, open_quote)
    return False


def _quote_open_after(line: str, open_quote: bool) -> bool:
    """Whether a quotation is still open at the end of ``line`` (apostrophes aside)."""
    straight = line.count('"')
    curly = line.count("\u201c") + line.count("\u201e") + line.count("\u00ab")
    closing = line.count("\u201d") + line.count("\u00bb")
    if straight % 2:
        open_quote = not open_quote
    if curly > closing:
        open_quote = True
    elif closing > curly:
        open_quote = False
    return open_quote


_YES = {"yes", "yeah", "yep", "yup", "y", "aye", "sure", "ok", "okay", "agreed", "agree",
        "absolutely", "definitely", "certainly", "affirmative", "ready", "fine", "alright",
        "sí", "si", "oui", "ja", "是", "是的", "好", "好的", "同意", "可以", "да", "sim",
        "tak", "claro", "vale", "afirmativo", "venga", "perfecto", "赞成", "赞同"}  # fmt: skip
_NO = {"no", "nope", "nah", "n", "not", "negative", "disagree", "wait", "non", "nein", "不",
       "不是", "否", "不同意", "不行", "нет", "não", "nao", "nie", "negativo"}  # fmt: skip
# Words that, later in the same sentence, contradict the first answer ("Yes, but not yet").
_CLEAR_YES = {"yes", "yeah", "yep", "yup", "sí", "oui", "ja", "是", "是的"}
_CLEAR_NO = {"no", "nope", "nah", "not", "non", "nein", "不"}
_HEDGES = re.compile(
    r"\b(?:maybe|perhaps|possibly|unsure|undecided|depends|not\s+sure|don't\s+know|only\s+if|"
    r"if|unless|as\s+long\s+as|provided|vielleicht|peut-être|quizás|tal\s+vez|si\s+todos)\b"
    # Spanish "si" without an accent is "if" unless it stands alone ("Si, votemos").
    r"|\b(?:quiz[aá]|depende|a\s+lo\s+mejor|puede\s+ser|siempre\s+(?:y\s+cuando|que)|"
    r"a\s+menos\s+que|s[oó]lo\s+si|solamente\s+si|no\s+estoy\s+segur[oa]|no\s+lo\s+s[eé]|"
    r"no\s+s[eé](?=\s*(?:$|[,.;!?]))|si\s+(?=[^\W\d_])|no\s+hay\s+prisa)\b"
    r"|如果|除非|也许|可能|或许|说不定|不一定|不确定|看情况|只要|假如|要是|大概|不好说|不知道"
)
# A "but" after the answer takes part of it back ("Okay, I hear you, but I'd rather wait").
_CONTRAST = re.compile(
    r"\b(?:but|however|although|though|except|that\s+said|pero|aunque|sin\s+embargo|mais|"
    r"aber)\b|但是?|不过|可是|然而"
)
_CONTRAST_START = re.compile(
    r"(?:but|however|although|though|that\s+said|still|on\s+the\s+other\s+hand|pero|"
    r"sin\s+embargo|aunque|mais|aber)\b|但是?|不过|可是|然而"
)
# Wanting to go on talking, anywhere in an answer that began with a yes.
_WANTS_TO_WAIT = re.compile(
    r"(?<!no\sneed\sfor\s)(?<!no\sneed\sto\s)\b(?:keep\s+discussing|continue\s+(?:the\s+)?"
    r"discuss\w*|more\s+discussion|discuss\s+(?:a\s+bit\s+|a\s+little\s+|it\s+)?(?:more|further)|"
    r"not\s+(?:yet|ready)|rather\s+(?:wait|keep|continue|not)|hold\s+off|too\s+(?:early|soon)|"
    r"premature|seguir\s+discutiendo|todav[ií]a\s+no)\b|再讨论|还需要讨论|继续讨论"
    r"|\b(?:seguir\s+(?:hablando|deliberando|debatiendo)|m[aá]s\s+(?:discusi[oó]n|tiempo)|"
    r"otra\s+ronda|una\s+ronda\s+m[aá]s|(?:discutir|debatir|hablar)\s+m[aá]s|a[uú]n\s+no|"
    r"(?<!falta\s)(?<!que\s)esperar|demasiado\s+pronto|prematuro)\b"
    r"|多讨论|再等|还没准备好|太早|为时过早|还不是时候|再想想|再谈谈|再聊聊|更多时间|还需要时间"
)
_WANTS_TO_VOTE = re.compile(
    r"\b(?:let's\s+vote|let\s+us\s+vote|(?<!not\s)ready\s+to\s+vote|vote\s+now)\b"
    r"|\b(?:votemos|vamos\s+a\s+votar|votar\s+(?:ya|ahora)|(?<!no\s)(?:estoy|estamos)\s+"
    r"list[oa]s?\s+para\s+votar)\b|投票吧|(?<!不要)(?<!不想)(?<!别)(?<!不)(?<!支持)(?<!赞成)(?<!同意)(?<!赞同)现在就?投票|开始投票|"
    r"可以投票了"
)
# Spanish and Mandarin yes and no at the start of an answer (the Mandarin ones must end a
# clause where they are short words: "好" yes, but "好像..." is not).
_ZH_CLAUSE_END = r"(?=\s*(?:$|[,.;:!\u2014\u2013-]))"
_PHRASES_ES_ZH: tuple[tuple[bool, str], ...] = (
    (
        False,
        r"prefiero\s+(?:esperar|seguir|continuar)|mejor\s+esperemos|esperemos|en\s+desacuerdo|"
        r"(?:claro|por\s+supuesto|desde\s+luego)\s+que\s+no|de\s+ninguna\s+manera|"
        r"(?:yo\s+)?no\s+estoy\s+de\s+acuerdo|"
        r"(?:我)?(?:不同意|不赞成|不赞同|不支持|反对)|(?:我们?)?(?:暂时不|先不|现在不|再等等|等一等)|"
        r"(?:我)?(?:不要|不想|先别|别)(?:现在)?(?:就)?(?:投票|表决)|"
        rf"(?:不行|不要|否|不是|不好|不){_ZH_CLAUSE_END}",
    ),
    (
        True,
        r"(?:(?:estoy|estamos)\s+)?de\s+acuerdo(?=\s*(?:$|[,;:!.\u2014\u2013-]|en\s+votar|"
        r"con\s+(?:votar|la\s+votaci[oó]n)))|claro|por\s+supuesto|desde\s+luego|adelante|"
        r"no\s+hay\s+(?:ning[uú]n\s+)?(?:problema|inconveniente|objeci[oó]n)|"
        r"no\s+tengo\s+(?:ninguna\s+)?objeci[oó]n|por\s+qu[eé]\s+no|votemos|vamos\s+a\s+votar|"
        r"no\s+veo\s+(?:por\s+qu[eé]\s+no|(?:ning[uú]n\s+)?(?:problema|inconveniente))|"
        r"(?:ning[uú]n|sin)\s+problema|"
        r"(?:estoy|estamos)\s+list[oa]s?|est[aá]\s+bien|"
        r"(?:我)?(?:完全)?(?:同意|赞成)(?=\s*(?:$|[,.;:!\u2014\u2013-])|(?:现在)?(?:就)?(?:投票|表决))|"
        r"(?:我们?)?(?:现在)?(?:就)?(?:投票|表决)吧|当然可以|(?:我)?(?:可以|支持|赞同)(?:现在)?(?:就)?投票|"
        rf"(?:是的|是|好的|好吧|好|可以|行|没问题|没有问题|当然|对){_ZH_CLAUSE_END}",
    ),
)
# Words that contradict a first Mandarin answer later in the sentence.
_ZH_LATER_NO = re.compile("不同意|反对|还没|还不|不想|不要|不行|再等")
_ZH_LATER_YES = re.compile("(?<!不)同意|赞成|投票吧")
# Yes phrases that hold a "no" ("Sí, no hay problema"): not a contradiction.
_YES_WITH_NO = re.compile(
    r"\bno\s+hay\s+(?:ning[uú]n\s+)?(?:problema|inconveniente|objeci[oó]n)|"
    r"\bno\s+tengo\s+(?:ninguna\s+)?objeci[oó]n|\bpor\s+qu[eé]\s+no\b|"
    r"\bno\s+(?:hace\s+falta|hay\s+que)\s+esperar"
)
_PHRASES: tuple[tuple[bool, str], ...] = (
    (
        False,
        r"(?:absolutely|definitely|certainly|of\s+course)\s+not|not\s+at\s+all|"
        r"let's\s+not|let\s+us\s+not|todav[ií]a\s+no|a[uú]n\s+no|还没|还不",
    ),
    (
        True,
        r"no\s+(?:strong\s+)?objections?|no\s+need\s+to\s+wait|no\s+problem|not\s+a\s+problem|"
        r"why\s+not|not\s+(?:opposed|against\s+it)|of\s+course|de\s+acuerdo|let's\s+vote|"
        r"let\s+us\s+vote|i(?:'m|\s+am)\s+ready|i\s+agree(?=\s*(?:$|[,;:!.\u2014\u2013-]|"
        r"to\s+(?:vote|hold)|we\s+should\s+vote))",
    ),
    (
        False,
        r"not\s+(?:yet|now|ready)|i\s+(?:do\s+not|don't)\s+agree(?=\s*(?:$|[,;:!.\u2014\u2013-]))|"
        r"i\s+disagree(?=\s*(?:$|[,;:!.\u2014\u2013-]))|i(?:'m|\s+am)\s+not\s+ready|"
        r"we\s+should\s+wait|let's\s+wait",
    ),
)
_FILLER = re.compile(
    r"^(?:(?:well|hmm+|honestly|so|answer|my\s+answer\s+is|my\s+answer|i\s+say|i\s+think|"
    r"i'd\s+say|i\s+would\s+say|i\s+vote|i\s+will\s+say|"
    r"bueno|pues|mi\s+respuesta\s+es|mi\s+respuesta|respuesta|yo\s+digo|digo|creo\s+que|"
    r"dir[ií]a\s+que|opino\s+que|mmm+)\b[\s,:\-]*"
    r"|(?:嗯+|我觉得|我认为|我的回答是|我的答案是|回答是?|答案是?)[\s,:\-]*)+"
)


def parse_poll_answer(text: str) -> Parsed[bool] | Undecided:
    """Yes/no to "hold the vote now?"; hedged, mixed or taken-back answers are Undecided."""
    text = normalise_whitespace(text)
    if too_long(text):
        return Undecided(TOO_LONG)
    clean = clean_text(text).strip()
    labelled = re.search(
        r"(?:\b(?:answer|vote\s+now|hold\s+the\s+vote(?:\s+now)?|response|decision|respuesta|"
        r"decisi[oó]n)|回答|答案|答复)\s*[:=\-]\s*(.+)",
        clean,
    )
    body = labelled.group(1) if labelled else clean
    sentences = [
        s.strip() for s in re.findall(r"[^.!?\n]+[.!?]*", body.strip()) if re.search(r"[^\W_]", s)
    ]
    # A leading question ("Ready? Not quite.") is not the answer, unless it is one ("Why not?").
    while len(sentences) > 1 and sentences[0].endswith("?") and not _answer_phrase(sentences[0]):
        sentences.pop(0)
    if not sentences:
        return Undecided("the answer is neither yes nor no")
    sentence = _FILLER.sub("", sentences[0].rstrip(".!?").strip(" \"'*-¡¿"))
    if _HEDGES.search(sentence):
        return Undecided("the answer is hedged")
    answer, rest = _first_answer(sentence)
    if answer is None:
        return Undecided("the answer is neither yes nor no")
    words = set(re.findall(r"[^\W\d_]+", _YES_WITH_NO.sub(" ", rest) if answer else rest))
    if words & (_CLEAR_NO if answer else _CLEAR_YES):
        return Undecided("the answer says both yes and no")
    if (_ZH_LATER_NO if answer else _ZH_LATER_YES).search(rest):
        return Undecided("the answer says both yes and no")
    following = sentences[1] if len(sentences) > 1 else ""
    if _CONTRAST.search(rest) or _CONTRAST_START.match(following):
        return Undecided("the answer is taken back in part")
    if answer and _WANTS_TO_WAIT.search(body):
        return Undecided("the answer says yes but asks to go on discussing")
    if not answer and _WANTS_TO_VOTE.search(body):
        return Undecided("the answer says no but asks to vote")
    return Parsed(answer)


def _answer_phrase(sentence: str) -> bool:
    sentence = _FILLER.sub("", sentence.rstrip(".!?").strip(" \"'*-¡¿"))
    return any(re.match(pattern, sentence) for _, pattern in (*_PHRASES, *_PHRASES_ES_ZH))


def _first_answer(sentence: str) -> tuple[bool | None, str]:
    """The yes or no a sentence opens with, and what follows it."""
    for value, pattern in (*_PHRASES, *_PHRASES_ES_ZH):
        m = re.match(pattern, sentence)
        if m:
            return value, sentence[m.end() :]
    first = re.match(r"[^\W\d_]+", sentence)
    word = first.group(0) if first else ""
    answer = True if word in _YES else False if word in _NO else None
    return answer, sentence[first.end() :] if first else sentence


# ---------------------------------------------------------------------------------------------
# Memory limits


# Chinese and Japanese are written without spaces between words: each of their characters
# counts as a word (a Mandarin word is one to two characters, so a limit of N words allows a
# little less text than N English words), and their full-width punctuation separates words.
_WIDE_WORD_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WIDE_PUNCTUATION = "\u3000-\u303f\uff00-\uffef"
_WORD = re.compile(
    f"[{_WIDE_WORD_CHARS}]|[^\\s{_WIDE_WORD_CHARS}{_WIDE_PUNCTUATION}]+"
)


_WIDE = re.compile(f"[{_WIDE_WORD_CHARS}{_WIDE_PUNCTUATION}]")


def count_words(text: str) -> int:
    """Words as the memory limit counts them: runs of characters between spaces, and each
    Chinese or Japanese character on its own (docs/frohlich.md §5)."""
    if _WIDE.search(text) is None:
        return len(text.split())  # the same count, without a match object per word
    return len(_WORD.findall(text))


def truncate_words(text: str, limit: int) -> str:
    """The first ``limit`` words of ``text`` (as ``count_words`` counts them), with the
    original spacing between them."""
    if limit <= 0:
        return ""
    for i, m in enumerate(_WORD.finditer(text), 1):
        if i == limit:
            return text[: m.end()]
    return text
