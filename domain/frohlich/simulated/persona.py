"""Who a simulated participant is, and the seeded random streams it draws from.

Unset persona fields are derived from sha256(seed, agent name, field) so that a default
five-agent group is varied yet identical on every run with the same seed. Randomness never
comes from the global generator, ``hash()`` (salted per process) or the clock.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from maai.domain.frohlich.config import AgentConfig, PersonaConfig
from maai.domain.frohlich.types import Certainty, Principle

T = TypeVar("T")

# Roughly the popularity seen in Frohlich & Oppenheimer's groups: the floor constraint leads.
_PRINCIPLE_WEIGHTS: dict[Principle, float] = {
    Principle.FLOOR: 0.22,
    Principle.AVERAGE: 0.13,
    Principle.FLOOR_CONSTRAINT: 0.45,
    Principle.RANGE_CONSTRAINT: 0.20,
}
_CERTAINTY_WEIGHTS: dict[Certainty, float] = {
    Certainty.VERY_UNSURE: 0.05,
    Certainty.UNSURE: 0.20,
    Certainty.NO_OPINION: 0.10,
    Certainty.SURE: 0.45,
    Certainty.VERY_SURE: 0.20,
}
# Round thousands, as people name them; the base table's floors span 12,000-15,000 and its
# ranges 6,000-20,000.
_FLOOR_AMOUNTS = (12_000, 13_000, 13_000, 14_000, 14_000, 15_000)
_RANGE_AMOUNTS = (6_000, 8_000, 10_000, 12_000, 15_000, 17_000, 20_000)


def _digest(seed: int, parts: Sequence[object]) -> bytes:
    return hashlib.sha256(":".join(str(p) for p in (seed, *parts)).encode()).digest()


def unit(seed: int, *parts: object) -> float:
    """A uniform draw in [0, 1) named by its parts: the same name always gives the same draw."""
    return int.from_bytes(_digest(seed, parts)[:8], "big") / 2**64


def stream(seed: int, *parts: object) -> random.Random:
    """A private generator named by its parts (e.g. the agent and the call's address)."""
    return random.Random(int.from_bytes(_digest(seed, parts)[:16], "big"))


def weighted(rng: random.Random, weights: dict[T, float]) -> T:
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys], k=1)[0]


@dataclass(frozen=True)
class Persona:
    """The simulated participant's fixed traits. Floats are in [0, 1]."""

    name: str
    principle: Principle
    floor_amount: int  # the floor it names for (c), on the scale of the base table
    range_amount: int  # the range it names for (d), on the scale of the base table
    ranking: tuple[Principle, Principle, Principle, Principle]  # best first
    certainty: Certainty
    stubbornness: float
    conformity: float
    verbosity: float
    error_rate: float
    latency_ms: float

    def amount_for(self, principle: Principle) -> int | None:
        if principle is Principle.FLOOR_CONSTRAINT:
            return self.floor_amount
        if principle is Principle.RANGE_CONSTRAINT:
            return self.range_amount
        return None


def persona_for(agent: AgentConfig, seed: int) -> Persona:
    """The persona of ``agent`` in a run with ``seed``: configured fields win, the rest derive."""
    cfg = agent.persona or PersonaConfig()
    name = agent.name

    def rng(field: str) -> random.Random:
        return stream(seed, name, "persona", field)

    principle = cfg.preferred_principle or weighted(rng("principle"), _PRINCIPLE_WEIGHTS)
    floor_amount = rng("floor_amount").choice(_FLOOR_AMOUNTS)
    range_amount = rng("range_amount").choice(_RANGE_AMOUNTS)
    if cfg.preferred_amount is not None:
        if principle is Principle.FLOOR_CONSTRAINT:
            floor_amount = cfg.preferred_amount
        elif principle is Principle.RANGE_CONSTRAINT:
            range_amount = cfg.preferred_amount
    others = [p for p in Principle if p is not principle]
    rng("ranking").shuffle(others)
    ranking = (principle, others[0], others[1], others[2])
    certainty = (
        Certainty(cfg.certainty)
        if cfg.certainty is not None
        else weighted(rng("certainty"), _CERTAINTY_WEIGHTS)
    )

    def trait(value: float | None, field: str, low: float, high: float) -> float:
        return value if value is not None else low + (high - low) * rng(field).random()

    return Persona(
        name=name,
        principle=principle,
        floor_amount=floor_amount,
        range_amount=range_amount,
        ranking=ranking,
        certainty=certainty,
        stubbornness=trait(cfg.stubbornness, "stubbornness", 0.1, 0.8),
        conformity=trait(cfg.conformity, "conformity", 0.2, 0.9),
        verbosity=trait(cfg.verbosity, "verbosity", 0.0, 1.0),
        error_rate=trait(cfg.error_rate, "error_rate", 0.05, 0.15),
        latency_ms=cfg.latency_ms if cfg.latency_ms is not None else 0.0,
    )
