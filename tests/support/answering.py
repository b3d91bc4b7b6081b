"""Answering a pure protocol's calls in memory, as the engine records them: the request as
``model.requested``, the answer as ``model.completed``. Experiment-agnostic (each passes its
own ``evolve``); the experiments' drivers (``driver.py``, ``world_driver.py``...) and the
tests that answer in an order of their own build on it."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from maai.domain.calls import ModelAnswer, ModelRequest, Usage
from maai.domain.events import Event, ModelCallCompleted, ModelCallRequested
from maai.domain.walk import Decision

S = TypeVar("S")
Evolve = Callable[[S, Event], S]
Responder = Callable[[ModelRequest], str]

ONE_TOKEN_EACH = Usage(input_tokens=1, output_tokens=1)
DRIVER_USAGE = Usage(input_tokens=10, output_tokens=5)
"""What the experiments' drivers record for every answer (their golden files hold it)."""


def requested(request: ModelRequest) -> ModelCallRequested:
    return ModelCallRequested(request=request, request_hash=request.request_hash())


def completed(
    request: ModelRequest, text: str, usage: Usage = ONE_TOKEN_EACH
) -> ModelCallCompleted:
    return ModelCallCompleted(
        address=request.address,
        agent=request.agent,
        request_hash=request.request_hash(),
        model=request.model,
        answer=ModelAnswer(text=text, usage=usage),
    )


def answer_each(
    state: S,
    evolve: Evolve[S],
    calls: Iterable[ModelRequest],
    respond: Responder,
    *,
    usage: Usage = ONE_TOKEN_EACH,
    events: list[Event] | None = None,
) -> S:
    """Each call requested and answered at once, in order; the events are added to
    ``events`` where given."""
    for request in calls:
        for event in (requested(request), completed(request, respond(request), usage)):
            state = evolve(state, event)
            if events is not None:
                events.append(event)
    return state


def answer_some(
    state: S,
    evolve: Evolve[S],
    calls: Iterable[ModelRequest],
    respond: Responder,
    *,
    pending: dict[str, ModelRequest],
    rng: random.Random,
) -> S:
    """The calls not yet requested recorded as requested (and kept in ``pending``), then a
    random batch of the pending ones answered, in a random order: as answers come back from
    real models."""
    for request in calls:
        if request.address not in pending:
            pending[request.address] = request
            state = evolve(state, requested(request))
    assert pending, "nothing to answer but the run is not done"
    for address in rng.sample(sorted(pending), k=rng.randint(1, len(pending))):
        request = pending.pop(address)
        state = evolve(state, completed(request, respond(request)))
    return state


def answered_at_random(
    state: S,
    decide: Callable[[S], Decision],
    evolve: Evolve[S],
    respond: Responder,
    rng: random.Random,
) -> Iterator[tuple[S, Decision]]:
    """Each state a run decides at, with its decision, up to the one that is done; between
    two, the calls are answered by :func:`answer_some` (random batches, random order)."""
    pending: dict[str, ModelRequest] = {}
    while True:
        decision = decide(state)
        yield state, decision
        if decision.done:
            return
        state = answer_some(
            decision.state, evolve, decision.calls, respond, pending=pending, rng=rng
        )
