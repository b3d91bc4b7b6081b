"""Asking a participant for an answer that must be read: the ask → parse → tell why →
ask again loop every experiment uses (docs/experiments.md).

The experiment's deterministic parser reads the answer first; where it cannot decide, the
utility agent extracts the answer; an invalid answer is sent back with the reason; after the
allowed attempts the value is recorded as missing, never defaulted. Every step is an event
(``maai.domain.answers``) carrying the raw text and who read it, so a resumed walk finds
each reading in the state and goes on.

Addresses: attempt ``n`` of a question is the call ``<slot>/<n>``; its utility extractions
are ``<slot>/<n>/extract/<u>`` (``maai.domain.address``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from maai.domain.address import attempt_address, extract_address
from maai.domain.answers import AnswerAccepted, AnswerMissing, AnswerRejected, AnswerUndecided
from maai.domain.calls import ModelAnswer, ModelRequest
from maai.domain.events import Event
from maai.domain.extraction import ExtractionFailure
from maai.domain.reading import Invalid, Parsed, ParseResult
from maai.domain.walk import Call, Emit, Walk, wait

UNREADABLE = "Your answer could not be read."


class ReadableState(Protocol):
    """What the loop reads of an experiment's state."""

    @property
    def answers(self) -> Mapping[str, ModelAnswer]: ...

    @property
    def records(self) -> Mapping[str, Event]: ...


@dataclass(frozen=True)
class UtilityReading:
    """How the utility agent reads an answer the parser could not decide."""

    attempts: int
    request: Callable[[str, str], ModelRequest]
    """(extraction address, the participant's text) -> the extraction request."""
    judge: Callable[[str, str], tuple[bool, Any] | ExtractionFailure]
    """(the utility agent's reply, the participant's text) -> (True, value) or (False, the
    reason the participant is told), or why the reply itself could not be used."""
    how_to_answer: str
    """Told to the participant when neither the parser nor the utility agent could read it."""


RequestBuilder = Callable[[str, int, str | None], ModelRequest]
"""(address, attempt, feedback) -> the participant request for that attempt."""


@dataclass(frozen=True)
class Question:
    agent: str
    kind: str
    slot: str
    max_attempts: int
    build: RequestBuilder
    task: Callable[[str | None], str]
    """Renders the task of an attempt, given the feedback it carried (for later prompts that
    quote what was asked)."""
    parse: Callable[[str], ParseResult[Any]]
    utility: UtilityReading | None


@dataclass(frozen=True)
class Elicited:
    value: Any  # the accepted value (JSON form), or None when missing
    task: Callable[[], str]  # renders the last attempt's task (without the preamble)
    answer: str  # the raw text of the last attempt


def elicit(state: ReadableState, question: Question) -> Walk[Elicited]:
    q = question
    feedback: str | None = None
    answer_text = ""
    for attempt in range(1, q.max_attempts + 1):
        address = attempt_address(q.slot, attempt)
        answer = state.answers.get(address)
        if answer is None:
            yield from wait([Call.later(address, partial(q.build, address, attempt, feedback))])
            raise AssertionError("unreachable")  # wait() never returns; mypy cannot see it
        answer_text = answer.text
        record = state.records.get(f"parse/{address}")
        if record is None:
            yield from wait([Emit(_parse(q, address, attempt, answer_text))])
        if isinstance(record, AnswerAccepted):
            return Elicited(record.value, partial(q.task, feedback), answer_text)
        if isinstance(record, AnswerRejected):
            feedback = record.reason
            continue
        assert isinstance(record, AnswerUndecided)
        outcome = yield from _extract(state, q, address, attempt, answer_text)
        if isinstance(outcome, AnswerAccepted):
            return Elicited(outcome.value, partial(q.task, feedback), answer_text)
        feedback = outcome
    if f"missing/{q.slot}" not in state.records:
        missing = AnswerMissing(
            agent=q.agent,
            kind=q.kind,
            slot=q.slot,
            attempts=q.max_attempts,
            last_reason=feedback or UNREADABLE,
        )
        yield from wait([Emit(missing)])
    return Elicited(None, partial(q.task, feedback), answer_text)


def json_value(value: Any) -> Any:
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


def _parse(
    q: Question, address: str, attempt: int, text: str
) -> AnswerAccepted | AnswerRejected | AnswerUndecided:
    result = q.parse(text)
    common: dict[str, Any] = dict(
        agent=q.agent, kind=q.kind, slot=q.slot, address=address, attempt=attempt, raw_text=text
    )
    if isinstance(result, Parsed):
        return AnswerAccepted(source="parser", value=json_value(result.value), **common)
    if isinstance(result, Invalid):
        return AnswerRejected(source="parser", reason=result.reason, **common)
    return AnswerUndecided(source="parser", reason=result.reason, **common)


def _extract(
    state: ReadableState, q: Question, address: str, attempt: int, text: str
) -> Walk[AnswerAccepted | str]:
    """Ask the utility agent; returns the accepted event or the reason to tell the agent."""
    utility = q.utility
    if utility is None:
        return UNREADABLE
    for u in range(1, utility.attempts + 1):
        via = extract_address(address, u)
        answer = state.answers.get(via)
        if answer is None:
            yield from wait([Call.later(via, partial(utility.request, via, text))])
            raise AssertionError("unreachable")  # wait() never returns; mypy cannot see it
        record = state.records.get(f"parse/{via}")
        if record is None:
            common: dict[str, Any] = dict(
                agent=q.agent,
                kind=q.kind,
                slot=q.slot,
                address=address,
                attempt=attempt,
                source="utility",
                via=via,
                raw_text=text,
            )
            judged = utility.judge(answer.text, text)
            event: AnswerAccepted | AnswerRejected | AnswerUndecided
            if isinstance(judged, ExtractionFailure):
                reason = f"the utility agent's answer could not be used: {judged.reason}"
                event = AnswerUndecided(reason=reason, **common)
            else:
                valid, value = judged
                if valid:
                    event = AnswerAccepted(value=value, **common)
                else:
                    event = AnswerRejected(reason=value, **common)
            yield from wait([Emit(event)])
        if isinstance(record, AnswerAccepted):
            return record
        if isinstance(record, AnswerRejected):
            return record.reason
    return UNREADABLE + " " + utility.how_to_answer
