"""Injected mistakes: at the configured rate, and almost never right after feedback."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from maai.domain.calls import ModelRequest
from maai.domain.frohlich.config import BASE_DISTRIBUTIONS, AgentConfig, PersonaConfig
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.simulated import persona_for
from maai.domain.frohlich.simulated.extract import canonical
from maai.domain.frohlich.simulated.phrases_en import EN
from maai.domain.frohlich.simulated.policy import answer
from maai.domain.frohlich.types import Principle

SEED = 5
CALLS = 400
TABLE = [list(d) for d in BASE_DISTRIBUTIONS]
FEEDBACK = "Your answer did not state the floor amount in dollars."


def request(purpose: Purpose, address: str, **context: Any) -> ModelRequest:
    return ModelRequest(
        address=address,
        agent="zoe",
        purpose=purpose,
        model="simulated",
        system="",
        input="",
        context=context,
    )


def well_formed_ranking(text: str) -> bool:
    values = canonical("ranking", text)
    return values["order"] is not None and values["certainty"] is not None


def well_formed_choice(text: str) -> bool:
    values = canonical("choice", text)
    principle = values["principle"]
    return (
        principle is not None
        and (values["amount"] is not None) == Principle(principle).needs_amount
    )


def well_formed_poll(text: str) -> bool:
    return canonical("poll", text)["answer"] is not None


CASES: list[tuple[Purpose, dict[str, Any], Callable[[str], bool], float]] = [
    # (purpose, context, check, share of slips the check can see)
    (Purpose.RANKING, {"step": "1.1"}, well_formed_ranking, 1.0),
    (Purpose.CHOICE, {"step": "1.3", "round": 1, "distributions": TABLE}, well_formed_choice, 1.0),
    (Purpose.BALLOT, {"step": "2.1", "round": 3, "rounds": 10}, well_formed_choice, 1.0),
    (Purpose.POLL, {"step": "2.1", "round": 3, "rounds": 10}, well_formed_poll, 0.5),
]


def slip_rate(purpose: Purpose, context: dict[str, Any], check: Callable[[str], bool]) -> float:
    cfg = PersonaConfig(preferred_principle=Principle.FLOOR_CONSTRAINT, error_rate=0.3)
    persona = persona_for(AgentConfig(name="zoe", persona=cfg), SEED)
    bad = 0
    for i in range(CALLS):
        text = answer(EN, persona, SEED, request(purpose, f"zoe/{purpose.value}/{i}", **context))
        bad += not check(text)
    return bad / CALLS


@pytest.mark.parametrize(("purpose", "context", "check", "visible"), CASES)
def test_mistakes_come_at_the_configured_rate(
    purpose: Purpose, context: dict[str, Any], check: Callable[[str], bool], visible: float
) -> None:
    rate = slip_rate(purpose, context, check)
    expected = 0.3 * visible
    assert expected - 0.1 <= rate <= expected + 0.1


@pytest.mark.parametrize(("purpose", "context", "check", "visible"), CASES)
def test_feedback_is_almost_always_heeded(
    purpose: Purpose, context: dict[str, Any], check: Callable[[str], bool], visible: float
) -> None:
    rate = slip_rate(purpose, {**context, "attempt": 2, "feedback": FEEDBACK}, check)
    assert rate <= 0.05


def test_a_careful_persona_never_slips() -> None:
    cfg = PersonaConfig(preferred_principle=Principle.FLOOR_CONSTRAINT, error_rate=0.0)
    persona = persona_for(AgentConfig(name="zoe", persona=cfg), SEED)
    for i in range(100):
        text = answer(EN, persona, SEED, request(Purpose.CHOICE, f"c/{i}", distributions=TABLE))
        assert well_formed_choice(text), text


def test_memory_sometimes_overshoots_its_limit() -> None:
    cfg = PersonaConfig(error_rate=0.4)
    persona = persona_for(AgentConfig(name="zoe", persona=cfg), SEED)
    memory = "\n".join(f"[1.3 round {i}] I chose (c) $13,000." for i in range(1, 5))
    over = 0
    for i in range(CALLS):
        context = {"step": "1.4", "limit_words": 40, "memory": memory, "outcome": None}
        text = answer(EN, persona, SEED, request(Purpose.MEMORY, f"m/{i}", **context))
        if len(text.split()) > 40:
            over += 1
            # The overshoot is a real memory, just too long: the shorten call can keep entries.
            assert text.rstrip().splitlines()[-1].startswith("[1.4]")
    assert 0.1 <= over / CALLS <= 0.3  # half the error rate


def test_shortened_memory_rarely_stays_too_long() -> None:
    cfg = PersonaConfig(error_rate=0.4)
    persona = persona_for(AgentConfig(name="zoe", persona=cfg), SEED)
    memory = "\n".join(f"[2.1 round {i}] I argued for (c) $13,000." for i in range(1, 30))
    over = 0
    for i in range(CALLS):
        context = {"step": "2.1", "limit_words": 30, "memory": memory}
        text = answer(EN, persona, SEED, request(Purpose.MEMORY_SHORTEN, f"s/{i}", **context))
        over += len(text.split()) > 30
        assert re.match(r"\[2\.1 round \d+\]", text)
    assert 0.03 <= over / CALLS <= 0.2  # a quarter of the error rate: the cut path runs too
