"""Drive the pure protocol in memory with a scripted responder: no store, no runtime."""

from __future__ import annotations

from typing import Any

from maai.domain.calls import ModelRequest
from maai.domain.events import Event, RunStarted
from maai.domain.frohlich.config import FrohlichConfig, parse_config
from maai.domain.frohlich.decide import decide
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.state import State, evolve, initial_state
from tests.support.answering import DRIVER_USAGE, Responder, answer_each

NAMES = ["alice", "bob", "carol"]


def make_config(**overrides: Any) -> FrohlichConfig:
    data: dict[str, Any] = {
        "seed": 5,
        "phase2_rounds": 3,
        "agents": [{"name": n, "personality": f"{n} likes fairness"} for n in NAMES],
    }
    data.update(overrides)
    return parse_config(data)


def start(
    config: FrohlichConfig, request_hash_version: int | None = None
) -> tuple[State, list[Event]]:
    started = RunStarted(
        experiment="frohlich",
        config=config.model_dump(mode="json"),
        seed=config.seed,
        request_hash_version=request_hash_version,
    )
    return evolve(initial_state(), started), [started]


def drive(
    config: FrohlichConfig,
    responder: Responder,
    max_steps: int = 10_000,
    request_hash_version: int | None = None,
) -> tuple[State, list[Event], list[ModelRequest]]:
    state, events = start(config, request_hash_version)
    requests: list[ModelRequest] = []
    for _ in range(max_steps):
        decision = decide(state)
        state = decision.state
        events.extend(decision.events)
        if decision.done:
            return state, events, requests
        state = answer_each(
            state, evolve, decision.calls, responder, usage=DRIVER_USAGE, events=events
        )
        requests.extend(decision.calls)
    raise AssertionError("the protocol did not finish")


RANKING = (
    "1. (c) floor constraint\n2. (a) floor\n3. (d) range constraint\n4. (b) average\n\n"
    "Certainty: sure"
)


def agreeable(request: ModelRequest) -> str:
    """Everyone prefers (c) $13,000 and proposes a vote at once."""
    purpose = request.purpose
    if purpose == Purpose.RANKING:
        return RANKING
    if purpose in (Purpose.CHOICE, Purpose.BALLOT):
        return "I choose (c) maximizing the average with a floor constraint of $13,000."
    if purpose == Purpose.REASONING:
        return f"private thoughts of {request.agent}"
    if purpose == Purpose.STATEMENT:
        return f"I, {request.agent}, support (c) with a floor of $13,000.\nI PROPOSE A VOTE"
    if purpose == Purpose.POLL:
        return "Yes."
    if purpose in (Purpose.MEMORY, Purpose.MEMORY_SHORTEN):
        return f"memory of {request.agent} after {request.address}"
    if purpose == Purpose.EXTRACT:
        raise AssertionError(f"unexpected utility call {request.address}")
    raise AssertionError(purpose)
