"""Deterministic parsers for what participants write (docs/frohlich.md §5 "Parsing").

Each parser returns ``Parsed(value)``, ``Undecided(reason)`` (this code cannot tell; the caller
may ask the utility agent) or ``Invalid(reason)`` (decided: the answer is not acceptable; the
reason is addressed to the participant). The parsers prefer Undecided to a guess: a wrong
parse silently corrupts the data, an Undecided costs one utility-agent call.
Decisions the rules leave open are listed in docs/rules.md.
"""

from __future__ import annotations

import re

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

# ---------------------------------------------------------------------------------------------
# Choices and ballots

_DECISION = re.compile(
    r"(?:\bi\s+(?:would\s+|will\s+|hereby\s+|now\s+|therefore\s+|still\s+)?"
    r"(?:choose|chose|pick|select|vote\s+for|vote|go\s+with|opt\s+for|support|cast\s+my\s+"
    r"(?:vote|ballot)\s+for)|\bi(?:'m|\s+am)\s+(?:choosing|picking|selecting|voting\s+for|"
    r"going\s+with|opting\s+for)|\bi'll\s+(?:choose|go\s+with|pick|take|vote\s+for)|"
    r"\bmy\s+(?:final\s+|secret\s+)?(?:choice|vote|ballot|selection|decision|pick|answer)"
    r"(?:\s+is)?|\b(?:final\s+)?(?:choice|vote|ballot|selection|decision|answer|principle)\"?\s*[:=]|"
    r"\belijo|\bescojo|\bvoto\s+por|\bich\s+wähle|\bmeine\s+wahl|\bje\s+choisis|\bmon\s+choix|"
    r"\bje\s+vote\s+pour)"
)
_NEGATION = re.compile(
    r"\b(?:not|never|rather\s+than|instead\s+of|over|unlike|against|reject\w*|avoid\w*|than|"
    r"except|don't|won't|wouldn't|nor)\s*$"
)
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:refuse|decline)|i\s+(?:will\s+not|won't|cannot|can't|do\s+not|don't)\s+"
    r"(?:choose|pick|select|vote|make\s+a\s+choice|take\s+part|participate)|i\s+abstain|"
    r"abstain\w*|none\s+of\s+(?:the|these)|no\s+principle)\b"
)
_NOT_AMOUNT_BEFORE = re.compile(
    r"\b(?:distribution|dist\.?|round|principle|option|class|step|phase|rank|number|no\.)\s*#?\s*$"
)


def parse_choice(text: str) -> ParseResult[PrincipleChoice]:
    """A Phase-1 round choice: one principle, with a whole-dollar amount for (c)/(d)."""
    return _parse_choice(text, "chose")


def parse_ballot(text: str) -> ParseResult[PrincipleChoice]:
    """A secret ballot; the same rules as a choice."""
    return _parse_choice(text, "voted for")


def _parse_choice(text: str, verb: str) -> ParseResult[PrincipleChoice]:
    clean = clean_text(text)
    mentions = find_mentions(clean)
    bare = re.match(r"\s*\(?([a-d])\)?(?=\s*(?:$|[.,:;\-–)]|with\b|at\b|\$|\d))", clean)
    if bare and not any(m.start <= bare.start(1) < m.end for m in mentions):
        mentions.insert(0, Mention(bare.start(1), bare.end(1), LETTERS[bare.group(1)]))
    decided = _decided_mentions(clean, mentions)
    refused = _REFUSAL.search(clean) is not None
    if not decided:
        if refused:
            return Invalid(
                "You did not choose a principle. You must choose exactly one of (a), (b), (c) "
                "or (d); if you choose (c) or (d), also state the amount in whole dollars."
            )
        if "?" in clean:
            return Undecided("the response asks a question and states no decision")
        decided = [m for m in mentions if not _negated(clean, m)]
    principles = {m.principle for m in decided}
    if not principles:
        return Undecided("no principle was found")
    if len(principles) > 1:
        return Undecided("more than one principle is named as the choice")
    anchor = decided[0]
    principle = anchor.principle
    if not principle.needs_amount:
        return Parsed(PrincipleChoice(principle=principle))
    amount = _amount_for(clean, anchor, mentions)
    what = "floor" if principle is Principle.FLOOR_CONSTRAINT else "range"
    named = f"({principle.value}) {principle.title.lower()}"
    if amount is None:
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
    if amount.whole_dollars is None:
        problem = "a whole number"
        if amount.negative or amount.value <= 0:
            problem = "a positive amount"
        return Invalid(
            f"You {verb} {named}, but the amount you gave ({amount.text}) is not {problem} "
            f"of dollars. Please state the {what} as a positive whole number of dollars."
        )
    return Parsed(PrincipleChoice(principle=principle, amount=amount.whole_dollars))


