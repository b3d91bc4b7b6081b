"""No audit shares code with what it audits (docs/architecture.md, "Audits"): each bug below is
planted in turn in the engine-side function (patched here, in the test; the code itself is
untouched), a simulated run is played through the broken engine, and the protocol audit, which
recomputes from the recorded config and events with its own reference code, must fail on the
rule that guards it. The same runs without a bug pass (test_audits_catch_code_bugs.py,
world/test_audits.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from maai.domain.events import Event
from maai.domain.frohlich import phase1, render, rules, steps
from maai.domain.frohlich.events import Counterfactual, PayoffAwarded
from maai.domain.world import apply, pgg
from maai.domain.world import protocol as world_protocol
from maai.domain.world.events import ActionResolved
from maai.domain.world.world import LocationSpec
from maai.projections.frohlich.protocol import audit_protocol as frohlich_audit
from maai.projections.history import history_from_events
from maai.projections.world.protocol import audit_protocol as world_audit
from tests.projections.frohlich.recording import golden_config, play
from tests.projections.frohlich.test_audits_catch_code_bugs import config as frohlich_config
from tests.support.driver import make_config
from tests.support.world_driver import drive, load


def world_violations(config_name: str, **overrides: Any) -> set[str]:
    run = drive(load(config_name, **overrides))
    return {v.rule for v in world_audit(history_from_events(run.events)).violations}


def frohlich_violations() -> set[str]:
    events = play(frohlich_config())
    return {v.rule for v in frohlich_audit(history_from_events(events)).violations}


def test_access_always_allowed_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The library admits two of the three agents; broken, it lets the third walk in."""
    monkeypatch.setattr(LocationSpec, "admits", lambda self, agent: True)
    assert "access" in world_violations("world_free.yaml", max_ticks=30)


def test_capacity_ignored_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The café holds two; broken, a move into it is never refused for being full."""
    real = apply.refusal_of

    def no_capacity(state: Any, agent: str, value: dict[str, Any]) -> str | None:
        refusal = real(state, agent, value)
        return None if refusal is not None and " is full " in refusal else refusal

    monkeypatch.setattr(apply, "refusal_of", no_capacity)
    assert "capacity" in world_violations("world_free.yaml", max_ticks=30)


def _witnesses_changed(change: Callable[[ActionResolved], list[str]]) -> Callable[..., list[Event]]:
    real = apply.resolve

    def resolve(state: Any, agent: str, position: int, value: Any) -> list[Event]:
        return [
            e.model_copy(update={"witnesses": change(e)})
            if isinstance(e, ActionResolved) and e.outcome == "applied" and e.kind == "speak"
            else e
            for e in real(state, agent, position, value)
        ]

    return resolve


def test_a_witness_added_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def added(e: ActionResolved) -> list[str]:
        absent = [n for n in ("Alice", "Bob", "Carla", "Dan", "Mona") if n not in e.witnesses]
        return [*e.witnesses, *absent[:1]]

    monkeypatch.setattr(world_protocol, "resolve", _witnesses_changed(added))
    assert "witnesses" in world_violations("world_pgg.yaml")


def test_a_witness_dropped_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def dropped(e: ActionResolved) -> list[str]:
        others = [w for w in e.witnesses if w != e.agent]
        return [w for w in e.witnesses if w not in others[:1]]

    monkeypatch.setattr(world_protocol, "resolve", _witnesses_changed(dropped))
    assert "witnesses" in world_violations("world_pgg.yaml")


def test_a_wrong_multiplier_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pgg.payoffs
    monkeypatch.setattr(pgg, "payoffs", lambda c, e, m: real(c, e, m + 0.4))
    assert "payoffs" in world_violations("world_pgg.yaml")


def test_a_wrong_frohlich_multiplier_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken, a table is scaled by its multiplier plus a tenth: the recorded multiplier no
    longer gives the table the rounds are shown and paid from."""
    real = rules.scale
    monkeypatch.setattr(rules, "scale", lambda dset, m: real(dset, m + 0.1))
    assert "scaled_tables" in frohlich_violations()


def test_a_wrong_payoff_cell_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken, the income is read from the row below the drawn class (low wraps to high)."""

    def next_row(self: rules.Distribution, income_class: Any) -> int:
        row = rules.INCOME_CLASSES.index(income_class)
        return self.incomes[(row + 1) % len(self.incomes)]

    monkeypatch.setattr(rules.Distribution, "income", next_row)
    assert "reference_payoffs" in frohlich_violations()


def test_a_skipped_step_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken, Phase 1 stops after its third round."""
    monkeypatch.setattr(phase1, "ROUNDS", 3)
    assert "phase1_rounds" in frohlich_violations()


def test_a_wrong_multiplier_draw_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken, the multiplier is drawn from the stream of another label: a legal value, but
    not the one the run's seed names."""
    real = rules.multiplier_for
    monkeypatch.setattr(rules, "multiplier_for", lambda c, s, label: real(c, s, label + "/x"))
    assert "draws_reproducible" in frohlich_violations()


