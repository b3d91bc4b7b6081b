"""The Frohlich experiment on distributive justice (docs/frohlich.md), behind the generic
Experiment interface."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from maai.domain.config import ExperimentConfig
from maai.domain.events import Event
from maai.domain.experiment import Experiment, SimulatedPolicy, Summary
from maai.domain.frohlich import decide as protocol
from maai.domain.frohlich import state as frohlich_state
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.events import FROHLICH_EVENTS
from maai.domain.frohlich.prompts import PROMPTS
from maai.domain.frohlich.simulated import SimulatedParticipant, SimulatedUtility, persona_for
from maai.domain.frohlich.summary import summarize
from maai.domain.walk import Decision


class Frohlich(Experiment):
    name = "frohlich"
    title = "Frohlich experiment on distributive justice"
    config_model = FrohlichConfig
    events = FROHLICH_EVENTS
    prompts = PROMPTS
    default_config = "default.yaml"
    views_module = "maai.projections.frohlich"
    docs = "docs/frohlich.md"
    # The principle a group agreed on, e.g. against Frohlich & Oppenheimer's groups.
    reference_statistics = {"agreed_principle": ("a", "b", "c", "d")}

    def initial_state(self) -> frohlich_state.State:
        return frohlich_state.initial_state()

    def evolve(self, state: Any, event: Event) -> Any:
        return frohlich_state.evolve(state, event)

    def fold(self, events: Iterable[Event], state: Any = None) -> Any:
        if not self.evolves_as(Frohlich):
            return super().fold(events, state)
        return frohlich_state.fold(events, state)

    def decide(self, state: Any) -> Decision:
        return protocol.decide(state)

    def summarize(self, run_id: str, state: Any, status: str | None = None) -> Summary:
        return summarize(run_id, state, status).to_summary()

    def simulated_participant(self, config: ExperimentConfig, who: str) -> SimulatedPolicy:
        assert isinstance(config, FrohlichConfig)
        persona = persona_for(config.agent(who), config.seed)
        return SimulatedParticipant(persona, seed=config.seed, language=config.language_of(who))

    def simulated_utility(self, config: ExperimentConfig) -> SimulatedPolicy:
        return SimulatedUtility(seed=config.seed)


EXPERIMENT = Frohlich()
