"""Drive the world's pure protocol in memory with a responder: no store, no runtime (the
world counterpart of ``tests/support/driver.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from maai.domain.calls import ModelRequest
from maai.domain.config import UTILITY
from maai.domain.embeddings import EMBEDDER, SimulatedEmbedder
from maai.domain.events import Event, RunStarted
from maai.domain.world.config import WorldConfig
from maai.domain.world.protocol import decide
from maai.domain.world.simulated import SimulatedParticipant, SimulatedUtility
from maai.domain.world.state import State, evolve, initial_state
from maai.runtime.config_files import read_config
from tests.support.answering import DRIVER_USAGE, Responder, answer_each

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def load(name: str, **overrides: Any) -> WorldConfig:
    """A packaged world config, its world file read in, with ``overrides`` at the top level."""
    data = read_config(CONFIGS / name)
    data.update(overrides)
    return WorldConfig.model_validate(data)


@dataclass
class Drive:
    state: State
    events: list[Event]
    requests: list[ModelRequest] = field(default_factory=list)

    def of(self, event_type: type[Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, event_type)]

    def request(self, address: str) -> ModelRequest:
        return next(r for r in self.requests if r.address == address)


def start(config: WorldConfig) -> tuple[State, list[Event]]:
    started = RunStarted(
        experiment="world", config=config.model_dump(mode="json"), seed=config.seed
    )
    return evolve(initial_state(), started), [started]


def drive(
    config: WorldConfig, responder: Responder | None = None, max_steps: int = 20_000
) -> Drive:
    responder = responder or simulated(config)
    state, events = start(config)
    run = Drive(state, events)
    for _ in range(max_steps):
        decision = decide(state)
        state = decision.state
        events.extend(decision.events)
        if decision.done:
            run.state = state
            return run
        assert decision.calls, "the protocol asked for nothing"
        state = answer_each(
            state, evolve, decision.calls, responder, usage=DRIVER_USAGE, events=events
        )
        run.requests.extend(decision.calls)
    raise AssertionError("the protocol did not finish")


def simulated(config: WorldConfig) -> Responder:
    """The experiment's own simulated participants and utility agent."""
    participants = {a.name: SimulatedParticipant(a, config.seed) for a in config.world.agents}
    utility = SimulatedUtility(config.seed)
    embedder = SimulatedEmbedder()

    def respond(request: ModelRequest) -> str:
        if request.agent == EMBEDDER:
            return embedder.answer(request, None)
        policy = utility if request.agent == UTILITY else participants[request.agent]
        return policy.answer(request, request.output_schema)

    return respond
