"""``decide(state)``: what the game needs next, as a walk (``maai.domain.walk``): the
proposer's offer, the responder's answer, then the payoffs, computed by code."""

from __future__ import annotations

from functools import partial
from typing import Any

from maai.domain.calls import ModelRequest
from maai.domain.elicit import Question, elicit
from maai.domain.events import RunCompleted
from maai.domain.walk import Decision, Emit, Walk, run_walk, wait

from maai_ultimatum.config import UltimatumConfig
from maai_ultimatum.events import OfferMade, PayoffsSet, ResponseMade
from maai_ultimatum.parsing import read_offer, read_response, reasoning_of
from maai_ultimatum.prompts import PROMPTS
from maai_ultimatum.state import State, evolve

OFFER = "offer"
RESPONSE = "response"


def decide(state: State) -> Decision:
    if state.started is None:
        raise ValueError("the run has not started: record RunStarted first")
    return run_walk(state, _protocol, evolve)


def _protocol(state: State) -> Walk[None]:
    if state.status == "completed":
        return
    config = state.config
    assert config is not None
    proposer, responder = config.proposer, config.responder
    if state.offer is None:
        got = yield from _ask(state, proposer, OFFER, {"partner": responder})
        reasoning = reasoning_of(got.answer) if got.value is not None else None
        yield from wait([Emit(OfferMade(agent=proposer, amount=got.value, reasoning=reasoning))])
    offer = state.offer
    assert offer is not None
    if offer.amount is not None and state.response is None:
        terms = {"partner": proposer, "amount": offer.amount, "kept": config.pie - offer.amount}
        got = yield from _ask(state, responder, RESPONSE, terms)
        yield from wait([Emit(ResponseMade(agent=responder, accepted=got.value))])
    if state.payoffs is None:
        yield from wait([Emit(_payoffs(state, config))])
    yield from wait([Emit(RunCompleted())])


def _payoffs(state: State, config: UltimatumConfig) -> PayoffsSet:
    nothing = {config.proposer: 0, config.responder: 0}
    offer, response = state.offer, state.response
    if offer is None or offer.amount is None or response is None or response.accepted is None:
        return PayoffsSet(outcome="incomplete", payoffs=nothing)
    if not response.accepted:
        return PayoffsSet(outcome="rejected", payoffs=nothing)
    split = {config.proposer: config.pie - offer.amount, config.responder: offer.amount}
    return PayoffsSet(outcome="accepted", payoffs=split)


def _ask(state: State, agent: str, purpose: str, values: dict[str, Any]) -> Walk[Any]:
    config = state.config
    assert config is not None
    parse = partial(read_offer, pie=config.pie) if purpose == OFFER else read_response
    task = partial(_task, config, purpose, values)
    question = Question(
        agent=agent,
        kind=purpose,
        slot=f"u/{agent}/{purpose}",
        max_attempts=config.attempts,
        build=partial(_request, config, agent, purpose, values, task),
        task=task,
        parse=parse,
        utility=None,  # the formats are simple: an unreadable answer is asked again
    )
    return (yield from elicit(state, question))


def _task(
    config: UltimatumConfig, purpose: str, values: dict[str, Any], feedback: str | None
) -> str:
    text = PROMPTS.render(purpose, config.language, pie=config.pie, **values)
    if feedback:
        text += "\n\n" + PROMPTS.render("feedback", config.language, reason=feedback)
    return text


def _request(
    config: UltimatumConfig,
    agent: str,
    purpose: str,
    values: dict[str, Any],
    task: Any,
    address: str,
    attempt: int,
    feedback: str | None,
) -> ModelRequest:
    player = config.agent(agent)
    return ModelRequest(
        address=address,
        agent=agent,
        purpose=purpose,
        model=player.model,
        system=PROMPTS.render("system", config.language, name=agent, pie=config.pie),
        input=task(feedback),
        temperature=player.temperature,
        context={**values, "pie": config.pie, "attempt": attempt, "feedback": feedback},
    )
