"""Reading a Phase-1 round choice or a secret ballot: one principle, with a whole-dollar
amount for (c) and (d) (docs/frohlich.md §5 "Parsing"). The words looked for are in
``parsing_choice_patterns``; the amount is found by ``parsing_choice_amount``."""

from __future__ import annotations

import re
from bisect import bisect_left

from maai.domain.answer_text import TOO_LONG, normalise_whitespace, too_long
from maai.domain.frohlich.amounts import find_amounts
from maai.domain.frohlich.parsing_choice_amount import (
    amount_for,
    amount_taken_back,
    candidate_amounts,
)
from maai.domain.frohlich.parsing_choice_patterns import (
    APPROXIMATE_AFTER,
    APPROXIMATE_BEFORE,
    ASKING_BEFORE,
    ATTRIBUTED,
    ATTRIBUTED_ZH,
    BARE_WORDS,
    CHOOSING,
    CORRECTION,
    DECIDES_QUOTED,
    DECISION,
    NEGATION,
    OWN_AFTER,
    QUOTATION,
    REFUSAL,
    SENTENCE_END,
    UNREAD_AMOUNT,
)
from maai.domain.frohlich.parsing_text import (
    LETTERS,
    Invalid,
    Mention,
    Parsed,
    ParseResult,
    Undecided,
    clean_text,
    context_before,
    find_mentions,
)
from maai.domain.frohlich.types import Principle, PrincipleChoice


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
    refused = REFUSAL.search(clean) is not None
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
        undeclared = not CHOOSING.search(clean)
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
    amount = amount_for(clean, anchor, mentions)
    what = "floor" if principle is Principle.FLOOR_CONSTRAINT else "range"
    named = f"({principle.value}) {principle.title.lower()}"
    if amount is None:
        if UNREAD_AMOUNT.search(clean):
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
    if amount_taken_back(clean, anchor, amount, mentions):
        return Undecided("the amount is corrected or questioned after the choice")
    if APPROXIMATE_BEFORE.search(
        context_before(clean, amount.start, 30)
    ) or APPROXIMATE_AFTER.match(clean[amount.end : amount.end + 40]):
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
    return latin + chinese // 2 <= BARE_WORDS


def _decisions(clean: str, mentions: list[Mention]) -> list[tuple[re.Match[str], Mention]]:
    """(decision phrase, mention) pairs: mentions that follow a decision phrase ("I choose",
    "My vote:") closely, with the alternatives named right after them ("(c) or (d)")."""
    result: list[tuple[re.Match[str], Mention]] = []
    # Mentions come in order of their start: the ones in a window are found by bisection, so
    # that an answer of many decisions and mentions stays linear.
    starts = [m.start for m in mentions]

    def within(low: int, high: int) -> list[Mention]:
        return mentions[bisect_left(starts, low) : bisect_left(starts, high)]

    for label in DECISION.finditer(clean):
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
                context_before(clean, n.start),
            )
        )
    return chosen


def _asked(clean: str, label: re.Match[str]) -> bool:
    """The decision phrase is part of a hypothetical question ("What if I choose (c)?", "¿Y si
    elijo (b)?", "如果我选(c)呢?", "我选(c)好吗?"); a tag question ("I choose (b), ok?") is not."""
    end = SENTENCE_END.search(clean, label.end())
    if end is None or end.group(0) != "?":
        return False
    before = context_before(clean, label.start(), 200)
    opening = re.split(r"[.!?](?=\s|$)|\n", before)[-1]
    asked_after = clean[max(label.end(), end.start() - 8) : end.start()]
    return bool(ASKING_BEFORE.search(opening) or re.search(r"[吗呢吧]\s*$", asked_after))


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
        for k in CORRECTION.finditer(clean)
        if first < k.start() and any(k.start() <= label.start() for label, _ in decisions)
    ]
    markers = [k for k in markers if k < last]
    return max(markers) if markers else None


def _read_corrected(clean: str, start: int, verb: str) -> ParseResult[PrincipleChoice]:
    result = _read_choice(clean[start:], verb)
    if isinstance(result, Invalid) and candidate_amounts(clean[:start], []):
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
        before = context_before(clean, n.start)
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
            rf"(?:{CORRECTION.pattern})[\s,:;.!\u2014\u2013-]*(?:i\s+mean|make\s+(?:it|that)|"
            r"rather|i'd\s+say|let's\s+say)?[\s,:;\u2014\u2013-]*(?:principle\s+|option\s+)?$",
            before,
        )
        if corrected and re.match(
            r"\s*(?:$|[.!;,)\n]|with\b|at\b|\$|\d|instead\b)", clean[n.end :]
        ):
            return True
    return False


def _negated(clean: str, mention: Mention) -> bool:
    before = re.split(r"[.;:!?\n,]", context_before(clean, mention.start))[-1]
    words = " ".join(before.split()[-4:])
    return bool(NEGATION.search(words))


def _attributed(clean: str, mention: Mention) -> bool:
    """The mention stands for another participant's position ("Bob prefers (b)")."""
    clause = re.split(r"[.;!?\n]", context_before(clean, mention.start, 80))[-1]
    # "Ana prefiere (a), pero yo prefiero (b)": what follows "pero" is the speaker's own.
    clause = OWN_AFTER.split(clause)[-1]
    if ATTRIBUTED.search(clause):
        return True
    # Mandarin: the last such verb has a subject other than "我" ("张三选了", "他们认为").
    verbs = list(ATTRIBUTED_ZH.finditer(clause))
    if not verbs:
        return False
    subject = clause[: verbs[-1].start()].rsplit(",", 1)[-1]
    return re.search("[\u4e00-\u9fff]", subject) is not None and not re.search("我(?!们)", subject)


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
        decision = DECISION.search(clean) is not None
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
            or re.search(DECIDES_QUOTED, before)  # 'My vote: "(c), because ..."'
            or not speech(match.group(0)[1:-1])
        ):
            return match.group(0)
        return match.group(0)[0] + " " + match.group(0)[-1]

    return QUOTATION.sub(blank, text), decisions
