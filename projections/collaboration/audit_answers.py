"""Rules about the answers (docs/collaboration.md §2): every recorded belief, prediction,
message and choice is what an accepted answer says, and the answer's own text states it
(re-read here with a simple reader of its own); message-rule breaches are recorded where a
simple independent check finds them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from maai.domain.answers import AnswerAccepted
from maai.domain.collaboration.events import DecisionMade, GameEnded
from maai.projections.collaboration import facts, text
from maai.projections.collaboration.audit_base import Audit, Violation, rule
from maai.projections.history import Entry

Accepted = tuple[Entry, AnswerAccepted]


def _states(raw: str, label: str, value: int) -> bool:
    """Whether the answer states ``value`` in its part labelled ``label`` (or, where no such
    part states a number, anywhere outside its message)."""
    body = text.without(raw, "message")
    stated = [text.numbers(part) for part in text.parts(body).get(label, [])]
    stated = [numbers for numbers in stated if numbers] or [text.numbers(body)]
    return any(value in numbers for numbers in stated)


def _flat(value: str | None) -> str:
    return " ".join((value or "").split())


def _belief_answers(audit: Audit) -> Iterator[tuple[Violation | None, Any, Accepted | None]]:
    ended = bool(audit.history.of(GameEnded))
    for agent in audit.names:
        answers = facts.belief_answers(audit.history, agent)
        stated = [(e, b) for e, b in audit.beliefs if b.agent == agent]
        for i, (entry, belief) in enumerate(stated):
            answer = answers[i] if i < len(answers) else None
            if answer is None or answer[0].seq > entry.seq:
                detail = f"{belief.key}: no accepted answer before it"
                yield Violation("answers_supported", entry.seq, detail), belief, None
            else:
                yield None, belief, answer
        for extra, accepted in answers[len(stated) :] if ended else []:
            detail = f"{accepted.slot}: accepted but no belief recorded"
            yield Violation("answers_supported", extra.seq, detail), None, None


def _check_belief(belief: Any, answer: Accepted) -> Iterator[Violation]:
    entry, accepted = answer
    value = accepted.value if isinstance(accepted.value, dict) else {}
    raw = accepted.raw_text
    for field in ("belief", "prediction"):
        number = getattr(belief, field)
        if value.get(field) != number:
            detail = f"{belief.key}: {field} {number}, the answer read {value.get(field)}"
            yield Violation("answers_supported", entry.seq, detail)
        elif number is not None and not _states(raw, field, number):
            detail = f"{belief.key}: the answer's text does not state the {field} {number}"
            yield Violation("answers_supported", entry.seq, detail)
    if belief.reasoning is not None and _flat(belief.reasoning) not in _flat(raw):
        yield Violation(
            "answers_supported", entry.seq, f"{belief.key}: reasoning not in the answer"
        )


@rule(
    "answers_supported",
    "docs/collaboration.md §2",
    "every belief, prediction, reasoning, message and choice recorded is the value of an "
    "accepted answer of that agent whose raw text states it (numbers re-read from the "
    "BELIEF/PREDICTION part); a missing answer records no value",
)
def answers_supported(audit: Audit) -> Iterator[Violation]:
    by_step: dict[tuple[str, int], Accepted] = {}
    for violation, belief, answer in _belief_answers(audit):
        if violation is not None:
            yield violation
        if belief is not None and answer is not None:
            by_step[(belief.agent, belief.step)] = answer
            yield from _check_belief(belief, answer)
    for entry, message in audit.messages:
        step = 0 if message.index == 1 else message.index
        answer = by_step.get((message.agent, step))
        said = (
            answer[1].value.get("message") if answer and isinstance(answer[1].value, dict) else None
        )
        if message.text is None and answer is not None:
            yield Violation("answers_supported", entry.seq, f"{message.key}: missing but answered")
        elif message.text is not None and (
            answer is None or said != message.text or message.text not in answer[1].raw_text
        ):
            detail = f"{message.key}: not the message part of {message.agent}'s accepted answer"
            yield Violation("answers_supported", entry.seq, detail)
    yield from _decisions(audit)


def _decisions(audit: Audit) -> Iterator[Violation]:
    for entry, made in audit.history.each(DecisionMade):
        answer = facts.decision_answer(audit.history, made.agent)
        lost = [m for _, m in audit.missing if m.agent == made.agent and m.kind == "decision"]
        if made.option is None:
            if answer is not None or not lost:
                detail = f"{made.key}: recorded missing without a missing answer"
                yield Violation("answers_supported", entry.seq, detail)
            continue
        value = answer[1].value if answer and isinstance(answer[1].value, dict) else {}
        if answer is None or value.get("option") != made.option:
            yield Violation("answers_supported", entry.seq, f"{made.key}: not the accepted choice")
            continue
        raw = answer[1].raw_text
        where = text.parts(raw).get("choice") or [text.without(raw, "reasoning")]
        named = re.compile(rf"(?<![A-Za-z0-9]){re.escape(made.option)}(?![A-Za-z0-9])", re.I)
        if not any(named.search(part) for part in where):
            detail = f"{made.key}: the answer's text does not name option {made.option}"
            yield Violation("answers_supported", entry.seq, detail)
        if made.reasoning is not None and _flat(made.reasoning) not in _flat(raw):
            yield Violation("answers_supported", entry.seq, f"{made.key}: reasoning not in answer")


_PERCENT = re.compile(r"(?<![\d.,])(\d{1,3})(?:[.,]\d+)?\s*(?:%|percent\b|per\s+cent\b)", re.I)
_CHOOSING = r"(?i:option|choice|plan|pick|choose|go\s+for|go\s+with)"


def own_breaches(message: str, options: list[str]) -> list[tuple[str, str]]:
    """(token, what) for each breach this simple check finds: a percentage up to 100, or an
    option named (a one-letter name only after "option", "pick"... or in brackets)."""
    found = [(m.group(1), f"percentage {m.group(0)!r}") for m in _PERCENT.finditer(message)]
    found = [(token, what) for token, what in found if int(token) <= 100]
    for name in options:
        word = re.escape(name)
        if len(name) == 1:
            pattern = re.compile(rf"\b{_CHOOSING}\s+[\"'(]?{word}\b|\({word}\)")
        else:
            pattern = re.compile(rf"\b{word}\b", re.IGNORECASE)
        hit = pattern.search(message)
        if hit:
            found.append((name, f"option {hit.group(0)!r}"))
    return found


@rule(
    "message_breaches",
    "docs/collaboration.md §2",
    "every breach an independent simple check finds in a message (a percentage, an option "
    "named) is among the breaches recorded with it; under message_rule reask no message with "
    "a breach is sent",
)
def message_breaches(audit: Audit) -> Iterator[Violation]:
    options = sorted({o.name for a in audit.names for o in audit.config.options_of(a)})
    for entry, message in audit.messages:
        if message.text is None:
            if message.breaches:
                yield Violation("message_breaches", entry.seq, f"{message.key}: breaches, no text")
            continue
        for token, what in own_breaches(message.text, options):
            mark = re.compile(rf"(?<![A-Za-z0-9]){re.escape(token)}(?![A-Za-z0-9])")
            if not any(mark.search(b) for b in message.breaches):
                detail = f"{message.key}: {what} not among the recorded breaches"
                yield Violation("message_breaches", entry.seq, detail)
        if audit.config.message_rule == "reask" and message.breaches:
            detail = f"{message.key}: sent with breaches under message_rule reask"
            yield Violation("message_breaches", entry.seq, detail)
