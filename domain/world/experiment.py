"""The world of locations and events, and the public-goods game on it (docs/world.md),
behind the generic Experiment interface."""

from __future__ import annotations

from maai.domain.config import ExperimentConfig
from maai.domain.events import RunStarted
from maai.domain.experiment import DeclaredExperiment
from maai.domain.world import protocol
from maai.domain.world import state as world_state
from maai.domain.world.config import WorldConfig, recorded_config
from maai.domain.world.events import WORLD_EVENTS
from maai.domain.world.prompts import PROMPTS
from maai.domain.world.simulated import SimulatedParticipant, SimulatedUtility
from maai.domain.world.summary import summarize


class World(DeclaredExperiment):
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
    initial_state = staticmethod(world_state.initial_state)
    evolve = staticmethod(world_state.evolve)
    fast_fold = staticmethod(world_state.fold)
    decide = staticmethod(protocol.decide)
    summarize = staticmethod(summarize)
    participant = SimulatedParticipant
    utility = SimulatedUtility

    def config_of(self, started: RunStarted) -> ExperimentConfig:
        return recorded_config(started.config)  # a run from before plan lists as it ran


EXPERIMENT = World()