def _decided_mentions(clean: str, mentions: list[Mention]) -> list[Mention]:
    """Mentions that follow a decision phrase ("I choose", "My vote:") closely."""
    result = []
    for label in _DECISION.finditer(clean):
        after = clean[label.end() : label.end() + 60]
        bare = re.match(
            r"[\s:=\"'-]*(?:principle\s+|option\s+)?\(?([a-d])\)?\"?(?=\s*(?:$|[.,;:!)\n]|"
            r"with\b|at\b|of\b|and\b|\())",
            after,
        )
        following = [m for m in mentions if label.end() <= m.start < label.end() + 60]
        if following:
            gap = clean[label.end() : following[0].start]
            if re.fullmatch(r"[\s:=\"'(,-]*(?:(?:the|principle|option|for|is|to|number)\s*)*", gap):
                result.append(following[0])
                continue
        if bare:
            start = label.end() + bare.start(1)
            result.append(Mention(start, start + 1, LETTERS[bare.group(1)]))
    chosen = [m for m in result if not _negated(clean, m)]
    # "I choose (c) or (d)" names two choices: keep the alternatives so the caller sees both.
    for m in list(chosen):
        window = clean[m.end : m.end + 200]
        sentence_end = re.search(r"[.!?](?=\s|$)|\n", window)
        limit = m.end + (sentence_end.start() if sentence_end else len(window))
        chosen.extend(
            n
            for n in mentions
            if m.end <= n.start < limit
            and re.search(
                r"(?:\bor|\band|/|\bversus|\bvs\.?)\s*(?:principle\s+|option\s+)?$",
                _before(clean, n.start),
            )
        )
    return chosen


def _before(clean: str, position: int, width: int = 60) -> str:
    """The few characters before ``position``: the context looked at, bounded so that long
    responses do not make the parsers quadratic."""
    return clean[max(0, position - width) : position]


def _negated(clean: str, mention: Mention) -> bool:
    before = re.split(r"[.;:!?\n,]", _before(clean, mention.start))[-1]
    words = " ".join(before.split()[-3:])
    return bool(_NEGATION.search(words))


def _amount_for(
    clean: str, anchor: Mention, mentions: list[Mention]
) -> AmountMention | Undecided | None:
    """The amount that goes with the chosen principle, preferring the decision sentence."""
    candidates = [
        a
        for a in find_amounts(clean)
        if not any(m.start < a.end and a.start < m.end for m in mentions)
        and not _NOT_AMOUNT_BEFORE.search(_before(clean, a.start))
        and (a.marked or a.value is None or a.value >= 100)
    ]
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
            r"\b(?:amount|floor|range|constraint|limit|value|threshold)\s*[:=]\s*$",
            _before(clean, a.start),
        )
    ]
    if any(
        re.search(r"\b(?:or|to|and|between)\s+(?:\w+\s+)?$|[-–/]\s*$", _before(clean, a.start))
        for a in in_sentence[1:] or candidates[1:]
    ):
        return Undecided("the amount is given as alternatives or a range")
    keyword = (
        "floor|minimum|lowest" if anchor.principle is Principle.FLOOR_CONSTRAINT else "range|gap"
    )
    for group in (after, in_sentence, labelled, candidates):
        if not group:
            continue
        if group is after and _directly_follows(clean, anchor, group[0]):
            return group[0]
        # Several amounts: the one introduced by the principle's own word ("a floor of $X").
        keyed = [
            a for a in group if re.search(rf"\b(?:{keyword})\b\D{{0,20}}$", _before(clean, a.start))
        ]
        for pick in (group, keyed):
            if len({(a.value, a.negative) for a in pick}) == 1:
                return pick[0]
        return Undecided("several different amounts are stated")
    return None


def _directly_follows(clean: str, anchor: Mention, amount: AmountMention) -> bool:
    gap = clean[anchor.end : amount.start]
    return bool(
        re.fullmatch(
            r"[\s,:=(\-–]*(?:(?:with|at|of|and|a|an|the|my|floor|range|constraint|minimum|"
            r"maximum|limit|set|to|amount|is|=|:)\s*)*[\s,:=(\-–]*",
            gap,
        )
    )


