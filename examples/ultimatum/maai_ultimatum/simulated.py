"""The offline players: seeded, a pure function of the run's seed, the player and the call
(never of the prompt's text). The proposer offers between a fifth and a half of the pie and
says why; the responder accepts an offer at or above a threshold drawn per run. Now and then
an answer misses the format, so that a run exercises the ask-again path."""

from __future__ import annotations

from typing import Any

from maai.domain.calls import ModelRequest
from maai.domain.random_streams import stream

from maai_ultimatum.config import Player

MISS_RATE = 0.2


class SimulatedPlayer:
    def __init__(self, player: Player, seed: int) -> None:
        self.name = player.name
        self.seed = seed
        self.latency_ms = player.persona.latency_ms

    def answer(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        rng = stream(self.seed, f"sim/{self.name}/{request.address}")
        if rng.random() < MISS_RATE and request.context.get("attempt") == 1:
            return "Let me think about this a little longer."
        pie = int(request.context["pie"])
        if request.purpose == "offer":
            amount = round(pie * rng.uniform(0.2, 0.5))
            return (
                f"Offering {amount} keeps {pie - amount} for me and should not be refused.\n"
                f"OFFER: {amount}"
            )
        threshold = pie * stream(self.seed, f"sim/{self.name}/threshold").uniform(0.1, 0.4)
        return "ACCEPT" if int(request.context["amount"]) >= threshold else "REJECT"


class SimulatedUtility:
    """The game asks no utility agent (its parsers ask the player again instead)."""

    latency_ms = 0.0

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def answer(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        raise ValueError(f"the ultimatum game asks no utility agent ({request.address})")
