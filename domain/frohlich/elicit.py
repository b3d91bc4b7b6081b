"""Asking a participant for an answer that must be read: the attempt loop (SPEC §3, §5).

Parse with the deterministic parser; where it cannot decide, ask the utility agent; an
invalid answer is sent back with the reason; after the allowed attempts the value is
recorded as missing. Every step is an event carrying the raw text and its source.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from maai.domain.calls import ModelRequest
from maai.domain.frohlich import extraction, parsing
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerKind,
    AnswerMissing,
    AnswerRejected,
    AnswerUndecided,
)
from maai.domain.frohlich.prompts import render
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.state import State
from maai.domain.walk import Call, Emit, Walk, wait

PARSERS: dict[str, Callable[[str], Any]] = {
    "ranking": parsing.parse_ranking,
    "choice": parsing.parse_choice,
    "ballot": parsing.parse_ballot,
    "poll": parsing.parse_poll_answer,
}

UNREADABLE = "Your answer could not be read."


@dataclass(frozen=True)
class Elicited:
    value: Any  # the accepted value (JSON form), or None when missing
    task: Callable[[], str]  # renders the last attempt's task (without the preamble)
    answer: str  # the raw text of the last attempt


RequestBuilder = Callable[[str, int, str | None], ModelRequest]
"""(address, attempt, feedback) -> the participant request for that attempt."""


def elicit(
    state: State,
    *,
    agent: str,
    kind: AnswerKind,
    slot: str,
    max_attempts: int,
    build: RequestBuilder,
    task: Callable[[str | None], str],
) -> Walk[Elicited]:
    feedback: str | None = None
    answer_text = ""
    for attempt in range(1, max_attempts + 1):
        address = f"{slot}/{attempt}"
        answer = state.answers.get(address)
        if answer is None:
            yield from wait([Call(build(address, attempt, feedback))])
        answer_text = answer.text
        record = state.records.get(f"parse/{address}")
        if record is None:
            yield from wait([Emit(_parse(agent, kind, slot, address, attempt, answer_text))])
        if isinstance(record, AnswerAccepted):
            return Elicited(record.value, partial(task, feedback), answer_text)
        if isinstance(record, AnswerRejected):
            feedback = record.reason
            continue
        assert isinstance(record, AnswerUndecided)
        outcome = yield from _extract(state, agent, kind, slot, address, attempt, answer_text)
        if isinstance(outcome, AnswerAccepted):
            return Elicited(outcome.value, partial(task, feedback), answer_text)
        feedback = outcome
    missing_key = f"missing/{slot}"
    if missing_key not in state.records:
        yield from wait(
            [
                Emit(
                    AnswerMissing(
                        agent=agent,
                        kind=kind,
                        slot=slot,
                        attempts=max_attempts,
                        last_reason=feedback or UNREADABLE,
                    )
                )
            ]
        )
    return Elicited(None, partial(task, feedback), answer_text)


def _parse(
    agent: str, kind: AnswerKind, slot: str, address: str, attempt: int, text: str
) -> AnswerAccepted | AnswerRejected | AnswerUndecided:
    result = PARSERS[kind](text)
    common = dict(
        agent=agent, kind=kind, slot=slot, address=address, attempt=attempt, raw_text=text
    )
    if isinstance(result, parsing.Parsed):
        value = result.value
        dumped = value.model_dump(mode="json") if hasattr(value, "model_dump") else value
        return AnswerAccepted(source="parser", value=dumped, **common)  # type: ignore[arg-type]
    if isinstance(result, parsing.Invalid):
        return AnswerRejected(source="parser", reason=result.reason, **common)  # type: ignore[arg-type]
    return AnswerUndecided(source="parser", reason=result.reason, **common)  # type: ignore[arg-type]


def _extract(
    state: State,
    agent: str,
    kind: AnswerKind,
    slot: str,
    address: str,
    attempt: int,
    text: str,
) -> Walk[AnswerAccepted | str]:
    """Ask the utility agent; returns the accepted event or the reason to tell the agent."""
    config = state.config
    assert config is not None
    for u in range(1, config.attempts.utility + 1):
        via = f"{address}/extract/{u}"
        answer = state.answers.get(via)
        if answer is None:
            yield from wait([Call(utility_request(state, agent, kind, via, text))])
        record = state.records.get(f"parse/{via}")
        if record is None:
            common = dict(
                agent=agent,
                kind=kind,
                slot=slot,
                address=address,
                attempt=attempt,
                source="utility",
                via=via,
                raw_text=text,
            )
            read = extraction.parse_extraction(answer.text, extraction.EXTRACTION_FOR_KIND[kind])
            event: AnswerAccepted | AnswerRejected | AnswerUndecided
            if isinstance(read, extraction.ExtractionFailure):
                reason = f"the utility agent's answer could not be used: {read.reason}"
                event = AnswerUndecided(reason=reason, **common)  # type: ignore[arg-type]
            else:
                valid, value = extraction.judge(read)
                if valid:
                    event = AnswerAccepted(value=value, **common)  # type: ignore[arg-type]
                else:
                    event = AnswerRejected(reason=value, **common)  # type: ignore[arg-type]
            yield from wait([Emit(event)])
        if isinstance(record, AnswerAccepted):
            return record
        if isinstance(record, AnswerRejected):
            return record.reason
    return UNREADABLE + " " + _how_to_answer(kind)


def _how_to_answer(kind: str) -> str:
    return {
        "ranking": "Please give a numbered list from 1 (best) to 4 (worst) naming each principle "
        "by its letter, and state your certainty.",
        "choice": "Please name one principle by its letter and, for (c) or (d), the amount.",
        "ballot": "Please name one principle by its letter and, for (c) or (d), the amount.",
        "poll": "Please answer Yes or No.",
    }[kind]


def utility_request(state: State, agent: str, kind: str, address: str, text: str) -> ModelRequest:
    config = state.config
    assert config is not None
    utility = config.utility
    json_schema = utility.provider is None or utility.provider.json_schema
    fields, schema_text = extraction.request_schema_fields(
        extraction.EXTRACTION_FOR_KIND[kind], json_schema=json_schema
    )
    language = config.language
    return ModelRequest(
        address=address,
        agent="utility",
        purpose=Purpose.EXTRACT,
        model=utility.model,
        system=render("extract_system", language),
        input=render(
            "extract",
            language,
            what=extraction.TASK_DESCRIPTIONS[kind],
            text=text,
            schema_instructions=schema_text or "Answer with the JSON object only.",
        ),
        temperature=utility.temperature,
        context={"kind": kind, "text": text, "for_agent": agent},
        **fields,
    )
