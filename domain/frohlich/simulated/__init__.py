"""The Frohlich experiment's simulated participant and utility agent: seeded, persona-driven
policies that write natural-language answers (docs/simulated.md). Pure: an answer is a
function of the run's seed, the persona and the request; the runtime wraps a policy in an SDK
``Model`` (``maai.runtime.simulated``)."""

from __future__ import annotations

from typing import Any

from maai.domain.calls import EXTRACT, ModelRequest
from maai.domain.frohlich.config import AgentConfig
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.simulated.extract import extract
from maai.domain.frohlich.simulated.languages import phrases_for
from maai.domain.frohlich.simulated.persona import Persona, persona_for
from maai.domain.frohlich.simulated.phrases import Phrases
from maai.domain.frohlich.simulated.policy import SimulationError, answer


class SimulatedParticipant:
    """A seeded, persona-driven participant."""

    def __init__(self, persona: Persona, *, seed: int, language: str = "en") -> None:
        self.seed = seed
        self.persona = persona
        self.latency_ms = persona.latency_ms
        self.phrases: Phrases = phrases_for(language)

    def answer(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        if request.agent != self.persona.name:
            raise SimulationError(
                f"{request.address}: request for agent {request.agent!r} reached the simulated "
                f"participant of {self.persona.name!r}"
            )
        text = answer(self.phrases, self.persona, self.seed, request)
        kind = _STRUCTURED_KINDS.get(request.purpose)
        if schema is not None and kind is not None:
            # answers: structured: the same answer, given as the JSON its schema asks for.
            return extract({"kind": kind, "text": text}, schema)
        return text


# Keyed by the request's purpose as recorded (a str; Purpose is a StrEnum).
_STRUCTURED_KINDS: dict[str, str] = {
    Purpose.RANKING: "ranking",
    Purpose.CHOICE: "choice",
    Purpose.BALLOT: "ballot",
    Purpose.POLL: "poll",
}


class SimulatedUtility:
    """The utility agent's simulation: lenient extraction into the requested JSON."""

    latency_ms = 0.0

    def __init__(self, *, seed: int) -> None:
        self.seed = seed

    def answer(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        if request.purpose != EXTRACT:
            raise SimulationError(
                f"{request.address}: the simulated utility agent only answers extraction "
                f"requests, not {request.purpose!r}"
            )
        return extract(request.context, schema)


def build_policy(
    agent: AgentConfig | None, *, seed: int, language: str = "en"
) -> SimulatedParticipant | SimulatedUtility:
    """The policy for ``agent`` in a run with ``seed``; ``None`` gives the utility agent."""
    if agent is None:
        return SimulatedUtility(seed=seed)
    return SimulatedParticipant(persona_for(agent, seed), seed=seed, language=language)


__all__ = [
    "Persona",
    "SimulatedParticipant",
    "SimulatedUtility",
    "SimulationError",
    "build_policy",
    "persona_for",
]
