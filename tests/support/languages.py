"""Whole simulated Frohlich runs in memory, from the packaged configs: for the language tests
(tests/domain/frohlich/test_languages.py, tests/projections/frohlich/test_language_audits.py)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

from maai.domain.calls import ModelRequest
from maai.domain.events import Event, RunStarted
from maai.domain.frohlich.config import FrohlichConfig, parse_config
from maai.domain.frohlich.decide import decide
from maai.domain.frohlich.experiment import EXPERIMENT
from maai.domain.frohlich.state import evolve, initial_state
from tests.support.answering import answer_each

CONFIGS = Path(__file__).parents[2] / "configs"


def load(name: str, **overrides: Any) -> FrohlichConfig:
    """A packaged config (``configs/<name>``), with ``overrides`` on its top level."""
    data = yaml.safe_load((CONFIGS / name).read_text(encoding="utf-8"))
    data.update(overrides)
    return parse_config(data)


def drive(config: FrohlichConfig) -> tuple[list[ModelRequest], list[Event]]:
    """A whole run with the simulated participants and utility agent, in memory."""
    policies = {a.name: EXPERIMENT.simulated_participant(config, a.name) for a in config.agents}
    utility = EXPERIMENT.simulated_utility(config)

    def respond(request: ModelRequest) -> str:
        policy = utility if request.agent == "utility" else policies[request.agent]
        return policy.answer(request, request.output_schema)

    started = RunStarted(
        experiment="frohlich", config=config.model_dump(mode="json"), seed=config.seed
    )
    state = evolve(initial_state(), started)
    requests: list[ModelRequest] = []
    events: list[Event] = [started]
    for _ in range(100_000):
        decision = decide(state)
        state = decision.state
        events.extend(decision.events)
        if decision.done:
            return requests, events
        state = answer_each(state, evolve, decision.calls, respond, events=events)
        requests.extend(decision.calls)
    raise AssertionError("the run did not finish")


@cache
def simulated_events(name: str) -> tuple[Event, ...]:
    """The events of a whole simulated run of ``configs/<name>`` (computed once)."""
    return tuple(drive(load(name))[1])
