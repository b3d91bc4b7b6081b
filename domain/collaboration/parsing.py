"""Deterministic parsers for the collaboration game's answers (docs/collaboration.md §2).

Answers come in labelled parts (``MESSAGE:``, ``BELIEF:``, ``PREDICTION:``, ``REASONING:``,
``CHOICE:``), as the prompts ask. A number must be one whole number from 0 to 100; a choice
one of the agent's own options. Where the text cannot be read for sure the parser says
Undecided (the utility agent reads the numbers or the choice next); a hedged, bounded, ranged
or out-of-range number is Invalid (the participant is told why). A wrong value is far worse
than a missing one: a number quoted from someone else, a choice that is negated or hedged,
two candidates for one value are Undecided, never guessed.

The message is never read by the utility agent: it is the part after ``MESSAGE:`` (or the
text before the first label, when there is one and it is not a preamble such as "Here is my
answer:"). An answer without labels cannot be split into a public message and private
numbers, so it is sent back (docs/collaboration.md §2).

Only the labels a step asks for split an answer (a turn: ``MESSAGE``, ``BELIEF``,
``PREDICTION``, ``REASONING``; a decision: ``CHOICE``, ``REASONING``), and ``Decision:`` and
``Reply:`` stand for ``CHOICE:`` and ``MESSAGE:`` only in an answer that does not use those:
"Decision: ..." inside a message is part of the message. Every reader works on the answer with
its whitespace runs bounded, and reads no answer longer than ``MAX_READ_CHARS``
(maai.domain.answer_text).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from maai.domain.answer_text import TOO_LONG, normalise_whitespace, too_long
from maai.domain.reading import Invalid, Parsed, ParseResult, Undecided

_QUOTES = "*_`\"'“”‘’"
LABELS = ("message", "belief", "prediction", "reasoning", "choice")
# A label starts a line: markdown (bullets, quotes, headings, bold) around it, an optional
# qualifier before it ("Updated belief", "Final choice"), an optional object after it
# ("Message to Ben", "Prediction of Ben's belief") or a parenthetical ("Belief (0-100)"), then
# a colon.
_LABEL = re.compile(
    r"^[ \t>*_#-]*+(?:\*\*|__)?\s*+"
    r"(?:(?:my|updated|new|current|revised|initial|final)\s+)?"
    r"(message|reply|belief|prediction|reasoning|choice|decision)"
    r"(?:\s+(?:to|for|of)\s+[A-Za-z][\w'’ -]{0,30}?)?"
    r"(?:\s*\([^)\n]{0,30}\))?"
    r"\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?",
    re.IGNORECASE | re.MULTILINE,
)
_ALIASES = {"decision": "choice", "reply": "message"}
TURN_LABELS = ("message", "belief", "prediction", "reasoning")
DECISION_LABELS = ("choice", "reasoning")

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_DIGITS = "|".join(k for k, v in _UNITS.items() if 0 < v < 10)
_WORD_NUMBER = re.compile(
    r"\b(?:(?P<hundred>(?:one\s+|a\s+)?hundred)"
    rf"|(?P<tens>{'|'.join(_TENS)})(?:[\s-](?P<unit>{_DIGITS}))?"
    rf"|(?P<small>{'|'.join(_UNITS)}))\b",
    re.IGNORECASE,
)
_SPELLED = "|".join([*_TENS, *_UNITS, "a", "hundred"])
# A hedge: an approximating word before a number ("about 70", not "good about this"), or a
# word that makes any number uncertain ("maybe", "or so", "70ish", "~70").
_HEDGE = re.compile(
    r"(?:\b(?:around|about|approximately|approx\.?|roughly|circa|close\s+to|nearly|almost|"
    r"somewhere(?:\s+(?:around|near|between|in))?)\s+(?:\d|(?:" + _SPELLED + r")\b)"
    r"|\b(?:maybe|perhaps|more\s+or\s+less|give\s+or\s+take|or\s+so|ish)\b"
    r"|(?<=[\d-])ish\b|~|≈|±|\+/-)",
    re.IGNORECASE,
)
# A bound is not a value: "at least 70", "over 60", "70+", "70 or more".
_BOUND = re.compile(
    r"(?:\b(?:at\s+least|at\s+most|no\s+less\s+than|no\s+more\s+than|not\s+less\s+than|"
    r"not\s+more\s+than|more\s+than|less\s+than|fewer\s+than|greater\s+than|higher\s+than|"
    r"lower\s+than|over|under|above|below|up\s+to|upwards\s+of|north\s+of|south\s+of)\s+\d"
    r"|[<>≤≥]\s*=?\s*\d|\d\s*%?\s*\+(?!\s*\d)"
    r"|\d\s*%?\s+or\s+(?:more|less|higher|lower|above|below|better|so)\b)",
    re.IGNORECASE,
)
# Fractions in words ("three quarters", "two thirds", "half") are not read: "three" is not 3.
_FRACTION = re.compile(r"\b(?:half|halves|thirds?|quarters?|fifths?|tenths?)\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.,])(-?\d+(?:[.,]\d+)?)(?![\w.,]*\d)")
_RANGE = re.compile(r"\d\s*%?\s*(?:-|–|—|to)\s*\d|\bbetween\s+\S+\s+and\s+\S+", re.IGNORECASE)
# "up by 10 points", "10 points higher", "+10": a change stated alone, not the level.
_BY_CHANGE = re.compile(
    r"\b(?:up|down|raised?|raising|lowered|lower(?:ing)?|increased?|increasing|decreased?|"
    r"decreasing|dropp?(?:ed|ing)?|drops|rose|risen|rises?|fell|fallen|falls?|gone|went|moved|"
    r"bumped|shifted|adjusted|revised|nudged|cut|boosted|climbed|slipped)\b[^.\n]{0,30}?"
    r"\bby\s+(?:\d|(?:" + _SPELLED + r")\b)"
    r"|\b(?:up|down)\s+\d"
    r"|\b(?:increase|decrease|rise|drop|jump|gain|fall|change|shift|bump|boost)\s+of\s+\d"
    r"|\b(?:add(?:s|ed|ing)?|subtract\w*|knock\w*\s+off)\s+\d"
    r"|\b(?:up|down|rais\w*|lower\w*|increas\w*|decreas\w*|drop\w*|ris\w*|rose|fell|fall\w*|"
    r"bump\w*|boost\w*|cut\w*|shav\w*|knock\w*|nudg\w*|mov\w*|shift\w*|adjust\w*)\b"
    r"[^.\n]{0,20}?\d+\s*(?:percentage\s+)?(?:points?|pts?|pp)\b"
    r"|\d\s*%?\s*(?:percentage\s+)?(?:points?|pts?|%)?\s+(?:higher|lower|up|down|more|less)\b"
    r"|(?<![\w.])\+\s*\d",
    re.IGNORECASE,
)
# "from 60 to 70": a change, whose end the utility agent reads.
_CHANGE = re.compile(
    r"\b(?:from|was|were|previously|before|up|down|raised|lowered|moved|changed)\b"
    r"[^.\n]{0,20}?\d",
    re.IGNORECASE,
)
_OUT_OF_100 = re.compile(
    r"\s*(?:/|\bout\s+of\b|\bin\b)\s*(?:100\b|(?:a|one)\s+hundred\b)", re.IGNORECASE
)
# Someone else's number quoted in the part that states one's own (and the reverse).
_QUOTED_NUMBER = re.compile(
    r"[\"“”«»][^\"“”«»\n]{0,80}?(?:\d|\b(?:" + "|".join([*_TENS, *_UNITS]) + r")\b)"
    r"[^\"“”«»\n]{0,80}?[\"“”«»]",
    re.IGNORECASE,
)
_PARTNER_SAID = re.compile(
    r"\b(?:(?i:you|he|she|they|partner)|[A-Z][a-z]+)\s+(?:(?!I\b)\w+\s+)?"
    r"(?i:said|say|says|wrote|write|writes|mentioned|mention|stated|state|claimed|claim|"
    r"claims|told|quoted|suggested)\b"
    r"|(?i:\byour\s+(?:own\s+)?(?:belief|estimate|number|figure|percentage|guess|odds)\b)"
    r"|(?i:\b(?:you(?:'re|\s+are)|they(?:'re|\s+are))\s+(?:at|on)\b)"
)
_SELF_SAID = re.compile(
    r"\b(?:i(?:'m|\s+am)\s+(?:at|on)\b|my\s+own\b|my\s+(?:belief|confidence)\b|myself\b)",
    re.IGNORECASE,
)
# "on a scale of 0-100" and the like: the scale, not a range.
_SCALE = re.compile(
    r"\(?\s*(?:on\s+a\s+scale\s+(?:of|from)\s+)?\b0\s*(?:-|–|—|to)\s*100\b(?:\s*scale)?\s*\)?",
    re.IGNORECASE,
)


def _marks(text: str, asked: Collection[str]) -> list[tuple[str, re.Match[str]]]:
    """(label, match) of each line that starts a part the step asks for. An alias
    ("Decision:", "Reply:") is a label only where its label itself is not used."""
    found = [(m.group(1).lower(), m) for m in _LABEL.finditer(text)]
    used = {word for word, _ in found}
    marks = []
    for word, mark in found:
        label = _ALIASES.get(word, word)
        if label not in asked or (word != label and label in used):
            continue
        marks.append((label, mark))
    return marks


def sections(text: str, asked: Collection[str] = LABELS) -> dict[str, str]:
    """The labelled parts of an answer (label -> text up to the next label), of the labels
    ``asked``; ``decision`` counts as ``choice``, ``reply`` as ``message`` (see ``_marks``).
    A label given twice keeps its last part (models correct themselves). The text is read
    with its whitespace runs bounded."""
    text = normalise_whitespace(text)
    found: dict[str, str] = {}
    marks = _marks(text, asked)
    for i, (label, mark) in enumerate(marks):
        end = marks[i + 1][1].start() if i + 1 < len(marks) else len(text)
        found[label] = text[mark.end() : end].strip().strip("*_").strip()
    return found


def before_labels(text: str, asked: Collection[str] = LABELS) -> str:
    text = normalise_whitespace(text)
    marks = _marks(text, asked)
    return (text[: marks[0][1].start()] if marks else text).strip()


_PREAMBLE = re.compile(
    r"(?::\s*$|^(?:sure|okay|ok|certainly|of\s+course|here(?:'s|\s+is|\s+are)|my\s+answer"
    r"|answer|response)\b[^\n]{0,60}$)",
    re.IGNORECASE,
)


def parse_percent(text: str, what: str) -> ParseResult[int]:
    """One whole number from 0 to 100: ``70``, ``70%``, ``70/100``, ``seventy percent``.
    ``what`` is ``belief`` (one's own) or ``prediction`` (the partner's): a number that the
    text attributes to the other one is not read; a change ("up by 10") is not a level."""
    text = normalise_whitespace(text)
    if too_long(text):
        return Undecided(TOO_LONG)
    cleaned = _SCALE.sub(" ", text).strip().strip(_QUOTES).strip()
    if not cleaned:
        return Undecided(f"no {what} given")
    if _HEDGE.search(cleaned):
        return Invalid(
            f"Your {what} must be one whole number from 0 to 100, not an approximate one "
            f"({cleaned[:40]!r})."
        )
    if _BOUND.search(cleaned):
        return Invalid(
            f"Your {what} must be one whole number from 0 to 100, not a bound ({cleaned[:40]!r})."
        )
    if _FRACTION.search(cleaned):
        return Undecided(f"the {what} is given as a fraction in words")
    if _CHANGE.search(cleaned) and len(_candidates(cleaned)) > 1:
        return Undecided(f"the {what} states a change: several numbers")
    if _BY_CHANGE.search(cleaned):
        return Undecided(f"the {what} is stated as a change, not as a level")
    if _RANGE.search(cleaned):
        return Invalid(f"Your {what} must be one number from 0 to 100, not a range.")
    if _QUOTED_NUMBER.search(cleaned):
        return Undecided(f"the {what} quotes a number")
    other = _PARTNER_SAID if what == "belief" else _SELF_SAID
    if other.search(cleaned):
        return Undecided(f"the {what} refers to another number than the one asked")
    found = _candidates(cleaned)
    if len(found) != 1:
        return Undecided(f"expected one number for the {what}, found {len(found)}")
    kind, raw = found[0]
    if kind == "word":
        value = int(raw)
    else:
        raw = raw.replace(",", ".")
        if len(raw.lstrip("-").split(".")[0].lstrip("0")) > 3:  # float() of 309 digits overflows
            return Invalid(f"Your {what} must be between 0 and 100; {raw[:12]}... is not.")
        if "." in raw:
            number = float(raw)
            if number <= 1:
                return Undecided(f"{raw} could be a probability or a percentage")
            if not number.is_integer():
                return Invalid(f"Your {what} must be a whole number from 0 to 100.")
        value = int(float(raw))
    if not 0 <= value <= 100:
        return Invalid(f"Your {what} must be between 0 and 100; {value} is not.")
    return Parsed(value)


def _candidates(text: str) -> list[tuple[str, str]]:
    """Each number the text states (``("digits", "70")`` or ``("word", "70")``), "out of 100"
    dropped."""
    text = _OUT_OF_100.sub("", text)
    numbers = [("digits", m.group(1)) for m in _NUMBER.finditer(text)]
    words = [("word", str(_word_value(m))) for m in _WORD_NUMBER.finditer(text)]
    return numbers + words


def _word_value(match: re.Match[str]) -> int:
    if match.group("hundred"):
        return 100
    if match.group("small"):
        return _UNITS[match.group("small").lower()]
    value = _TENS[match.group("tens").lower()]
    if match.group("unit"):
        value += _UNITS[match.group("unit").lower()]
    return value


# A choice that is negated, excluded, hedged or conditional is not read: "anything but B",
# "too risky to commit to B, so I'll stay independent".
_CHOICE_DOUBT = re.compile(
    r"\b(?:not|never|no|n't|nor|neither|rather\s+than|instead\s+of|against|avoid\w*|reject\w*|"
    r"except|unless|if|or|either|maybe|perhaps|probably|possibly|might|could|unsure|"
    r"undecided|lean\w*|tempted|torn|considering|between|versus|vs|but|other\s+than|"
    r"besides|apart\s+from|aside\s+from|instead|without|too|risky|unsafe|afraid|skip\w*|"
    r"pass\s+on|stay\w*|independent\w*|alone|individual\w*|solo|own\s+way|walk\s+away|"
    r"out\s+of|drop\w*|exclud\w*|rul\w+\s+out|anything|whatever|forget|declin\w*|refus\w*|"
    r"abandon\w*|give\s+up|bail\w*|steer\s+clear|off\s+the\s+table|away\s+from|out)\b|n't\b",
    re.IGNORECASE,
)
_BARE = r"^[\s*_`\"'(\[]*(?:option\s+)?[(\[]?(?P<name>[A-Za-z][A-Za-z0-9]*)[)\]]?[\s*_`\"'.!]*"
_BARE_TAIL = re.compile(
    _BARE + r"(?:\((?:collaborative|individual|the\s+individual\s+option)\)[\s.!]*)?$",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^[\s*_`\"'(\[]*(?:option\s+)?[(\[]?(?P<name>[A-Za-z][A-Za-z0-9]*)[)\]]?[*_`\"']*"
    r"\s*(?:[.,;:!—–(-]|$)",
    re.IGNORECASE,
)
_CHOOSE = (
    r"(?:option|choose|choosing|chose|pick|picking|select|selecting|take|taking|opt\s+for|"
    r"go\s+(?:for|with)|going\s+(?:for|with))"
)


def parse_option(text: str, own: list[str], others: list[str]) -> ParseResult[str]:
    """One of the agent's own options, named by its name (``A``, ``Option A``, ``(A)``, "I'll
    go with C."). Several options named, or one named with a negation or a hedge ("not A",
    "A or maybe B"), is Undecided; an option the agent does not have, named alone, is
    Invalid."""
    text = normalise_whitespace(text)
    if too_long(text):
        return Undecided(TOO_LONG)
    cleaned = text.strip().strip(_QUOTES).strip()
    if not cleaned:
        return Undecided("no choice given")
    own_upper = _upper(own)
    foreign = [o for o in others if o.upper() not in own_upper]
    bare = _BARE_TAIL.match(cleaned)
    if bare is not None:
        name = bare.group("name").upper()
        for option in own:
            if option.upper() == name:
                return Parsed(option)
        for option in foreign:
            if option.upper() == name:
                return Invalid(
                    f"You do not have option {option}; your options are {', '.join(own)}."
                )
    mentioned = _mentions(cleaned, own) + _mentions(cleaned, foreign)
    if len({m.upper() for m in mentioned}) > 1:
        return Undecided(f"several options named: {', '.join(dict.fromkeys(mentioned))}")
    if _CHOICE_DOUBT.search(cleaned):
        return Undecided("the choice is negated, hedged or conditional")
    lead = _LEAD.match(cleaned)
    named = [o for o in own if _named(cleaned, o) or (lead and lead["name"].upper() == o.upper())]
    if len(named) == 1 and mentioned and mentioned[0].upper() == named[0].upper():
        return Parsed(named[0])
    strange = [o for o in foreign if _named(cleaned, o)]
    if not named and strange and mentioned and mentioned[0].upper() == strange[0].upper():
        return Invalid(f"You do not have option {strange[0]}; your options are {', '.join(own)}.")
    if not mentioned:
        return Undecided("no option named")
    return Undecided(f"option {mentioned[0]} is not named as the choice")


def _upper(names: list[str]) -> set[str]:
    return {n.upper() for n in names}


def _mentions(text: str, names: list[str]) -> list[str]:
    """Every name that occurs as a word (single letters: as capitals; lower case only after
    "option"), counting too much rather than too little: several mentions are Undecided."""
    found = []
    for name in names:
        word = re.escape(name)
        if len(name) == 1:
            hit = re.search(rf"(?<![\w'’-]){word.upper()}(?![\w'’])", text) or re.search(
                rf"\boption\s+{word}\b", text, re.IGNORECASE
            )
        else:
            hit = re.search(rf"\b{word}\b", text, re.IGNORECASE)
        if hit:
            found.append(name)
    return found


def _named(text: str, name: str) -> bool:
    """Whether the text names ``name`` as the one chosen: after "option", "choose", "go
    with"...; in brackets; or, for a name that cannot be a word of the sentence (not "A" or
    "I"), alone as a capital."""
    word = re.escape(name)
    if len(name) > 1:
        return re.search(rf"\b{word}\b", text, re.IGNORECASE) is not None
    strong = rf"(?:\b{_CHOOSE}\s+|\()[\"'*]*{word.upper()}\b"
    if re.search(strong, text, re.IGNORECASE if name.upper() not in ("A", "I") else 0):
        return True
    if re.search(rf"\b{word}\s*\)", text):
        return True
    if name.upper() in ("A", "I"):
        return False
    return re.search(rf"(?<![\w'’-]){word.upper()}(?![\w'’])", text) is not None


def read_turn(text: str, *, message: bool, belief: bool, prediction: bool) -> ParseResult[Any]:
    """A turn's labelled answer: the parts asked for, each read by its own rule. The message
    is taken as written, never by the utility agent: the ``MESSAGE:`` part, or the text
    before the first label when it is not a preamble ("Here is my answer:")."""
    text = normalise_whitespace(text)
    if too_long(text):
        return Undecided(TOO_LONG)
    parts = sections(text, TURN_LABELS)
    value: dict[str, Any] = {"reasoning": parts.get("reasoning") or None}
    undecided: list[str] = []
    if message:
        body = parts.get("message")
        if body is None:
            if not parts:
                return Invalid(
                    "Your answer had no labels, so your message could not be told apart from "
                    "what stays private; answer in the format asked, with your message after "
                    "MESSAGE:."
                )
            body = before_labels(text, TURN_LABELS)
            if not body or _PREAMBLE.search(body):
                return Invalid(
                    "Your answer had no message to your partner; write it after MESSAGE:."
                )
        if not body.strip():
            return Invalid("Your message to your partner was empty; write one after MESSAGE:.")
        value["message"] = body.strip()
    for wanted, label in ((belief, "belief"), (prediction, "prediction")):
        if not wanted:
            continue
        part = parts.get(label)
        if part is None:
            undecided.append(f"no {label.upper()}: line")
            value[label] = None
            continue
        result = parse_percent(part, label)
        if isinstance(result, Invalid):
            return result
        if isinstance(result, Undecided):
            undecided.append(result.reason)
            value[label] = None
            continue
        value[label] = result.value
    if undecided:
        return Undecided("; ".join(undecided))
    return Parsed(value)


def read_decision(text: str, own: list[str], others: list[str]) -> ParseResult[Any]:
    text = normalise_whitespace(text)
    if too_long(text):
        return Undecided(TOO_LONG)
    parts = sections(text, DECISION_LABELS)
    choice = parts.get("choice")
    result = parse_option(choice if choice is not None else text, own, others)
    if isinstance(result, Parsed):
        return Parsed({"option": result.value, "reasoning": parts.get("reasoning") or None})
    return result
