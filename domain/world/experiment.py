"""The world of locations and events, and the public-goods game on it (docs/world.md),
behind the generic Experiment interface."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from maai.domain.config import ExperimentConfig
from maai.domain.events import RunForked, RunStarted
from maai.domain.experiment import DeclaredExperiment
from maai.domain.forks import ForkRules, restarted
from maai.domain.walk import Scopes
from maai.domain.world import protocol
from maai.domain.world import state as world_state
from maai.domain.world.config import WorldConfig, recorded_config
from maai.domain.world.events import WORLD_EVENTS
from maai.domain.world.prompts import PROMPTS
from maai.domain.world.simulated import SimulatedParticipant, SimulatedUtility
from maai.domain.world.summary import summarize


def _forked(state: world_state.State, event: RunForked) -> world_state.State:
    assert state.core.started is not None, "a fork starts after run.started"
    core = dataclasses.replace(state.core, started=restarted(state.core.started, event))
    # The texts rendered from the config are rendered again from the fork's.
    return dataclasses.replace(
        state, core=core, config=recorded_config(event.config), renders={}, scopes=Scopes()
    )


# The world (its places and who lives there) is in the prefix; how agents answer, how long
# the run goes on, and how memories are retrieved may change.
_FORK_RULES = ForkRules(
    changeable=(
        "world.agents.*.model",
        "world.agents.*.provider",
        "world.agents.*.temperature",
        "world.agents.*.persona",
        "max_ticks",
        "plan_max_ticks",
        "max_plans",
        "retrieval",
        "attempts",
        "seed",
    ),
    refused={
        "world.agents": "the number and names of agents are fixed by the prefix",
        "world.agents.*.name": "the number and names of agents are fixed by the prefix",
        "world": "the world's places and people are in the prefix",
        "game": "the game's rules were stated to the agents in the prefix",
        "embeddings": "the memories so far were embedded with the run's embedder",
        "experiment": "a fork is of the same experiment",
    },
)


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
    forked = staticmethod(_forked)
    fork_rules_everywhere = _FORK_RULES
    decide = staticmethod(protocol.decide)
    summarize = staticmethod(summarize)
    participant = SimulatedParticipant
    utility = SimulatedUtility

    def config_of(self, started: RunStarted) -> ExperimentConfig:
        return recorded_config(started.config)  # a run from before plan lists as it ran

    def fork_point_names(self, address: str) -> Sequence[str]:
        # Tick N opens with its first call ("w/t5/alice/act").
        parts = address.split("/")
        if len(parts) > 1 and parts[0] == "w" and parts[1][1:].isdigit():
            return (f"tick:{parts[1][1:]}",)
        return ()


EXPERIMENT = World()
