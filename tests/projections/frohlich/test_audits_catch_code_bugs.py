"""The audits fail when the *code* is wrong, not only when a ledger is edited: a bug is
patched into the domain, a simulated run is played through it, and the protocol audit (which
recomputes with its own implementation and reads what each prompt showed) must catch it.
The same run without the bug passes every rule."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from maai.domain.frohlich import render, rules
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.events import PayoffAwarded
from maai.domain.frohlich.types import Principle
from maai.projections.frohlich.protocol import audit_protocol
from maai.projections.history import history_from_events
from tests.projections.frohlich.recording import play
from tests.support.driver import make_config


def config() -> FrohlichConfig:
    persona: dict[str, Any] = {"error_rate": 0.0, "conformity": 0.9}
    return make_config(
        seed=11,
        phase2_rounds=2,
        agents=[
            # A floor no table can meet: the infeasible-constraint fallback is exercised.
            {
                "name": "alice",
                "memory_words": 80,
                "persona": {**persona, "preferred_principle": "c", "preferred_amount": 90000},
            },
            {"name": "bob", "memory_words": 80, "persona": {**persona, "preferred_principle": "b"}},
            {
                "name": "carol",
                "memory_words": 80,
                "persona": {**persona, "preferred_principle": "d"},
            },
        ],
    )


def broken_rules() -> set[str]:
    report = audit_protocol(history_from_events(play(config())))
    return {v.rule for v in report.violations}


def test_the_run_without_a_bug_passes_every_rule() -> None:
    events = play(config())
    history = history_from_events(events)
    assert audit_protocol(history).violations == ()
    infeasible = [
        p for _, p in history.of(PayoffAwarded) if p.choice and not p.constraint_satisfied
    ]
    assert infeasible, "the run must exercise an infeasible constraint"


@pytest.fixture
def base_table_shown(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Bug: rounds 2-4 show the base table, while the rounds are paid from the scaled one."""
    real = render.distribution_table
    base = [list(d.incomes) for d in rules.base_set().distributions]

    def shown(dists: Any, probs: Any = None, language: str = "en") -> str:
        return real(base if probs is None else dists, probs, language)

    monkeypatch.setattr(render, "distribution_table", shown)
    yield


def test_a_prompt_showing_the_base_table_is_caught(base_table_shown: None) -> None:
    assert "prompt_round_table" in broken_rules()


def test_a_prompt_dropping_the_memorys_last_line_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = render.preamble

    def preamble(agent: Any, personality: str, language: str) -> str:
        lines = agent.memory.strip().splitlines()
        return real(replace(agent, memory="\n".join(lines[:-1])), personality, language)

    monkeypatch.setattr(render, "preamble", preamble)
    assert "prompt_memory_and_balance" in broken_rules()


def test_a_wrong_infeasible_constraint_fallback_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bug: an infeasible (c) or (d) takes Distribution 1 instead of the closest one."""
    real = rules.apply_principle

    def apply(choice: Any, dset: Any, probs: Any) -> Any:
        applied = real(choice, dset, probs)
        if not applied.constraint_satisfied and choice.principle in (
            Principle.FLOOR_CONSTRAINT,
            Principle.RANGE_CONSTRAINT,
        ):
            return applied.model_copy(update={"distribution_number": 1})
        return applied

    monkeypatch.setattr(rules, "apply_principle", apply)
    assert "reference_payoffs" in broken_rules()


def test_a_payoff_rounded_the_wrong_way_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "payoff_cents", lambda income: income // 100)
    assert "reference_payoffs" in broken_rules()


def test_an_explanation_with_a_wrong_pick_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bug: the step-1.2 explanation says (b) chooses the distribution with the highest floor."""
    real = render.explanation_text

    def explained(dists: Any, probs: Any, language: str = "en") -> str:
        return real(dists, probs, language).replace(
            "(b) chooses Distribution 1.", "(b) chooses Distribution 4."
        )

    monkeypatch.setattr(render, "explanation_text", explained)
    assert "prompt_explanation" in broken_rules()
