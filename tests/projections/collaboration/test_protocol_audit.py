"""The protocol audit of the collaboration game: fifty seeded runs pass; each planted breach,
and each bug planted in the domain code, is found by the rule that checks it (the audit
shares no code with the rules it checks)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from maai.domain.answers import AnswerAccepted, AnswerRejected
from maai.domain.collaboration import protocol as game
from maai.domain.collaboration import rules
from maai.domain.collaboration.events import (
    BeliefStated,
    DecisionMade,
    MessageSent,
    PartnerDrawn,
    PointsAwarded,
)
from maai.domain.events import Event
from maai.projections.collaboration.leaks import audit_leaks
from maai.projections.collaboration.protocol import all_rules, audit_protocol
from maai.projections.history import History, history_from_events
from tests.projections.collaboration.driver import drive, simulated_responder
from tests.projections.collaboration.runs import (
    SEEDED,
    append,
    at,
    plant,
    record,
    seeded_config,
    small_config,
)
from tests.projections.tamper import find, index_of, replaced, with_config


def broken(events: list[Event]) -> set[str]:
    """The rules that fail on ``events``."""
    return {v.rule for v in audit_protocol(history_from_events(events)).violations}


@pytest.fixture(scope="module")
def small() -> list[Event]:
    return record(small_config())[0]


@pytest.mark.parametrize("i", SEEDED)
def test_seeded_runs_pass_both_audits(i: int) -> None:
    _, history = record(seeded_config(i))
    report = audit_protocol(history)
    assert report.ok, [f"{v.rule} at {v.seq}: {v.detail}" for v in report.violations]
    assert report.rules_checked == tuple(r.id for r in all_rules())
    leaks = audit_leaks(history)
    assert leaks.ok, [leak.describe() for leak in leaks.leaks]
    assert leaks.prompts_checked > 0


def test_the_seeded_runs_cover_the_conditions() -> None:
    histories = [record(seeded_config(i))[1] for i in SEEDED]
    configs = [h.config for h in histories]
    assert {c.exchanges for c in configs if c.baseline is None} >= {1, 5}
    assert {c.message_rule for c in configs} == {"flag", "reask"}
    assert {c.disclose_initial_belief for c in configs} == {True, False}
    assert any(c.baseline is not None for c in configs)
    assert any(c.agents[0].options and c.agents[0].u_value == 0.85 for c in configs)
    kinds = {e.event.TYPE for h in histories for e in h.entries}
    assert {"answer.rejected", "answer.undecided", "answer.missing", "partner.drawn"} <= kinds
    ended = [e.event.outcome for h in histories for e in h.entries if e.event.TYPE == "game.ended"]
    assert {"complete", "incomplete"} <= set(ended)
    sources = {
        e.event.source for h in histories for e in h.entries if e.event.TYPE == "answer.accepted"
    }
    assert sources == {"parser", "utility"}


def test_every_rule_has_an_id_a_spec_and_a_description() -> None:
    ids = [r.id for r in all_rules()]
    assert len(ids) == len(set(ids)) >= 15
    for r in all_rules():
        assert r.spec.startswith("docs/collaboration.md §") and len(r.description) > 30


# --- planted in the ledger ------------------------------------------------------------------


def test_changed_points_fail_the_payoff_rule(small: list[Event]) -> None:
    awarded = find(small, PointsAwarded)
    points = {a: p + 1 for a, p in awarded.points.items()}
    assert broken(replaced(small, PointsAwarded, points=points)) == {"payoff"}


def test_messages_recorded_in_swapped_order_fail(small: list[Event]) -> None:
    events = list(small)
    i = index_of(events, MessageSent, lambda m: m.index == 2)
    j = index_of(events, MessageSent, lambda m: m.index == 3)
    events[i], events[j] = events[j], events[i]
    assert "step_order" in broken(events)


def test_swapped_message_numbers_fail(small: list[Event]) -> None:
    first = find(small, MessageSent, lambda m: m.index == 1)
    second = find(small, MessageSent, lambda m: m.index == 2)
    events = replaced(small, MessageSent, lambda m: m.index == 1, index=2)
    events = replaced(events, MessageSent, lambda m: m is second, index=1)
    assert first.agent != second.agent
    assert "step_order" in broken(events)


def test_a_prompt_showing_the_conversation_out_of_order_fails(small: list[Event]) -> None:
    one = find(small, MessageSent, lambda m: m.index == 1).text
    two = find(small, MessageSent, lambda m: m.index == 2).text
    assert one and two and one != two

    def swap(prompt: str) -> str:
        return prompt.replace(one, "\0").replace(two, one).replace("\0", two)

    assert broken(plant(small, at("c/t3/Ada/1"), swap)) == {"conversation_shown"}


def test_a_prompt_showing_a_later_message_fails(small: list[Event]) -> None:
    later = find(small, MessageSent, lambda m: m.index == 3).text
    assert later
    assert broken(plant(small, at("c/t2/Ben/1"), append(later))) == {"conversation_shown"}


def test_a_prompt_showing_the_u_value_before_the_decision_fails(small: list[Event]) -> None:
    line = "Your collaboration threshold (u-value) is 0.75."
    assert broken(plant(small, at("c/t2/Ben/1"), append(line))) == {"u_value_hidden"}
    assert broken(plant(small, at("c/Ada/initial/1"), append("Threshold: 0.75"))) == {
        "u_value_hidden"
    }


def test_a_decision_prompt_without_the_u_value_fails(small: list[Event]) -> None:
    events = plant(small, at("c/Ada/decision/1"), lambda p: p.replace("0.75", "0.5"))
    assert broken(events) == {"u_value_hidden"}


def test_a_wrong_belief_so_far_fails(small: list[Event]) -> None:
    events = plant(small, at("c/t3/Ada/1"), lambda p: re.sub(r"so far: \d+", "so far: 101", p))
    assert broken(events) == {"belief_so_far"}


def test_a_belief_the_answer_does_not_state_fails(small: list[Event]) -> None:
    stated = find(small, BeliefStated, lambda b: b.step == 2)
    events = replaced(small, BeliefStated, lambda b: b.step == 2, belief=(stated.belief + 7) % 101)
    assert "answers_supported" in broken(events)


def test_a_belief_read_from_the_prediction_part_fails(small: list[Event]) -> None:
    """As if the parser mixed up the labels: value and event agree, the text does not."""
    stated = find(small, BeliefStated, lambda b: b.step == 2)
    assert stated.prediction is not None and stated.prediction != stated.belief
    swap = {"belief": stated.prediction, "prediction": stated.belief}
    accepted = find(small, AnswerAccepted, lambda a: a.kind == "turn" and a.agent == "Ben")
    events = replaced(small, BeliefStated, lambda b: b.step == 2, **swap)
    events = replaced(
        events, AnswerAccepted, lambda a: a is accepted, value={**accepted.value, **swap}
    )
    assert "answers_supported" in broken(events)  # (and the next prompts disagree with it)


def test_a_strategy_not_derived_from_the_choice_fails(small: list[Event]) -> None:
    made = find(small, DecisionMade, lambda d: d.agent == "Ben")
    flipped = "individual" if made.strategy == "collaborative" else "collaborative"
    events = replaced(small, DecisionMade, lambda d: d.agent == "Ben", strategy=flipped)
    assert "strategies_derived" in broken(events)


def test_a_breach_left_unrecorded_fails(small: list[Event]) -> None:
    events = replaced(
        small,
        MessageSent,
        lambda m: m.index == 2,
        text="I am 80% sure of this, and option B suits me.",
        breaches=[],
    )
    assert "message_breaches" in broken(events)


def test_a_turn_taken_by_the_wrong_agent_fails(small: list[Event]) -> None:
    events = replaced(small, BeliefStated, lambda b: b.step == 2, agent="Ada")
    assert "step_order" in broken(events)


def test_disclosure_off_with_the_partner_initial_shown_fails(small: list[Event]) -> None:
    events = with_config(small, disclose_initial_belief=False)
    assert broken(events) == {"partner_initial_shown"}


def test_more_attempts_than_allowed_fail() -> None:
    config = small_config(
        agents=[
            {"name": "Ada", "persona": {"kind": "trusting", "error_rate": 1.0}},
            {"name": "Ben", "persona": {"kind": "cautious", "error_rate": 1.0}},
        ]
    )
    events, history = record(config)
    assert audit_protocol(history).ok
    assert "attempts_bounded" in broken(with_config(events, attempts={"belief": 1, "message": 1}))


def test_a_wrong_lottery_draw_fails() -> None:
    events, history = record(small_config(agents=[{"name": "Ada"}], baseline={"p": 0.5}))
    assert audit_protocol(history).ok
    drawn = find(events, PartnerDrawn)
    tampered = replaced(events, PartnerDrawn, draw=(drawn.draw + 0.5) % 1)
    assert "lottery_partner" in broken(tampered)


# --- planted in the domain code ---------------------------------------------------------------


def fresh(config: Any = None) -> History:
    return record(config or mismatch_config())[1]


def mismatch_config() -> Any:
    """Ada collaborates, Ben goes individual: every branch of the payoff rule that differs."""
    return small_config(
        agents=[
            {
                "name": "Ada",
                "u_value": 0.05,
                "persona": {"kind": "trusting", "error_rate": 0.0, "breach_rate": 0.0},
            },
            {
                "name": "Ben",
                "u_value": 1.0,
                "persona": {"kind": "cautious", "error_rate": 0.0, "breach_rate": 0.0},
            },
        ]
    )


def failing(history: History) -> set[str]:
    return {v.rule for v in audit_protocol(history).violations}


def test_the_mismatch_run_is_clean() -> None:
    history = fresh()
    assert audit_protocol(history).ok
    awarded = history.of(PointsAwarded)[0][1]
    assert awarded.mismatch and awarded.strategies == {"Ada": "collaborative", "Ben": "individual"}


def test_a_payoff_bug_in_the_domain_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    def upside_always(own: Any, partner_strategy: Any) -> int:
        return own.upside if own.kind == "collaborative" else own.points

    monkeypatch.setattr(rules, "points", upside_always)
    monkeypatch.setattr(game, "points", upside_always)
    assert failing(fresh()) == {"payoff"}


def test_a_decision_prompt_without_the_partner_initial_is_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = game._decision_fields

    def without_partner(state: Any, agent: str) -> dict[str, Any]:
        return {**original(state, agent), "partner_initial": ""}

    monkeypatch.setattr(game, "_decision_fields", without_partner)
    assert failing(fresh()) == {"partner_initial_shown"}


def test_a_strategy_bug_in_the_domain_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(game, "strategy_of", lambda option: "collaborative")
    assert "strategies_derived" in failing(fresh())


def test_a_u_star_bug_in_the_domain_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "u_star", lambda option, individual: 0.5)
    assert failing(fresh()) == {"u_star"}


def test_a_prompt_showing_the_partners_belief_as_ones_own_is_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = game._belief_fields

    def partners(state: Any, agent: str) -> dict[str, Any]:
        other = state.config.partner_of(agent)
        return {**original(state, agent), "belief": original(state, other)["belief"]}

    monkeypatch.setattr(game, "_belief_fields", partners)
    assert "belief_so_far" in failing(fresh(small_config()))


def test_a_breach_check_that_misses_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(game, "message_breaches", lambda text, names: [])
    config = small_config(
        agents=[
            {"name": "Ada", "persona": {"kind": "trusting", "breach_rate": 1.0, "error_rate": 0.0}},
            {"name": "Ben", "persona": {"kind": "cautious", "breach_rate": 1.0, "error_rate": 0.0}},
        ]
    )
    assert failing(fresh(config)) == {"message_breaches"}


# --- runs in progress and damaged records ----------------------------------------------------


@pytest.mark.parametrize("i", [0, 4, 6, 13])
def test_every_prefix_of_a_run_audits_clean(i: int) -> None:
    """A run in progress (or stopped) breaks no rule: completeness is due at the end only."""
    events, _ = record(seeded_config(i))
    for k in range(1, len(events) + 1):
        history = history_from_events(events[:k])
        report = audit_protocol(history)
        assert report.ok, (k, [f"{v.rule}: {v.detail}" for v in report.violations])
        assert audit_leaks(history).ok, k


def test_an_unreadable_config_leaves_the_life_cycle_only(small: list[Event]) -> None:
    history = history_from_events(with_config(small, exchanges="many"))
    report = audit_protocol(history)
    assert report.rules_checked == ("lifecycle",)
    assert [v.detail for v in report.violations] == ["the recorded config cannot be read"]


# --- the two domain fixes this audit found ---------------------------------------------------


def with_message_tail(config: Any, tail: str, breach_rate: float = 0.0) -> list[Event]:
    """Ada's messages end with ``tail``."""
    respond = simulated_responder(config)

    def answer(request: Any) -> str:
        text = respond(request)
        return f"{text} {tail}" if request.agent == "Ada" and "MESSAGE:" in text else text

    return drive(config, answer)


def test_a_capitalised_option_keyword_is_a_recorded_breach() -> None:
    events = with_message_tail(small_config(), "Option A is my pick.")
    assert broken(events) == set()
    sent = [e for e in events if isinstance(e, MessageSent) and e.agent == "Ada"]
    assert all(any("Option A" in b for b in m.breaches) for m in sent)


def test_reask_also_holds_when_the_utility_agent_reads_the_numbers() -> None:
    """A belief only the utility agent can read, in a message that breaks the rules: under
    reask the message is sent back all the same."""
    config = small_config(message_rule="reask", attempts={"message": 2})
    respond = simulated_responder(config)

    def answer(request: Any) -> str:
        text = respond(request)
        if request.agent == "Ada" and "MESSAGE:" in text and request.address.endswith("/1"):
            text = re.sub(r"BELIEF: (\d+)", r"BELIEF: 0.\1", text) + " I am 80% sure."
        return text

    events = drive(config, answer)
    assert broken(events) == set()
    sent = [e for e in events if isinstance(e, MessageSent)]
    assert all(not m.breaches for m in sent)
    assert any(
        isinstance(e, AnswerRejected) and e.source == "utility" and "rules for messages" in e.reason
        for e in events
    )
