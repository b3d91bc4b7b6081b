"""The Frohlich protocol (docs/frohlich.md §3–§7) driven through ``decide`` with scripted
answers."""

from __future__ import annotations

import random
from collections import Counter

from maai.domain.calls import ModelRequest
from maai.domain.events import ModelCallCompleted, ModelCallRequested, RunCompleted
from maai.domain.frohlich.decide import decide
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerMissing,
    AnswerRejected,
    BallotResolved,
    DiscussionEnded,
    DistributionsDrawn,
    GroupDistributionChosen,
    MemoryUpdated,
    PayoffAwarded,
    PollResolved,
    RoundUnpaid,
    SpeakingOrderDrawn,
    StatementMade,
)
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.state import fold
from maai.domain.frohlich.types import Principle, PrincipleChoice
from tests.support.driver import NAMES, agreeable, drive, make_config, start


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def test_agreeable_group_runs_every_step_and_is_paid():
    state, events, requests = drive(make_config(), agreeable)
    assert isinstance(events[-1], RunCompleted)
    assert state.status == "completed"
    agreement = PrincipleChoice(principle=Principle.FLOOR_CONSTRAINT, amount=13000)
    assert state.outcome == agreement
    for name in NAMES:
        agent = state.agents[name]
        # three Phase-1 rankings plus the final one (docs/frohlich.md §3, §4 2.3)
        assert [step for step, _ in agent.rankings] == ["1.1", "1.2", "1.4", "2.3"]
        p1 = [p for p in agent.payoffs if p.scope == "phase1"]
        assert [p.round for p in p1] == [1, 2, 3, 4]
        p2 = [p for p in agent.payoffs if p.scope == "phase2"]
        assert len(p2) == 1 and p2[0].choice == agreement
        assert agent.bank_cents == sum(p.payoff_cents for p in agent.payoffs)
        assert agent.missing == ()
    # Round 1 uses the base set, unscaled.
    round1 = [d for d in of(events, DistributionsDrawn) if d.scope == "phase1" and d.round == 1]
    assert all(d.multiplier == 1.0 and d.distributions[0][4] == 12000 for d in round1)
    # Consensus in round 1 ends the discussion right after the first ballot.
    ended = of(events, DiscussionEnded)
    assert len(ended) == 1 and ended[0].rounds_used == 1
    assert len(of(events, BallotResolved)) == 1
    # Memory after every step: 1.1, 1.2, 4 rounds, 1.4, one Phase-2 round, 2.2, 2.3.
    per_agent = Counter(m.agent for m in of(events, MemoryUpdated))
    assert per_agent == {name: 10 for name in NAMES}


def test_every_participant_request_starts_with_the_preamble():
    _, _, requests = drive(make_config(), agreeable)
    for request in requests:
        if request.purpose == Purpose.EXTRACT:
            continue
        lines = request.input.splitlines()
        assert lines[0] == f"Name: {request.agent}"
        assert lines[1].startswith("Role description: ")
        assert "Bank balance: $" in request.input
        assert "Memory:" in request.input


def test_bank_balance_and_memory_shown_are_current():
    _, events, requests = drive(make_config(), agreeable)
    payoffs = [p for p in of(events, PayoffAwarded) if p.agent == "alice" and p.round == 1]
    round2 = next(r for r in requests if r.address == "p1/alice/r2/choice/1")
    balance = payoffs[0].balance_cents
    assert f"Bank balance: ${balance // 100}.{balance % 100:02d}" in round2.input
    assert "memory of alice after p1/alice/r1/memory" in round2.input


def test_missing_amount_is_rejected_with_reason_and_asked_again():
    def responder(request: ModelRequest) -> str:
        if request.address == "p1/bob/r2/choice/1":
            return "I choose (d), the range constraint."
        return agreeable(request)

    _, events, requests = drive(make_config(), responder)
    rejected = [e for e in of(events, AnswerRejected) if e.slot == "p1/bob/r2/choice"]
    assert len(rejected) == 1 and rejected[0].source == "parser"
    assert "range" in rejected[0].reason
    retry = next(r for r in requests if r.address == "p1/bob/r2/choice/2")
    assert rejected[0].reason in retry.input
    assert retry.context["feedback"] == rejected[0].reason


