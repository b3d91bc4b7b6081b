"""The ultimatum game behind maai's Experiment interface (entry point: pyproject.toml)."""

from __future__ import annotations

from maai.domain.experiment import DeclaredExperiment

from maai_ultimatum import config, forks, protocol, simulated, state, summary
from maai_ultimatum.events import ULTIMATUM_EVENTS
from maai_ultimatum.prompts import PROMPTS


class Ultimatum(DeclaredExperiment):
    name = "ultimatum"
    title = "Two-player ultimatum game"
    config_model = config.UltimatumConfig
    events = ULTIMATUM_EVENTS
    prompts = PROMPTS
    default_config = "ultimatum.yaml"
    configs_package = "maai_ultimatum.configs"
    views_module = "maai_ultimatum.views"
    docs = "examples/ultimatum/README.md"
    initial_state = staticmethod(state.initial_state)
    evolve = staticmethod(state.evolve)
    forked = staticmethod(forks.forked)
    fork_point_names = staticmethod(forks.point_names)
    fork_rules_everywhere = forks.RULES
    decide = staticmethod(protocol.decide)
    summarize = staticmethod(summary.summarize)
    participant = simulated.SimulatedPlayer
    utility = simulated.SimulatedUtility


EXPERIMENT = Ultimatum()
