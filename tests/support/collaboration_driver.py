"""Drive the collaboration game's pure protocol in memory with a scripted responder: no store,
no runtime (the collaboration counterpart of ``tests/support/driver.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from maai.domain.calls import ModelRequest
from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.collaboration.protocol import decide
from maai.domain.collaboration.simulated import SimulatedParticipant, SimulatedUtility
from maai.domain.collaboration.state import State, evolve, initial_state
from maai.domain.config import UTILITY
from maai.domain.events import Event, RunStarted
from tests.support.answering import DRIVER_USAGE, Responder, answer_each

FIRST, SECOND = "Ada", "Ben"

ASYMMETRIC: list[dict[str, Any]] = [
    {
        "name": FIRST,
        "u_value": 0.85,
        "options": [
            {"name": "A", "kind": "collaborative", "upside": 62, "downside": -90},
            {"name": "B", "kind": "collaborative", "upside": 59, "downside": -45},
            {"name": "C", "kind": "collaborative", "upside": 55, "downside": -15},
            {"name": "Y", "kind": "individual", "points": 50},
        ],
    },
    {
        "name": SECOND,
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
    """Two agents (Ada first, Ben second), symmetric points, three exchanges."""
    data: dict[str, Any] = {
        "experiment": "collaboration",
        "seed": 3,
        "agents": [
            {"name": FIRST, "company": "Brickworks Motors", "u_value": 0.75},
            {"name": SECOND, "company": "Studline Cars", "u_value": 0.8},
        ],
    }
    data.update(overrides)
    return CollaborationConfig.model_validate(data)


def baseline_config(**overrides: Any) -> CollaborationConfig:
    data: dict[str, Any] = {
        "baseline": {"p": 0.5},
        "agents": [{"name": FIRST, "company": "Brickworks Motors", "u_value": 0.75}],
    }
    data.update(overrides)
    return make_config(**data)


@dataclass
class Drive:
    """What a driven run produced: its final state, every event, every request (in the order
    issued) and the requests grouped by the ``decide`` round that issued them together."""

    state: State
    events: list[Event]
    requests: list[ModelRequest] = field(default_factory=list)
    rounds: list[list[ModelRequest]] = field(default_factory=list)

    def of(self, event_type: type[Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, event_type)]

    def addresses(self) -> list[str]:
        return [r.address for r in self.requests]

    def request(self, address: str) -> ModelRequest:
        return next(r for r in self.requests if r.address == address)


def start(config: CollaborationConfig) -> tuple[State, list[Event]]:
    started = RunStarted(
        experiment="collaboration", config=config.model_dump(mode="json"), seed=config.seed
    )
    return evolve(initial_state(), started), [started]


def drive(config: CollaborationConfig, responder: Responder, max_steps: int = 10_000) -> Drive:
    state, events = start(config)
    run = Drive(state, events)
    for _ in range(max_steps):
        decision = decide(state)
        state = decision.state
        events.extend(decision.events)
        if decision.done:
            run.state = state
            return run
        if decision.calls:
            run.rounds.append(list(decision.calls))
        state = answer_each(
            state, evolve, decision.calls, responder, usage=DRIVER_USAGE, events=events
        )
        run.requests.extend(decision.calls)
    raise AssertionError("the protocol did not finish")


def simulated(config: CollaborationConfig) -> Responder:
    """The experiment's own simulated participants and utility agent."""
    participants = {a.name: SimulatedParticipant(a, config.seed) for a in config.agents}
    utility = SimulatedUtility(config.seed)

    def respond(request: ModelRequest) -> str:
        policy = utility if request.agent == UTILITY else participants[request.agent]
        return policy.answer(request, request.output_schema)

    return respond


def well_behaved(request: ModelRequest) -> str:
    """A participant that answers every step in the format asked, with fixed numbers and
    messages that break no rule; the utility agent must not be needed."""
    ctx = request.context
    if request.agent == UTILITY:
        raise AssertionError(f"unexpected utility call {request.address}")
    if request.purpose == "decision":
        first = ctx["options"][0]["name"]
        return f"CHOICE: {first}\nREASONING: private reasoning of {request.agent}"
    lines = ["BELIEF: 70"]
    if ctx.get("prediction"):
        lines.append("PREDICTION: 60")
    lines.append(f"REASONING: private reasoning of {request.agent}")
    if ctx.get("message"):
        lines.append(f"MESSAGE: {request.agent} at step {ctx['step']}: let us work together.")
    return "\n".join(lines)


def scripted(
    answers: dict[str, list[str]], fallback: Responder = well_behaved
) -> tuple[Responder, dict[str, list[str]]]:
    """A responder that gives, for each address, the next text of ``answers[address]`` (its
    attempts ``<slot>/1``, ``<slot>/2``... are distinct addresses) and otherwise asks
    ``fallback``; also returns what was served, by address."""
    served: dict[str, list[str]] = {}

    def respond(request: ModelRequest) -> str:
        queue = answers.get(request.address)
        text = queue.pop(0) if queue else fallback(request)
        served.setdefault(request.address, []).append(text)
        return text

    return respond, served