def test_answer_never_valid_is_recorded_missing_not_defaulted():
    def responder(request: ModelRequest) -> str:
        if request.address.startswith("p1/carol/r3/choice/"):
            return "I choose (c)."
        return agreeable(request)

    state, events, _ = drive(make_config(), responder)
    missing = of(events, AnswerMissing)
    assert [m.slot for m in missing] == ["p1/carol/r3/choice"]
    assert missing[0].attempts == 3
    unpaid = of(events, RoundUnpaid)
    assert [(u.agent, u.round) for u in unpaid] == [("carol", 3)]
    assert [r for r, _ in state.agents["carol"].choices] == [1, 2, 3, 4]
    assert dict(state.agents["carol"].choices)[3] is None
    assert "p1/carol/r3/choice" in state.agents["carol"].missing
    assert not any(p.round == 3 for p in state.agents["carol"].payoffs if p.scope == "phase1")


def test_undecided_answer_goes_to_the_utility_agent():
    def responder(request: ModelRequest) -> str:
        if request.address == "p1/alice/r1/choice/1":
            return "Hmm. Something in between: the one that protects the bottom but grows."
        if request.purpose == Purpose.EXTRACT:
            assert request.context["kind"] == "choice"
            return '{"principle": "c", "amount": 14000, "readable": true}'
        return agreeable(request)

    state, events, requests = drive(make_config(), responder)
    accepted = [e for e in of(events, AnswerAccepted) if e.slot == "p1/alice/r1/choice"]
    assert len(accepted) == 1
    assert accepted[0].source == "utility"
    assert accepted[0].via == "p1/alice/r1/choice/1/extract/1"
    assert accepted[0].raw_text.startswith("Hmm.")
    assert dict(state.agents["alice"].choices)[1] == PrincipleChoice(
        principle=Principle.FLOOR_CONSTRAINT, amount=14000
    )
    extract = next(r for r in requests if r.purpose == Purpose.EXTRACT)
    assert extract.agent == "utility" and extract.output_schema is not None


def test_broken_utility_json_is_retried_then_the_participant_is_asked_again():
    def responder(request: ModelRequest) -> str:
        if request.address == "p1/alice/r1/choice/1":
            return "Something in between, I suppose."
        if request.purpose == Purpose.EXTRACT:
            return "not json at all"
        return agreeable(request)

    _, events, requests = drive(make_config(), responder)
    addresses = [r.address for r in requests if r.address.startswith("p1/alice/r1/choice")]
    assert addresses[:4] == [
        "p1/alice/r1/choice/1",
        "p1/alice/r1/choice/1/extract/1",
        "p1/alice/r1/choice/1/extract/2",
        "p1/alice/r1/choice/2",
    ]


def test_no_proposal_means_no_agreement_and_a_drawn_distribution():
    def responder(request: ModelRequest) -> str:
        if request.purpose == Purpose.STATEMENT:
            return "I like (a)."
        return agreeable(request)

    state, events, _ = drive(make_config(phase2_rounds=2), responder)
    assert of(events, DiscussionEnded)[0].agreement is None
    assert of(events, DiscussionEnded)[0].rounds_used == 2
    chosen = of(events, GroupDistributionChosen)[0]
    assert chosen.drawn and chosen.agreement is None
    assert state.outcome is None
    assert all(
        p.distribution == chosen.distribution
        for p in of(events, PayoffAwarded)
        if p.scope == "phase2"
    )


def test_failed_poll_and_split_ballot_become_public():
    def responder(request: ModelRequest) -> str:
        if request.purpose == Purpose.POLL and request.address.startswith("p2/r1/"):
            return "No, not yet." if request.agent == "bob" else "Yes"
        if request.purpose == Purpose.BALLOT and request.address.startswith("p2/r2/"):
            return "(a)" if request.agent == "carol" else "(c) $13,000"
        return agreeable(request)

    state, events, requests = drive(make_config(), responder)
    polls = of(events, PollResolved)
    assert not polls[0].passed and polls[0].answers["bob"] is False
    first_tally = next(b for b in of(events, BallotResolved) if b.round == 2)
    assert not first_tally.consensus
    assert sorted(t.count for t in first_tally.tally) == [1, 2]
    later = [
        r for r in requests if r.purpose == Purpose.STATEMENT and r.address.startswith("p2/r3/")
    ]
    assert later and all("Secret ballot result" in r.input for r in later)
    assert all("bob: no" in r.input for r in later)


