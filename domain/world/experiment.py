"""The world of locations and events, and the public-goods game on it (docs/world.md),
behind the generic Experiment interface."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from maai.domain.config import ExperimentConfig
from maai.domain.embeddings import EMBEDDER, SimulatedEmbedder
from maai.domain.events import Event, RunStarted
from maai.domain.experiment import Experiment, SimulatedPolicy, Summary
from maai.domain.walk import Decision
from maai.domain.world import protocol
from maai.domain.world import state as world_state
from maai.domain.world.config import WorldConfig, recorded_config
from maai.domain.world.events import WORLD_EVENTS
from maai.domain.world.prompts import PROMPTS
from maai.domain.world.simulated import SimulatedParticipant, SimulatedUtility
from maai.domain.world.summary import summarize


class World(Experiment):
    name = "world"
    title = "A world of locations and events, with a public-goods game"
    config_model = WorldConfig
    events = WORLD_EVENTS
    prompts = PROMPTS
    default_config = "world_pgg.yaml"
    # `world: worlds/village_hall.yaml` (beside the config) or `world: village_hall` (packaged
    # in maai.configs/worlds): the world file is read into the config (docs/world.md §1).
    config_files = {"world": "worlds"}
    views_module = "maai.projections.world"
    docs = "docs/world.md"

    def config_of(self, started: RunStarted) -> ExperimentConfig:
        return recorded_config(started.config)  # a run from before plan lists as it ran

    def initial_state(self) -> world_state.State:
        return world_state.initial_state()

    def evolve(self, state: Any, event: Event) -> Any:
        return world_state.evolve(state, event)

    def fold(self, events: Iterable[Event], state: Any = None) -> Any:
        if not self.evolves_as(World):
            return super().fold(events, state)
        return world_state.fold(events, state)

    def decide(self, state: Any) -> Decision:
        return protocol.decide(state)

    def summarize(self, run_id: str, state: Any, status: str | None = None) -> Summary:
        return summarize(run_id, state, status)

    def simulated_participant(self, config: ExperimentConfig, who: str) -> SimulatedPolicy:
        assert isinstance(config, WorldConfig)
        if who == EMBEDDER and config.embeddings is not None:
            return SimulatedEmbedder(config.embeddings.latency_ms)
        return SimulatedParticipant(config.agent(who), config.seed)

    def simulated_utility(self, config: ExperimentConfig) -> SimulatedPolicy:
        return SimulatedUtility(config.seed)


EXPERIMENT = World()