def test_a_wrong_class_draw_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken, the class is drawn from the seed's neighbour's stream."""
    real = rules.draw_class
    monkeypatch.setattr(rules, "draw_class", lambda seed, label, p: real(seed + 1, label, p))
    assert "draws_reproducible" in frohlich_violations()


def test_a_wrong_speaking_order_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken, the speaking order is the stream's order reversed (still a permutation, and
    the previous last speaker may still open: only the stream tells)."""
    real = rules.speaking_order

    def reversed_order(seed: int, label: str, agents: Any, previous_last: Any) -> list[str]:
        return real(seed, label, agents, previous_last)[::-1]

    monkeypatch.setattr(rules, "speaking_order", reversed_order)
    assert "draws_reproducible" in frohlich_violations()


def test_class_probabilities_read_wrong_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken, the config's class probabilities are read upside down (high gets low's
    chance): the classes drawn are not those the run's stream gives with its configured
    chances. The audit reads the probabilities with its own code."""
    real = rules.exact_probabilities

    def reversed_chances(probs: Any) -> dict[Any, Any]:
        read = real(probs)
        return dict(zip(read, reversed(list(read.values())), strict=True))

    # The engine caches what it reads: emptied before and after, so that it reads with the
    # bug here and without it in every other test.
    steps._exact_probabilities.cache_clear()
    monkeypatch.setattr(rules, "exact_probabilities", reversed_chances)
    try:
        assert "draws_reproducible" in frohlich_violations()
    finally:
        steps._exact_probabilities.cache_clear()


def test_a_wrong_principle_application_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken, every principle pays by the distribution after the one it picks (the last
    wraps to the first)."""
    real = rules.apply_principle

    def next_distribution(choice: Any, dists: Any, probs: Any) -> rules.Application:
        picked = real(choice, dists, probs)
        number = picked.distribution_number % len(dists.distributions) + 1
        return picked.model_copy(update={"distribution_number": number})

    monkeypatch.setattr(rules, "apply_principle", next_distribution)
    assert "principle_applied" in frohlich_violations()


def test_a_wrong_ballot_rule_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken, a majority of the valid ballots is taken for unanimity: the golden run's
    ballot splits two to one, so the engine records an agreement the rule does not give."""

    def majority(ballots: Any) -> bool:
        keys = [rules.ballot_key(b) for b in ballots if b is not None]
        return bool(keys) and max(keys.count(k) for k in keys) * 2 > len(ballots)

    monkeypatch.setattr(rules, "is_consensus", majority)
    events = play(golden_config())
    violations = {v.rule for v in frohlich_audit(history_from_events(events)).violations}
    assert "ballot_rule" in violations


def _a_preferring_run(language: str) -> list[Event]:
    """Everyone prefers (a): every payment is the (a) row of its table, never the (b) row."""
    persona = {"error_rate": 0.0, "conformity": 0.9, "preferred_principle": "a"}
    agents = [{"name": n, "memory_words": 80, "persona": persona} for n in ("ann", "ben", "cy")]
    return play(make_config(seed=11, phase2_rounds=2, language=language, agents=agents))


def _payments(events: list[Event]) -> list[PayoffAwarded]:
    return [e for e in events if isinstance(e, PayoffAwarded)]


def _paid_row(paid: PayoffAwarded) -> list[Counterfactual]:
    return [cf for cf in paid.counterfactuals if cf.distribution == paid.distribution]


def test_a_wrong_counterfactual_row_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken, the rows of what each distribution would have paid leave out the (b) pick.
    Nothing paid changes (every payment is an (a) row; its income, payoff and its own row's
    principles are as in the clean run): only the other rows an agent is shown are wrong.
    The domain's own rendering of the rows would agree with the bug; the reference's picks
    do not."""
    clean = _payments(_a_preferring_run("en"))
    real = rules.counterfactuals

    def without_average(*args: Any, **kwargs: Any) -> tuple[rules.Counterfactual, ...]:
        return tuple(
            row.model_copy(
                update={"picked_by": tuple(p for p in row.picked_by if p.principle.value != "b")}
            )
            for row in real(*args, **kwargs)
        )

    monkeypatch.setattr(rules, "counterfactuals", without_average)
    events = _a_preferring_run("en")
    broken = _payments(events)
    assert [(p.distribution, p.income, p.payoff_cents, _paid_row(p)) for p in broken] == [
        (p.distribution, p.income, p.payoff_cents, _paid_row(p)) for p in clean
    ], "the bug must leave what is paid as it was"
    assert [p.counterfactuals for p in broken] != [p.counterfactuals for p in clean]
    violations = frohlich_audit(history_from_events(events)).violations
    assert {v.rule for v in violations} == {"payoff_arithmetic"}
    assert all("principles pick it by" in v.detail for v in violations)


def test_counterfactual_rows_named_in_another_language_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Broken, a pick is named in English whatever the reader's language: a Mandarin agent's
    rows of what the other distributions would have paid name the (c) and (d) picks in
    English (the domain's rendering would agree; the reference's own words do not)."""
    real = render.pick_text
    monkeypatch.setattr(render, "pick_text", lambda pick, language="en": real(pick, "en"))
    violations = frohlich_audit(history_from_events(_a_preferring_run("zh"))).violations
    assert "payoff_arithmetic" in {v.rule for v in violations}
