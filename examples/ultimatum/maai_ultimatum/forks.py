"""Where a run of the game may be forked, and what a fork may change (docs/forks.md)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from maai.domain.events import RunForked
from maai.domain.forks import ForkRules, restarted

from maai_ultimatum.config import UltimatumConfig
from maai_ultimatum.protocol import RESPONSE
from maai_ultimatum.state import State


def forked(game: State, event: RunForked) -> State:
    """After ``run.forked``: the fork's config and seed, all else kept."""
    assert game.core.started is not None, "a fork starts after run.started"
    core = dataclasses.replace(game.core, started=restarted(game.core.started, event))
    return dataclasses.replace(game, core=core, config=UltimatumConfig.model_validate(event.config))


def point_names(address: str) -> Sequence[str]:
    """``u/Ben/response/1`` opens ``response``: before the responder's answer."""
    parts = address.split("/")
    return ("response",) if len(parts) > 2 and parts[2] == RESPONSE else ()


# The players and the pie are fixed by the prefix (the offer was made of this pie to this
# responder); how a player answers from here on may change.
RULES = ForkRules(
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
