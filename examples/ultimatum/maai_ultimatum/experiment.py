"""The ultimatum game behind maai's Experiment interface, found by the ``maai.experiments``
entry point in pyproject.toml."""

from __future__ import annotations

from maai.domain.experiment import DeclaredExperiment

from maai_ultimatum import config, protocol, simulated, state, summary
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
    decide = staticmethod(protocol.decide)
    summarize = staticmethod(summary.summarize)
    participant = simulated.SimulatedPlayer
    utility = simulated.SimulatedUtility


EXPERIMENT = Ultimatum()
