"""The Frohlich experiment's questions through the generic ask → parse → tell why → ask
again loop (``maai.domain.elicit``; docs/frohlich.md §3, §5): its parsers, its utility-agent
extraction
and what it tells a participant whose answer could not be read."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from maai.domain.calls import ModelRequest
from maai.domain.elicit import Elicited, Question, RequestBuilder, UtilityReading
from maai.domain.elicit import elicit as elicit_answer
from maai.domain.frohlich import extraction, parsing
from maai.domain.frohlich.events import AnswerKind
from maai.domain.frohlich.prompts import render, word
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.state import State
from maai.domain.reading import Invalid, Parsed, ParseResult, Undecided
from maai.domain.walk import Walk

PARSERS: dict[str, Callable[[str], Any]] = {
    "ranking": parsing.parse_ranking,
    "choice": parsing.parse_choice,
    "ballot": parsing.parse_ballot,
    "poll": parsing.parse_poll_answer,
}

__all__ = ["Elicited", "RequestBuilder", "elicit", "utility_request"]


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
    config = state.config
    assert config is not None
    utility = UtilityReading(
        attempts=config.attempts.utility,
        request=partial(_utility_request_for, state, agent, kind),
        judge=partial(_judge, kind),
        how_to_answer=_how_to_answer(kind),
    )
    parse = PARSERS[kind]
    if config.answers == "structured":
        build = partial(_structured_request, state, agent, kind, build)
        parse = partial(parse_structured, kind)
    question = Question(
        agent=agent,
        kind=kind,
        slot=slot,
        max_attempts=max_attempts,
        build=build,
        task=task,
        parse=parse,
        utility=utility,
    )
    return (yield from elicit_answer(state, question))


def _structured_request(
    state: State,
    agent: str,
    kind: str,
    build: RequestBuilder,
    address: str,
    attempt: int,
    feedback: str | None,
) -> ModelRequest:
    """``answers: structured``: the closed question's request asks for its answer as JSON of
    the kind's schema (the utility agent's extraction schema), recorded in the request; a
    server that takes no JSON schema gets it in the prompt instead."""
    request = build(address, attempt, feedback)
    config = state.config
    assert config is not None
    provider = config.agent(agent).provider
    fields, instructions = extraction.request_schema_fields(
        extraction.EXTRACTION_FOR_KIND[kind],
        json_schema=provider is None or provider.json_schema,
    )
    update: dict[str, Any] = dict(fields)
    if instructions:
        update["input"] = f"{request.input}\n\n{instructions}"
    return request.model_copy(update=update)


def parse_structured(kind: str, text: str) -> ParseResult[Any]:
    """A structured answer read against its schema and judged by the rules the utility
    agent's extraction is judged by; one that does not fit its schema is undecided (the
    utility agent reads it next)."""
    read = extraction.parse_extraction(text, extraction.EXTRACTION_FOR_KIND[kind])
    if isinstance(read, extraction.ExtractionFailure):
        return Undecided(f"the structured answer does not fit its schema: {read.reason}")
    valid, value = extraction.judge(read)
    return Parsed(value) if valid else Invalid(value)


def _utility_request_for(
    state: State, agent: str, kind: str, address: str, text: str
) -> ModelRequest:
    return utility_request(state, agent, kind, address, text)


def _judge(kind: str, reply: str, text: str) -> tuple[bool, Any] | extraction.ExtractionFailure:
    read = extraction.parse_extraction(reply, extraction.EXTRACTION_FOR_KIND[kind])
    if isinstance(read, extraction.ExtractionFailure):
        return read
    return extraction.judge(read)


def _how_to_answer(kind: str) -> str:
    """What a valid answer of ``kind`` looks like, as the records keep it (in English; a
    participant is told it in its own language: ``render.with_feedback``)."""
    return word("en", f"retry_{kind}")


def utility_request(state: State, agent: str, kind: str, address: str, text: str) -> ModelRequest:
    config = state.config
    assert config is not None
    utility = config.utility
    json_schema = utility.provider is None or utility.provider.json_schema
    fields, schema_text = extraction.request_schema_fields(
        extraction.EXTRACTION_FOR_KIND[kind], json_schema=json_schema
    )
    # The utility agent is no participant: its prompt is English in every language, and the
    # participant's language's templates (prompts/<language>/extract*.txt) say which language
    # the answer is in and that the reply is the normalized JSON (docs/frohlich.md, Languages).
    language = config.language_of(agent)
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