# ---------------------------------------------------------------------------------------------
# Phase-2 statements and polls


def parse_vote_proposal(statement: str) -> bool:
    """True when a line of the statement reads ``I PROPOSE A VOTE`` (ignoring case, markdown,
    quotes and punctuation). Nothing else counts: the rule is told to the participants."""
    wanted = VOTE_PROPOSAL_PHRASE.lower()
    for line in statement.splitlines():
        normalized = " ".join(re.sub(r"[^\w\s]|_", " ", line).lower().split())
        if normalized == wanted:
            return True
    return False


_YES = {"yes", "yeah", "yep", "yup", "y", "aye", "sure", "ok", "okay", "agreed", "agree",
        "absolutely", "definitely", "certainly", "affirmative", "ready", "sí", "si", "oui",
        "ja", "是", "是的", "好", "好的", "同意", "да", "sim", "tak"}  # fmt: skip
_NO = {"no", "nope", "nah", "n", "not", "negative", "disagree", "wait", "non", "nein", "不",
       "不是", "否", "不同意", "нет", "não", "nao", "nie"}  # fmt: skip
# Words that, later in the same sentence, contradict the first answer ("Yes, but not yet").
_CLEAR_YES = {"yes", "yeah", "yep", "yup", "sí", "oui", "ja", "是", "是的"}
_CLEAR_NO = {"no", "nope", "nah", "not", "non", "nein", "不"}
_HEDGES = re.compile(
    r"\b(?:maybe|perhaps|possibly|unsure|undecided|depends|not\s+sure|don't\s+know|only\s+if|"
    r"vielleicht|peut-être|quizás|tal\s+vez)\b"
)
_PHRASES: tuple[tuple[bool, str], ...] = (
    (
        False,
        r"not\s+(?:yet|now|ready)|i\s+(?:do\s+not|don't)\s+agree|i\s+disagree|"
        r"i(?:'m|\s+am)\s+not\s+ready|we\s+should\s+wait|let's\s+wait",
    ),
    (
        True,
        r"no\s+objections?|no\s+need\s+to\s+wait|let's\s+vote|let\s+us\s+vote|"
        r"i(?:'m|\s+am)\s+ready|i\s+agree",
    ),
)
_FILLER = re.compile(
    r"^(?:(?:well|hmm+|honestly|so|answer|my\s+answer\s+is|my\s+answer|i\s+say|i\s+think|"
    r"i'd\s+say|i\s+would\s+say|i\s+vote|i\s+will\s+say)\b[\s,:\-]*)+"
)


def parse_poll_answer(text: str) -> Parsed[bool] | Undecided:
    """Yes/no to "hold the vote now?"; hedged or mixed answers are Undecided."""
    clean = clean_text(text).strip()
    labelled = re.search(
        r"\b(?:answer|vote\s+now|hold\s+the\s+vote(?:\s+now)?|response|decision)\s*[:=\-]\s*(.+)",
        clean,
    )
    body = labelled.group(1) if labelled else clean
    sentence = re.split(r"[.!?\n。！？]", body.strip(), maxsplit=1)[0]
    sentence = _FILLER.sub("", sentence.strip(" \"'*-"))
    if _HEDGES.search(sentence):
        return Undecided("the answer is hedged")
    answer: bool | None = None
    rest = sentence
    for value, pattern in _PHRASES:
        m = re.match(pattern, sentence)
        if m:
            answer, rest = value, sentence[m.end() :]
            break
    if answer is None:
        first = re.match(r"[^\W\d_]+", sentence)
        word = first.group(0) if first else ""
        answer = True if word in _YES else False if word in _NO else None
        rest = sentence[first.end() :] if first else sentence
    if answer is None:
        return Undecided("the answer is neither yes nor no")
    words = set(re.findall(r"[^\W\d_]+", rest))
    opposite = words & (_CLEAR_NO if answer else _CLEAR_YES)
    if opposite:
        return Undecided("the answer says both yes and no")
    return Parsed(answer)


# ---------------------------------------------------------------------------------------------
# Memory limits


def count_words(text: str) -> int:
    return len(text.split())


def truncate_words(text: str, limit: int) -> str:
    """The first ``limit`` words of ``text``, with the original spacing between them."""
    if limit <= 0:
        return ""
    for i, m in enumerate(re.finditer(r"\S+", text), 1):
        if i == limit:
            return text[: m.end()]
    return text
