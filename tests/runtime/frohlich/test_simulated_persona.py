"""Personas of the simulated participant: derived from the seed, varied, configurable."""

from __future__ import annotations

import pytest

from maai.domain.frohlich.config import AgentConfig, PersonaConfig
from maai.domain.frohlich.simulated import Persona, persona_for
from maai.domain.frohlich.simulated.persona import stream, unit
from maai.domain.frohlich.types import Certainty, Principle

NAMES = ("alice", "bob", "carol", "dave", "eve")


def group(seed: int) -> list[Persona]:
    return [persona_for(AgentConfig(name=n), seed) for n in NAMES]


def test_same_seed_gives_the_same_personas() -> None:
    assert group(7) == group(7)


def test_another_seed_gives_other_personas() -> None:
    assert group(7) != group(8)


def test_five_default_agents_are_varied() -> None:
    personas = group(0)
    for trait in ("stubbornness", "conformity", "verbosity", "error_rate"):
        assert len({getattr(p, trait) for p in personas}) == 5, trait
    # Over many seeds a group almost never agrees from the start.
    unanimous = sum(len({p.principle for p in group(seed)}) == 1 for seed in range(50))
    assert unanimous <= 2


def test_derived_traits_are_in_range() -> None:
    for seed in range(20):
        for p in group(seed):
            assert 12_000 <= p.floor_amount <= 15_000
            assert 6_000 <= p.range_amount <= 20_000
            assert 0.05 <= p.error_rate <= 0.15
            assert 0 <= p.stubbornness <= 1 and 0 <= p.conformity <= 1 and 0 <= p.verbosity <= 1
            assert p.latency_ms == 0
            assert p.ranking[0] is p.principle and set(p.ranking) == set(Principle)


def test_configured_fields_win() -> None:
    cfg = PersonaConfig(
        preferred_principle=Principle.RANGE_CONSTRAINT,
        preferred_amount=9_500,
        certainty="very_unsure",
        stubbornness=0.0,
        conformity=1.0,
        verbosity=0.5,
        error_rate=0.0,
        latency_ms=12.5,
    )
    p = persona_for(AgentConfig(name="zoe", persona=cfg), seed=3)
    assert p.principle is Principle.RANGE_CONSTRAINT and p.range_amount == 9_500
    assert p.certainty is Certainty.VERY_UNSURE
    assert (p.stubbornness, p.conformity, p.verbosity, p.error_rate, p.latency_ms) == (
        0.0,
        1.0,
        0.5,
        0.0,
        12.5,
    )


def test_preferred_amount_applies_to_the_preferred_principle_only() -> None:
    cfg = PersonaConfig(preferred_principle=Principle.FLOOR_CONSTRAINT, preferred_amount=14_500)
    p = persona_for(AgentConfig(name="zoe", persona=cfg), seed=3)
    assert p.floor_amount == 14_500
    assert p.amount_for(Principle.FLOOR) is None


@pytest.mark.parametrize("parts", [("a",), ("a", 1), ("alice", "p1/alice/r1/choice/1")])
def test_streams_are_named_not_ordered(parts: tuple[object, ...]) -> None:
    assert stream(5, *parts).random() == stream(5, *parts).random()
    assert unit(5, *parts) == unit(5, *parts)
    assert unit(5, *parts) != unit(6, *parts)
