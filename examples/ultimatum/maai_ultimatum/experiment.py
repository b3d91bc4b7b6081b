"""The ultimatum game behind maai's Experiment interface, found by the ``maai.experiments``
entry point in pyproject.toml."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from maai.domain.events import RunForked
from maai.domain.experiment import DeclaredExperiment
from maai.domain.forks import ForkRules, forking_evolve, restarted

from maai_ultimatum import protocol, state
from maai_ultimatum.config import UltimatumConfig
from maai_ultimatum.events import ULTIMATUM_EVENTS
from maai_ultimatum.prompts import PROMPTS
from maai_ultimatum.simulated import SimulatedPlayer, SimulatedUtility
from maai_ultimatum.summary import summarize


def _forked(game: state.State, event: RunForked) -> state.State:
    """After ``run.forked`` (docs/forks.md): the fork's config and seed, all else kept."""
    assert game.core.started is not None, "a fork starts after run.started"
    core = dataclasses.replace(game.core, started=restarted(game.core.started, event))
    return dataclasses.replace(game, core=core, config=UltimatumConfig.model_validate(event.config))


# The players and the pie are fixed by the prefix (the offer was made of this pie to this
# responder); how a player answers from here on may change.
_FORK_RULES = ForkRules(
    changeable=(
        "agents.*.model",
        "agents.*.provider",
        "agents.*.temperature",
        "agents.*.persona",
        "attempts",
    ),
    refused={
        "agents": "the players are fixed by the prefix",
        "pie": "the offer is made of the pie stated to the players",
    },
)


class Ultimatum(DeclaredExperiment):
    name = "ultimatum"
    title = "Two-player ultimatum game"
    config_model = UltimatumConfig
    events = ULTIMATUM_EVENTS
    prompts = PROMPTS
    default_config = "ultimatum.yaml"
    configs_package = "maai_ultimatum.configs"
    views_module = "maai_ultimatum.views"
    docs = "examples/ultimatum/README.md"
    initial_state = staticmethod(state.initial_state)
    evolve = staticmethod(forking_evolve(state.evolve, _forked))
    forked = staticmethod(_forked)
    decide = staticmethod(protocol.decide)
    summarize = staticmethod(summarize)
    participant = SimulatedPlayer
    utility = SimulatedUtility

    def fork_point_names(self, address: str) -> Sequence[str]:
        """``u/Ben/response/1`` opens ``response``: before the responder's answer."""
        parts = address.split("/")
        return ("response",) if len(parts) > 2 and parts[2] == protocol.RESPONSE else ()

    def fork_rules(self, point: str) -> ForkRules:
        return _FORK_RULES


EXPERIMENT = Ultimatum()
