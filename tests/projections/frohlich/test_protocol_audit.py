"""The protocol audit: clean runs pass every rule; each rule catches a history that breaks it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from maai.domain.events import Event, ModelCallCompleted, ModelCallRequested, RunStarted
from maai.domain.frohlich import rules
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerMissing,
    BallotResolved,
    DiscussionEnded,
    DistributionsDrawn,
    GroupDistributionChosen,
    MemoryUpdated,
    PayoffAwarded,
    PollResolved,
    ReasoningRecorded,
    RoundUnpaid,
    SpeakingOrderDrawn,
    StatementMade,
    StepStarted,
    TallyLine,
)
from maai.domain.frohlich.experiment import EXPERIMENT
from maai.domain.frohlich.prompts import render
from maai.domain.frohlich.types import IncomeClass, Principle, PrincipleChoice
from maai.projections.frohlich.protocol import all_rules, audit_protocol
from maai.projections.history import History, history_from_events
from tests.projections.tamper import find, index_of, removed, replaced, with_config

Tamper = Callable[[list[Event]], list[Event]]


def rules_broken(events: list[Event]) -> set[str]:
    return {v.rule for v in audit_protocol(history_from_events(events)).violations}


def test_there_are_at_least_fifteen_rules_with_unique_ids() -> None:
    ids = [r.id for r in all_rules()]
    assert len(ids) >= 15 and len(set(ids)) == len(ids)


def test_clean_runs_pass_every_rule(
    golden: History, agreeable_events: list[Event], engine_history: History
) -> None:
    for history in (golden, history_from_events(agreeable_events), engine_history):
        report = audit_protocol(history)
        assert report.violations == ()
        assert list(report.rules_checked) == [r.id for r in all_rules()]


def test_every_prefix_of_a_clean_run_passes(golden: History) -> None:
    # An in-progress run is a prefix: completeness rules must wait for run.completed.
    for n in range(0, len(golden.entries), 11):
        prefix = History(golden.run_id, golden.entries[:n])
        assert audit_protocol(prefix).violations == (), n


def _scaled(multiplier: float) -> list[list[int]]:
    return [list(d.incomes) for d in rules.scale(rules.base_set(), multiplier).distributions]


def _is(agent: str, rnd: int) -> Callable[[DistributionsDrawn], bool]:
    return lambda d: d.agent == agent and d.round == rnd


def _after_completed(ev: list[Event]) -> list[Event]:
    return [*ev, StepStarted(step="1.1", agent="alice")]


def _second_accepted(ev: list[Event]) -> list[Event]:
    missing = find(ev, AnswerMissing, lambda m: m.kind == "choice")
    accepted = find(ev, AnswerAccepted, lambda a: a.kind == "choice" and a.agent == missing.agent)
    forged = accepted.model_copy(update={"slot": missing.slot})
    i = index_of(ev, AnswerMissing, lambda m: m.kind == "choice")
    return [*ev[:i], forged, *ev[i:]]


def _long_memory(ev: list[Event]) -> list[Event]:
    text = " ".join(["word"] * 70)
    return replaced(ev, MemoryUpdated, lambda m: m.agent == "bob", memory=text, words=70)


def _wrong_payoff_distribution(ev: list[Event]) -> list[Event]:
    paid = find(ev, PayoffAwarded, lambda p: p.agent == "bob" and p.round == 1)
    income = rules.base_set().get(2).income(paid.income_class)
    return replaced(
        ev,
        PayoffAwarded,
        lambda p: p.agent == "bob" and p.round == 1,
        distribution=2,
        income=income,
        payoff_cents=rules.payoff_cents(income),
    )


def _zero_probability_class(ev: list[Event]) -> list[Event]:
    probs = {"high": 0.0, "medium_high": 0.1, "medium": 0.55, "medium_low": 0.25, "low": 0.1}
    ev = with_config(ev, class_probabilities=probs)
    return replaced(ev, PayoffAwarded, lambda p: p.agent == "bob", income_class=IncomeClass.HIGH)


def _statement_after_consensus(ev: list[Event]) -> list[Event]:
    said = find(ev, StatementMade)
    i = index_of(ev, DiscussionEnded)
    return [*ev[:i], said.model_copy(update={"turn": 9}), *ev[i:]]


def _ended_before_discussion(ev: list[Event]) -> list[Event]:
    ended = find(ev, DiscussionEnded)
    ev = removed(ev, DiscussionEnded)
    i = index_of(ev, GroupDistributionChosen)
    return [*ev[: i + 1], ended, *ev[i + 1 :]]


def _prompt_edited(address: str, old: str, new: str) -> Tamper:
    """A recorded prompt whose text says something else (as a code bug would render it)."""

    def tamper(ev: list[Event]) -> list[Event]:
        asked = find(ev, ModelCallRequested, lambda r: r.request.address == address)
        assert old in asked.request.input, (address, old)
        request = asked.request.model_copy(update={"input": asked.request.input.replace(old, new)})
        return replaced(
            ev, ModelCallRequested, lambda r: r.request.address == address, request=request
        )

    return tamper


def _amount_not_in_the_text(ev: list[Event]) -> list[Event]:
    def stated(a: AnswerAccepted) -> bool:
        return (
            a.kind == "choice"
            and a.source == "parser"
            and isinstance(a.value, dict)
            and a.value.get("amount") is not None
        )

    accepted = find(ev, AnswerAccepted, stated)
    return replaced(ev, AnswerAccepted, stated, value={**accepted.value, "amount": 77777})


def _told_in_phase1(ev: list[Event]) -> list[Event]:
    # The manipulator's instruction in a prompt before Phase 1 was over.
    ev = with_config(ev, manipulator={"agent": "carol"})
    i = index_of(ev, ModelCallRequested, lambda r: r.request.agent == "carol")
    requested = ev[i]
    assert isinstance(requested, ModelCallRequested)
    text = requested.request.input + "\n" + render("manipulator_instruction", target="(a)")
    request = requested.request.model_copy(update={"input": text})
    return [*ev[:i], requested.model_copy(update={"request": request}), *ev[i + 1 :]]


GOLDEN_TAMPERS: list[tuple[str, Tamper]] = [
    ("reference_payoffs", _wrong_payoff_distribution),
    ("reference_payoffs", lambda ev: replaced(ev, PayoffAwarded, balance_cents=1)),
    ("reference_votes", lambda ev: replaced(ev, PollResolved, lambda p: p.passed, passed=False)),
    ("prompt_round_table", _prompt_edited("p1/bob/r2/choice/1", "round 2 of 4", "round 3 of 4")),
    ("prompt_round_table", _prompt_edited("p1/bob/r2/choice/1", "| Low | $", "| Low | $1")),
    (
        "prompt_round_outcome",
        _prompt_edited("p1/bob/r2/memory", "your income is $", "your income is $1"),
    ),
    ("prompt_memory_and_balance", _long_memory),
    (
        "prompt_language",
        _prompt_edited(
            "p1/bob/r2/choice/1",
            "round 2 of 4.",
            "round 2 of 4. Ahora haz tu intervención ante el grupo; todos la verán.",
        ),
    ),
    (
        "prompt_memory_and_balance",
        _prompt_edited("p1/bob/r3/choice/1", "Bank balance: $", "Bank balance: $9"),
    ),
    ("answers_supported", _amount_not_in_the_text),
    (
        "answers_supported",
        lambda ev: replaced(
            ev,
            AnswerAccepted,
            lambda a: a.address == "p1/alice/r2/choice/1",
            value={"principle": "d", "amount": 22700},
        ),
    ),
    (
        "prompt_explanation",
        _prompt_edited(
            "p1/bob/s1.2/ranking/1",
            "(a) chooses Distribution 4.",
            "(a) chooses Distribution 2.",
        ),
    ),
    (
        "prompt_explanation",
        _prompt_edited("p1/bob/s1.2/ranking/1", "$12,001 to $14,000", "$12,001 to $16,000"),
    ),
    ("lifecycle", _after_completed),
    (
        "calls_paired",
        lambda ev: replaced(ev, ModelCallCompleted, request_hash="0" * 64),
    ),
    (
        "answers_read_from_calls",
        lambda ev: replaced(ev, AnswerAccepted, raw_text="Something else entirely."),
    ),
    # bob's poll answer needed a second attempt: with one allowed, that is one too many.
    (
        "attempts_bounded",
        lambda ev: with_config(ev, attempts={**find(ev, RunStarted).config["attempts"], "poll": 1}),
    ),
    ("missing_not_defaulted", _second_accepted),
    (
        "missing_not_defaulted",
        lambda ev: replaced(ev, AnswerMissing, attempts=3),
    ),
    ("memory_limit", _long_memory),
    (
        "phase1_rounds",
        lambda ev: removed(ev, DistributionsDrawn, _is("carol", 2)),
    ),
    (
        "round1_base",
        lambda ev: replaced(
            ev, DistributionsDrawn, _is("bob", 1), multiplier=1.5, distributions=_scaled(1.5)
        ),
    ),
    (
        "multiplier_range",
        lambda ev: replaced(
            ev, DistributionsDrawn, _is("bob", 2), multiplier=3.0, distributions=_scaled(3.0)
        ),
    ),
    (
        "scaled_tables",
        lambda ev: replaced(
            ev,
            DistributionsDrawn,
            _is("bob", 2),
            distributions=[
                [1, *row[1:]] for row in find(ev, DistributionsDrawn, _is("bob", 2)).distributions
            ],
        ),
    ),
    (
        "draws_reproducible",
        lambda ev: replaced(
            ev, DistributionsDrawn, _is("bob", 2), multiplier=1.5, distributions=_scaled(1.5)
        ),
    ),
    (
        "draws_reproducible",
        lambda ev: replaced(ev, SpeakingOrderDrawn, order=["alice", "carol", "bob"]),
    ),
    (
        "rankings_recorded",
        lambda ev: removed(ev, AnswerAccepted, lambda a: a.slot == "p2/alice/s2.3/ranking"),
    ),
    ("phase1_payment", lambda ev: removed(ev, RoundUnpaid)),
    (
        "phase1_payment",
        lambda ev: replaced(
            ev,
            PayoffAwarded,
            lambda p: p.agent == "bob" and p.round == 1,
            choice=PrincipleChoice(principle=Principle.FLOOR),
        ),
    ),
    ("principle_applied", _wrong_payoff_distribution),
    (
        "payoff_arithmetic",
        lambda ev: replaced(
            ev, PayoffAwarded, payoff_cents=find(ev, PayoffAwarded).payoff_cents + 1
        ),
    ),
    (
        "bank_balance",
        lambda ev: replaced(
            ev, PayoffAwarded, balance_cents=find(ev, PayoffAwarded).balance_cents + 1
        ),
    ),
    ("class_probability", _zero_probability_class),
    (
        "speaking_order",
        lambda ev: replaced(
            ev, SpeakingOrderDrawn, lambda o: o.round == 2, order=["bob", "alice", "carol"]
        ),
    ),
    (
        "speaking_order",
        lambda ev: replaced(ev, SpeakingOrderDrawn, order=["carol", "alice", "alice"]),
    ),
    (
        "turns_follow_order",
        lambda ev: replaced(ev, StatementMade, lambda s: s.round == 1 and s.turn == 2, turn=3),
    ),
    (
        "reasoning_as_configured",
        lambda ev: removed(ev, ReasoningRecorded, lambda r: r.agent == "alice"),
    ),
    (
        "proposal_detected",
        lambda ev: replaced(ev, StatementMade, lambda s: not s.proposes_vote, proposes_vote=True),
    ),
    ("poll_rule", lambda ev: replaced(ev, PollResolved, passed=True)),
    (
        "poll_rule",
        lambda ev: replaced(
            ev, PollResolved, answers={"alice": True, "bob": True, "carol": True}, passed=True
        ),
    ),
    (
        "ballot_rule",
        lambda ev: replaced(
            ev,
            BallotResolved,
            tally=[TallyLine(choice=PrincipleChoice(principle=Principle.FLOOR), count=3)],
        ),
    ),
    (
        "ballot_rule",
        lambda ev: replaced(ev, PollResolved, lambda p: p.passed, passed=False),
    ),
    (
        "consensus_ends_discussion",
        lambda ev: replaced(
            ev, DiscussionEnded, agreement=PrincipleChoice(principle=Principle.FLOOR)
        ),
    ),
    ("discussion_rounds", lambda ev: with_config(ev, phase2_rounds=1)),
    ("phase2_after_discussion", _ended_before_discussion),
    (
        "group_payment",
        lambda ev: replaced(ev, GroupDistributionChosen, drawn=False, label=None),
    ),
    ("group_payment", lambda ev: removed(ev, PayoffAwarded, lambda p: p.scope == "phase2")),
    ("situations", lambda ev: replaced(ev, DistributionsDrawn, situation="A")),
    ("manipulator_target", lambda ev: with_config(ev, manipulator={"agent": "carol"})),
    ("manipulator_instruction", _told_in_phase1),
]

AGREEABLE_TAMPERS: list[tuple[str, Tamper]] = [
    ("consensus_ends_discussion", _statement_after_consensus),
    (
        "ballot_rule",
        lambda ev: replaced(ev, BallotResolved, consensus=False, agreement=None),
    ),
    (
        "group_payment",
        lambda ev: replaced(ev, GroupDistributionChosen, distribution=4),
    ),
    (
        "principle_applied",
        lambda ev: replaced(ev, PayoffAwarded, lambda p: p.scope == "phase2", distribution=4),
    ),
]


@pytest.mark.parametrize(
    ("rule", "tamper"), GOLDEN_TAMPERS, ids=lambda x: getattr(x, "__name__", x)
)
def test_rule_catches_a_broken_golden_history(
    rule: str, tamper: Tamper, golden_events: list[Event]
) -> None:
    assert rule in rules_broken(tamper(list(golden_events)))


@pytest.mark.parametrize(
    ("rule", "tamper"), AGREEABLE_TAMPERS, ids=lambda x: getattr(x, "__name__", x)
)
def test_rule_catches_a_broken_consensus_history(
    rule: str, tamper: Tamper, agreeable_events: list[Event]
) -> None:
    assert rule in rules_broken(tamper(list(agreeable_events)))


def test_every_rule_has_a_breaking_history() -> None:
    tested = {rule for rule, _ in GOLDEN_TAMPERS + AGREEABLE_TAMPERS}
    assert tested == {r.id for r in all_rules()}


def test_violations_name_rule_seq_and_detail(golden_events: list[Event]) -> None:
    ev = replaced(golden_events, PayoffAwarded, lambda p: p.agent == "carol", payoff_cents=1)
    history = history_from_events(ev)
    report = audit_protocol(history)
    seq = next(e.seq for e, p in history.of(PayoffAwarded) if p.agent == "carol")
    hit = [v for v in report.violations if v.rule == "payoff_arithmetic"]
    assert hit and hit[0].seq == seq and "payoff/phase1/carol/1" in hit[0].detail
    assert report.to_json()["violations"][0]["rule"]


def test_a_history_without_its_start_is_reported_not_crashed(golden_events: list[Event]) -> None:
    report = audit_protocol(history_from_events(golden_events[1:], experiment=EXPERIMENT))
    assert [v.rule for v in report.violations] == ["lifecycle"]
    assert report.rules_checked == ("lifecycle",)


def test_a_request_with_a_forged_hash_is_caught(golden_events: list[Event]) -> None:
    ev = replaced(golden_events, ModelCallRequested, request_hash="f" * 64)
    assert "calls_paired" in rules_broken(ev)


def test_a_rule_that_cannot_evaluate_a_damaged_history_reports_it(
    golden_events: list[Event],
) -> None:
    ev = replaced(golden_events, DistributionsDrawn, _is("bob", 2), distributions=[[1, 2, 3]])
    report = audit_protocol(history_from_events(ev))
    assert list(report.rules_checked) == [r.id for r in all_rules()]
    crashed = [v for v in report.violations if v.detail.startswith("could not be checked")]
    assert crashed and crashed[0].seq is None


def test_a_check_that_fails_in_the_shared_read_stops_its_own_rule_only(
    golden_events: list[Event],
) -> None:
    # The rules that read prompts share one read of the run (protocol_base.in_one_pass): an
    # address whose round cannot be read stops prompt_round_table, and the others go on.
    def is_choice(e: ModelCallRequested) -> bool:
        return e.request.address.startswith("p1/") and "/choice/" in e.request.address

    target = find(golden_events, ModelCallRequested, is_choice)
    address = target.request.address.replace("/r1/", "/rX/")
    request = target.request.model_copy(update={"address": address})
    ev = replaced(golden_events, ModelCallRequested, is_choice, request=request)
    report = audit_protocol(history_from_events(ev))
    found = [(v.rule, v.detail) for v in report.violations]
    table = [d for r, d in found if r == "prompt_round_table"]
    assert len(table) == 1 and table[0].startswith("could not be checked: ValueError")
    assert ("calls_paired", f"{address}: recorded hash is not the request's") in found
    assert not [d for r, d in found if r == "prompt_memory_and_balance"]
