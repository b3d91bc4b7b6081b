"""Record simulated collaboration runs in memory: the pure protocol driven through the
experiment interface, each model call answered by the experiment's simulated policies (no
store, no runtime)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from maai.domain import experiments
from maai.domain.calls import ModelAnswer, ModelRequest, Usage
from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.events import Event, ModelCallCompleted, ModelCallRequested, RunStarted
from maai.projections.history import History, history_from_events

Responder = Callable[[ModelRequest], str]

EXPERIMENT = experiments.get("collaboration")

ASYMMETRIC: list[dict[str, Any]] = [
    {
        "name": "Ada",
        "u_value": 0.85,
        "options": [
            {"name": "A", "kind": "collaborative", "upside": 62, "downside": -90},
            {"name": "B", "kind": "collaborative", "upside": 59, "downside": -45},
            {"name": "C", "kind": "collaborative", "upside": 55, "downside": -15},
            {"name": "Y", "kind": "individual", "points": 50},
        ],
    },
    {
        "name": "Ben",
        "u_value": 0.91,
        "options": [
            {"name": "K", "kind": "collaborative", "upside": 58, "downside": -90},
            {"name": "L", "kind": "collaborative", "upside": 54, "downside": -45},
            {"name": "M", "kind": "collaborative", "upside": 51, "downside": -15},
            {"name": "Y", "kind": "individual", "points": 45},
        ],
    },
]


def make_config(**overrides: Any) -> CollaborationConfig:
    data: dict[str, Any] = {
        "experiment": "collaboration",
        "seed": 3,
        "exchanges": 2,
        "agents": [
            {"name": "Ada", "company": "Brickworks Motors"},
            {"name": "Ben", "company": "Studline Cars"},
        ],
    }
    data.update(overrides)
    config = EXPERIMENT.parse_config(data)
    assert isinstance(config, CollaborationConfig)
    return config


def simulated_responder(config: CollaborationConfig) -> Responder:
    participants = {a.name: EXPERIMENT.simulated_participant(config, a.name) for a in config.agents}
    utility = EXPERIMENT.simulated_utility(config)

    def respond(request: ModelRequest) -> str:
        policy = utility if request.agent == "utility" else participants[request.agent]
        return policy.answer(request, request.output_schema)

    return respond


def drive(
    config: CollaborationConfig, responder: Responder | None = None, max_steps: int = 10_000
) -> list[Event]:
    """The events of one run, from run.started to run.completed."""
    respond = responder or simulated_responder(config)
    started = RunStarted(
        experiment="collaboration", config=config.model_dump(mode="json"), seed=config.seed
    )
    state = EXPERIMENT.evolve(EXPERIMENT.initial_state(), started)
    events: list[Event] = [started]
    for _ in range(max_steps):
        decision = EXPERIMENT.decide(state)
        state = decision.state
        events.extend(decision.events)
        if decision.done:
            return events
        for request in decision.calls:
            digest = request.request_hash()
            completed = ModelCallCompleted(
                address=request.address,
                agent=request.agent,
                request_hash=digest,
                model=request.model,
                answer=ModelAnswer(
                    text=respond(request), usage=Usage(input_tokens=10, output_tokens=5)
                ),
            )
            for event in (ModelCallRequested(request=request, request_hash=digest), completed):
                state = EXPERIMENT.evolve(state, event)
                events.append(event)
    raise AssertionError("the protocol did not finish")


def record(config: CollaborationConfig, run_id: str = "memory") -> History:
    return history_from_events(drive(config), run_id)
