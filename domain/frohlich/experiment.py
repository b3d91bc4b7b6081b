"""The Frohlich experiment on distributive justice (docs/frohlich.md), behind the generic
Experiment interface."""

from __future__ import annotations

from typing import Any

from maai.domain.config import ExperimentConfig
from maai.domain.experiment import DeclaredExperiment, SimulatedPolicy, Summary
from maai.domain.frohlich import decide as protocol
from maai.domain.frohlich import state as frohlich_state
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.events import FROHLICH_EVENTS
from maai.domain.frohlich.prompts import PROMPTS
from maai.domain.frohlich.simulated import SimulatedParticipant, SimulatedUtility, persona_for
from maai.domain.frohlich.summary import summarize


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

    def summarize(self, run_id: str, state: Any, status: str | None = None) -> Summary:
        return summarize(run_id, state, status).to_summary()

    def simulated_participant(self, config: ExperimentConfig, who: str) -> SimulatedPolicy:
        assert isinstance(config, FrohlichConfig)
        persona = persona_for(config.agent(who), config.seed)
        return SimulatedParticipant(persona, seed=config.seed, language=config.language_of(who))

    def simulated_utility(self, config: ExperimentConfig) -> SimulatedPolicy:
        return SimulatedUtility(seed=config.seed)


EXPERIMENT = Frohlich()
