"""The collaboration game (docs/collaboration.md), behind the generic Experiment interface."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from maai.domain.collaboration import protocol
from maai.domain.collaboration import state as game_state
from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.collaboration.events import COLLABORATION_EVENTS
from maai.domain.collaboration.prompts import PROMPTS
from maai.domain.collaboration.simulated import SimulatedParticipant, SimulatedUtility
from maai.domain.collaboration.summary import summarize
from maai.domain.config import ExperimentConfig
from maai.domain.events import Event
from maai.domain.experiment import Experiment, SimulatedPolicy, Summary
from maai.domain.walk import Decision


class Collaboration(Experiment):
    name = "collaboration"
    title = "Two-agent collaboration game"
    config_model = CollaborationConfig
    events = COLLABORATION_EVENTS
    prompts = PROMPTS
    default_config = "collaboration.yaml"
    views_module = "maai.projections.collaboration"
    docs = "docs/collaboration.md"

    def initial_state(self) -> game_state.State:
        return game_state.initial_state()

    def evolve(self, state: Any, event: Event) -> Any:
        return game_state.evolve(state, event)

    def fold(self, events: Iterable[Event], state: Any = None) -> Any:
        if not self.evolves_as(Collaboration):
            return super().fold(events, state)
        return game_state.fold(events, state)

    def decide(self, state: Any) -> Decision:
        return protocol.decide(state)

    def summarize(self, run_id: str, state: Any, status: str | None = None) -> Summary:
        return summarize(run_id, state, status)

    def simulated_participant(self, config: ExperimentConfig, who: str) -> SimulatedPolicy:
        assert isinstance(config, CollaborationConfig)
        return SimulatedParticipant(config.agent(who), config.seed)

    def simulated_utility(self, config: ExperimentConfig) -> SimulatedPolicy:
        return SimulatedUtility(config.seed)


EXPERIMENT = Collaboration()
