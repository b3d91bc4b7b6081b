"""The Frohlich experiment on distributive justice (docs/frohlich.md), behind the generic
Experiment interface."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from maai.domain.config import ExperimentConfig
from maai.domain.events import RunForked
from maai.domain.experiment import DeclaredExperiment, SimulatedPolicy, Summary
from maai.domain.forks import ForkRules, restarted
from maai.domain.frohlich import decide as protocol
from maai.domain.frohlich import state as frohlich_state
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.events import FROHLICH_EVENTS
from maai.domain.frohlich.prompts import PROMPTS
from maai.domain.frohlich.simulated import SimulatedParticipant, SimulatedUtility, persona_for
from maai.domain.frohlich.summary import summarize
from maai.domain.walk import Scopes


def _forked(state: frohlich_state.State, event: RunForked) -> frohlich_state.State:
    assert state.started is not None, "a fork starts after run.started"
    return dataclasses.replace(
        state,
        started=restarted(state.started, event),
        config=FrohlichConfig.model_validate(event.config),
        scopes=Scopes(),
    )


_ROUND = re.compile(r"p2/r(\d+)/(?:t(\d+)/ballot/)?")

# After any point in Phase 2 (the only named ones): what an agent is and says, the
# manipulator, the rounds left and the memory limit; never who takes part, nor what Phase 1
# was played with (its outcome is in the prefix).
_FORK_RULES = ForkRules(
    changeable=(
        "agents.*.model",
        "agents.*.provider",
        "agents.*.temperature",
        "agents.*.personality",
        "agents.*.persona",
        "agents.*.language",
        "agents.*.reasoning",
        "agents.*.memory_words",
        "manipulator",
        "phase2_rounds",
        "phase2_multiplier",
        "memory_words",
        "attempts",
        "seed",
    ),
    refused={
        "agents": "the number and names of agents are fixed by the prefix",
        "agents.*.name": "the number and names of agents are fixed by the prefix",
        "phase1_multiplier": "a Phase-1 parameter; Phase 1 is in the prefix",
        "class_probabilities": "Phase 1's draws are in the prefix",
        "distributions": "the distributions were shown in Phase 1, in the prefix",
        "original_values": "Phase 1's values are in the prefix",
        "language": "the run's language is in its prompts so far; change an agent's",
        "experiment": "a fork is of the same experiment",
    },
)


class Frohlich(DeclaredExperiment):
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
    initial_state = staticmethod(frohlich_state.initial_state)
    evolve = staticmethod(frohlich_state.evolve)
    fast_fold = staticmethod(frohlich_state.fold)
    decide = staticmethod(protocol.decide)
    forked = staticmethod(_forked)
    fork_rules_everywhere = _FORK_RULES

    def fork_point_names(self, address: str) -> Sequence[str]:
        # Phase 2 opens with its first call; a round with its first call ("p2/r3/...");
        # a ballot with its first ballot call ("p2/r3/t2/ballot/alice").
        if not address.startswith("p2/"):
            return ()
        names = ["phase2"]
        found = _ROUND.match(address)
        if found:
            names.append(f"round:{found[1]}")
            if found[2] is not None:
                names.append(f"ballot:{found[1]}.{found[2]}")
        return names

    def summarize(self, run_id: str, state: Any, status: str | None = None) -> Summary:
        return summarize(run_id, state, status).to_summary()

    def simulated_participant(self, config: ExperimentConfig, who: str) -> SimulatedPolicy:
        assert isinstance(config, FrohlichConfig)
        persona = persona_for(config.agent(who), config.seed)
        return SimulatedParticipant(persona, seed=config.seed, language=config.language_of(who))

    def simulated_utility(self, config: ExperimentConfig) -> SimulatedPolicy:
        return SimulatedUtility(seed=config.seed)


EXPERIMENT = Frohlich()
