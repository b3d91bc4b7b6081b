"""The collaboration game (docs/collaboration.md), behind the generic Experiment interface."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from maai.domain.collaboration import protocol
from maai.domain.collaboration import state as game_state
from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.collaboration.events import COLLABORATION_EVENTS
from maai.domain.collaboration.prompts import PROMPTS
from maai.domain.collaboration.simulated import SimulatedParticipant, SimulatedUtility
from maai.domain.collaboration.summary import summarize
from maai.domain.events import RunForked
from maai.domain.experiment import DeclaredExperiment
from maai.domain.forks import ForkRules, restarted


def _forked(state: game_state.State, event: RunForked) -> game_state.State:
    assert state.core.started is not None, "a fork starts after run.started"
    core = dataclasses.replace(state.core, started=restarted(state.core.started, event))
    config = CollaborationConfig.model_validate(event.config)
    return dataclasses.replace(state, core=core, config=config)


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


class Collaboration(DeclaredExperiment):
    name = "collaboration"
    title = "Two-agent collaboration game"
    config_model = CollaborationConfig
    events = COLLABORATION_EVENTS
    prompts = PROMPTS
    default_config = "collaboration.yaml"
    views_module = "maai.projections.collaboration"
    docs = "docs/collaboration.md"
    initial_state = staticmethod(game_state.initial_state)
    evolve = staticmethod(game_state.evolve)
    fast_fold = staticmethod(game_state.fold)
    forked = staticmethod(_forked)
    fork_rules_everywhere = _FORK_RULES
    decide = staticmethod(protocol.decide)
    summarize = staticmethod(summarize)
    participant = SimulatedParticipant
    utility = SimulatedUtility

    def fork_point_names(self, address: str) -> Sequence[str]:
        # Exchange N opens with its first message ("c/t2/alice"); the decision with the
        # first decision call ("c/alice/decision").
        parts = address.split("/")
        if len(parts) > 1 and parts[1].startswith("t") and parts[1][1:].isdigit():
            return (f"exchange:{parts[1][1:]}",)
        if len(parts) > 2 and parts[2] == "decision":
            return ("decision",)
        return ()


EXPERIMENT = Collaboration()