def test_speaking_order_never_starts_with_the_last_speaker():
    def responder(request: ModelRequest) -> str:
        if request.purpose == Purpose.STATEMENT:
            return "Still thinking."
        return agreeable(request)

    _, events, _ = drive(make_config(phase2_rounds=8), responder)
    orders = of(events, SpeakingOrderDrawn)
    assert len(orders) == 8
    for previous, current in zip(orders, orders[1:], strict=False):
        assert current.order[0] != previous.order[-1]
        assert current.previous_last == previous.order[-1]
    statements = of(events, StatementMade)
    assert [s.agent for s in statements if s.round == 1] == orders[0].order


def test_private_reasoning_never_reaches_another_agent():
    _, events, requests = drive(make_config(phase2_rounds=2), agreeable)
    for request in requests:
        for other in NAMES:
            if other != request.agent:
                assert f"private thoughts of {other}" not in request.input


def test_over_long_memory_is_shortened_then_cut():
    config = make_config(agents=[{"name": n, "memory_words": 50} for n in NAMES])

    def responder(request: ModelRequest) -> str:
        if request.address == "p1/alice/s1.1/memory":
            return "word " * 80
        if request.address == "p1/alice/s1.1/memory/shorten":
            return "short " * 60
        if request.address == "p1/bob/s1.1/memory":
            return "word " * 80
        if request.address == "p1/bob/s1.1/memory/shorten":
            return "fine now"
        return agreeable(request)

    _, events, _ = drive(config, responder)
    memory = {m.slot: m for m in of(events, MemoryUpdated)}
    alice = memory["p1/alice/s1.1/memory"]
    assert alice.source == "cut" and alice.words == 50 and alice.words_before_cut == 60
    bob = memory["p1/bob/s1.1/memory"]
    assert bob.source == "shortened" and bob.memory == "fine now"


def test_same_answers_give_the_same_events():
    _, first, _ = drive(make_config(), agreeable)
    _, second, _ = drive(make_config(), agreeable)
    assert first == second


def test_phase1_events_fold_the_same_in_any_interleaving_of_agents():
    _, events, _ = drive(make_config(), agreeable)
    started, rest = events[0], events[1:]
    phase1 = [e for e in rest if (e.agent_name or "") in NAMES and _address(e).startswith("p1/")]
    by_agent = {n: [e for e in phase1 if e.agent_name == n] for n in NAMES}
    reference = fold([started, *phase1])
    rng = random.Random(0)
    for _ in range(20):
        queues = {n: list(q) for n, q in by_agent.items()}
        shuffled = []
        while any(queues.values()):
            name = rng.choice([n for n, q in queues.items() if q])
            shuffled.append(queues[name].pop(0))
        state = fold([started, *shuffled])
        assert state.agents == reference.agents
        assert state.answers == reference.answers


def _address(event) -> str:
    if isinstance(event, ModelCallRequested):
        return event.request.address
    for attr in ("address", "slot", "label"):
        value = getattr(event, attr, None)
        if isinstance(value, str):
            return value
    return (
        "p1/"
        if getattr(event, "scope", None) == "phase1" or getattr(event, "step", "").startswith("1.")
        else ""
    )


def test_decide_is_pure():
    config = make_config()
    state, _ = start(config)
    first = decide(state)
    second = decide(state)
    assert first.events == second.events and first.calls == second.calls
    assert not state.records  # the input state was not touched
    assert isinstance(first.calls[0], ModelRequest)


def test_payment_table_is_drawn_only_after_the_discussion():
    _, events, _ = drive(make_config(), agreeable)
    types = [type(e) for e in events]
    ended = types.index(DiscussionEnded)
    p2_draw = next(
        i for i, e in enumerate(events) if isinstance(e, DistributionsDrawn) and e.scope == "phase2"
    )
    assert p2_draw > ended
    completed = [e for e in events if isinstance(e, ModelCallCompleted)]
    assert completed


def test_poll_answers_are_shown_in_group_order_whatever_the_stored_key_order():
    # A stored JSON object does not keep key order (sorted for hashing, reordered by JSONB).
    config = make_config()
    state, _ = start(config)
    forward = PollResolved(
        round=1,
        turn=1,
        proposer="bob",
        answers={"alice": True, "bob": True, "carol": False},
        passed=False,
    )
    backward = forward.model_copy(update={"answers": dict(reversed(forward.answers.items()))})
    shown = [fold([e], state).public[0].poll_answers for e in (forward, backward)]
    assert shown[0] == shown[1] == (("alice", True), ("bob", True), ("carol", False))
