"""The collaboration game (docs/collaboration.md), behind the generic Experiment interface."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from maai.domain.collaboration import protocol
from maai.domain.collaboration import state as game_state
from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.collaboration.events import COLLABORATION_EVENTS
from maai.domain.collaboration.prompts import PROMPTS
from maai.domain.collaboration.simulated import SimulatedParticipant, SimulatedUtility
from maai.domain.collaboration.summary import summarize
from maai.domain.config import ExperimentConfig
from maai.domain.events import Event, RunForked
from maai.domain.experiment import Experiment, SimulatedPolicy, Summary
from maai.domain.forks import ForkRules, fold_across_forks, restarted
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
        if isinstance(event, RunForked):
            return self.forked(state, event)
        return game_state.evolve(state, event)

    def fold(self, events: Iterable[Event], state: Any = None) -> Any:
        if not self.evolves_as(Collaboration):
            return super().fold(events, state)
        return fold_across_forks(events, state, game_state.fold, self.forked)

    def forked(self, state: Any, event: RunForked) -> Any:
        assert state.core.started is not None, "a fork starts after run.started"
        core = dataclasses.replace(state.core, started=restarted(state.core.started, event))
        config = CollaborationConfig.model_validate(event.config)
        return dataclasses.replace(state, core=core, config=config)

    def fork_point_names(self, address: str) -> Sequence[str]:
        # Exchange N opens with its first message ("c/t2/alice"); the decision with the
        # first decision call ("c/alice/decision").
        parts = address.split("/")
        if len(parts) > 1 and parts[1].startswith("t") and parts[1][1:].isdigit():
            return (f"exchange:{parts[1][1:]}",)
        if len(parts) > 2 and parts[2] == "decision":
            return ("decision",)
        return ()

    def fork_rules(self, point: str) -> ForkRules:
        return _FORK_RULES

    def decide(self, state: Any) -> Decision:
        return protocol.decide(state)

    def summarize(self, run_id: str, state: Any, status: str | None = None) -> Summary:
        return summarize(run_id, state, status)

    def simulated_participant(self, config: ExperimentConfig, who: str) -> SimulatedPolicy:
        assert isinstance(config, CollaborationConfig)
        return SimulatedParticipant(config.agent(who), config.seed)

    def simulated_utility(self, config: ExperimentConfig) -> SimulatedPolicy:
        return SimulatedUtility(config.seed)


# Who plays and the game's options are fixed by the prefix (the beliefs stated so far are
# about them); how an agent answers from here on, and how many exchanges are left, may change.
_FORK_RULES = ForkRules(
    changeable=(
        "agents.*.model",
        "agents.*.provider",
        "agents.*.temperature",
        "agents.*.persona",
        "agents.*.company",
        "exchanges",
        "message_rule",
        "attempts",
        "seed",
    ),
    refused={
        "agents": "the number and names of agents are fixed by the prefix",
        "agents.*.name": "the number and names of agents are fixed by the prefix",
        "options": "the options were stated to the agents in the prefix",
        "agents.*.options": "the options were stated to the agents in the prefix",
        "agents.*.u_value": "an agent's payoffs were stated to it in the prefix",
        "experiment": "a fork is of the same experiment",
    },
)


EXPERIMENT = Collaboration()
