"""The leak audit (docs/frohlich.md §6): clean runs have no leak; a planted leak of each kind is
found,
with whose prompt, whose item and where."""

from __future__ import annotations

from collections.abc import Callable

from maai.domain.events import Event, ModelCallCompleted, ModelCallRequested
from maai.domain.frohlich import render
from maai.domain.frohlich.events import (
    AnswerAccepted,
    DistributionsDrawn,
    MemoryUpdated,
    PayoffAwarded,
    ReasoningRecorded,
    StatementMade,
)
from maai.projections.frohlich.leaks import Leak, audit_leaks
from maai.projections.history import History, history_from_events
from tests.projections.tamper import find, index_of

Where = Callable[[ModelCallRequested], bool]


def plant(events: list[Event], where: Where, edit: Callable[[str], str]) -> list[Event]:
    """Rewrite the input of the first request matching ``where`` (and its hash, as a real
    leaky prompt would carry)."""
    out = list(events)
    i = index_of(out, ModelCallRequested, where)
    old = out[i]
    assert isinstance(old, ModelCallRequested)
    request = old.request.model_copy(update={"input": edit(old.request.input)})
    out[i] = old.model_copy(update={"request": request, "request_hash": request.request_hash()})
    return out


def append(text: str) -> Callable[[str], str]:
    return lambda prompt: f"{prompt}\n\n{text}"


def at(address: str) -> Where:
    return lambda r: r.request.address == address


def leaks_of(events: list[Event]) -> list[Leak]:
    return list(audit_leaks(history_from_events(events)).leaks)


def test_clean_runs_have_no_leak(
    golden: History, agreeable_events: list[Event], engine_history: History
) -> None:
    for history in (golden, history_from_events(agreeable_events), engine_history):
        report = audit_leaks(history)
        assert report.ok, [leak.describe() for leak in report.leaks]
        assert report.prompts_checked > 50 and report.items_checked > 50


def test_another_agents_reasoning_is_found(golden_events: list[Event]) -> None:
    reasoning = find(golden_events, ReasoningRecorded, lambda r: r.agent == "alice")
    events = plant(golden_events, at("p2/r2/carol/statement"), append(reasoning.text))
    (leak,) = leaks_of(events)
    assert (leak.agent, leak.kind, leak.owner) == ("carol", "private reasoning", "alice")
    assert leak.address == "p2/r2/carol/statement"
    history = history_from_events(events)
    assert leak.item_seq == next(e.seq for e, r in history.of(ReasoningRecorded) if r == reasoning)
    assert leak.prompt_seq == next(
        e.seq for e, r in history.of(ModelCallRequested) if r.request.address == leak.address
    )


def test_another_agents_memory_is_found(golden_events: list[Event]) -> None:
    memory = find(golden_events, MemoryUpdated, lambda m: m.agent == "bob" and m.words >= 20)
    events = plant(golden_events, at("p1/alice/s1.4/ranking/1"), append(memory.memory))
    kinds = {(leak.agent, leak.kind, leak.owner) for leak in leaks_of(events)}
    assert ("alice", "memory", "bob") in kinds


def test_short_memories_are_not_searched(golden_events: list[Event]) -> None:
    events = plant(golden_events, at("p1/alice/s1.4/ranking/1"), append("carol"))
    assert leaks_of(events) == []


def test_another_agents_phase1_result_is_found(golden_events: list[Event]) -> None:
    paid = find(golden_events, PayoffAwarded, lambda p: p.agent == "carol" and p.round == 2)
    table = render.counterfactual_table(paid.counterfactuals, paid.distribution)
    events = plant(golden_events, at("p2/r1/bob/statement"), append(table))
    found = {(leak.agent, leak.kind, leak.owner) for leak in leaks_of(events)}
    assert found == {("bob", "Phase-1 result", "carol")}


def test_a_result_said_in_public_is_no_leak(golden_events: list[Event]) -> None:
    paid = find(golden_events, PayoffAwarded, lambda p: p.agent == "carol" and p.round == 2)
    line = render.counterfactual_table(paid.counterfactuals, paid.distribution).splitlines()[2]
    events = plant(golden_events, at("p2/r2/bob/statement"), append(line))
    assert {leak.owner for leak in leaks_of(events)} == {"carol"}
    # carol says the line herself in round 1: from then on it is public.
    i = index_of(events, StatementMade, lambda s: s.agent == "carol")
    said = events[i]
    assert isinstance(said, StatementMade)
    events[i] = said.model_copy(update={"text": f"{said.text}\n{line}"})
    assert leaks_of(events) == []


def test_another_agents_secret_ballot_is_found(golden_events: list[Event]) -> None:
    ballot = find(golden_events, AnswerAccepted, lambda a: a.kind == "ballot" and a.agent == "bob")
    events = plant(golden_events, at("p2/alice/s2.3/ranking/1"), append(ballot.raw_text))
    (leak,) = leaks_of(events)
    assert (leak.agent, leak.kind, leak.owner) == ("alice", "secret ballot", "bob")


def test_another_agents_bank_balance_is_found(golden_events: list[Event]) -> None:
    # At 2.3 alice holds $9.51 and carol $17.25.
    events = plant(
        golden_events,
        at("p2/alice/s2.3/ranking/1"),
        lambda prompt: prompt.replace("Bank balance: $9.51", "Bank balance: $17.25"),
    )
    (leak,) = leaks_of(events)
    assert (leak.agent, leak.kind, leak.owner) == ("alice", "bank balance", "carol")


def test_a_prompt_with_another_agents_preamble_is_found(golden_events: list[Event]) -> None:
    events = plant(
        golden_events,
        at("p1/bob/s1.2/ranking/1"),
        lambda prompt: prompt.replace("Name: bob", "Name: carol", 1),
    )
    (leak,) = leaks_of(events)
    assert (leak.agent, leak.kind, leak.owner) == ("bob", "preamble (name)", "carol")


def test_the_payment_table_before_the_discussion_ended_is_found(
    golden_events: list[Event],
) -> None:
    table = find(golden_events, DistributionsDrawn, lambda d: d.scope == "phase2")
    text = render.distribution_table(table.distributions)
    events = plant(golden_events, at("p1/carol/r3/choice/1"), append(text))
    (leak,) = leaks_of(events)
    assert (leak.agent, leak.kind, leak.owner) == ("carol", "Phase-2 payment table", None)
    # After the discussion ended the table is what 2.2 shows everyone: no leak.
    after = plant(golden_events, at("p2/carol/s2.3/ranking/1"), append(text))
    assert leaks_of(after) == []


def test_every_leak_is_described_on_one_line(golden_events: list[Event]) -> None:
    reasoning = find(golden_events, ReasoningRecorded, lambda r: r.agent == "bob")
    events = plant(golden_events, at("p2/r2/carol/statement"), append(reasoning.text))
    (leak,) = leaks_of(events)
    line = leak.describe()
    assert "\n" not in line and "carol" in line and "bob" in line and str(leak.prompt_seq) in line


def test_another_agents_round_outcome_line_is_found(golden_events: list[Event]) -> None:
    # The line exactly as carol was told it in her memory-update prompt after round 2.
    told = find(golden_events, ModelCallRequested, at("p1/carol/r2/memory"))
    line = next(x for x in told.request.input.splitlines() if x.startswith("Result of round 2"))
    events = plant(golden_events, at("p1/bob/s1.4/ranking/1"), append(line))
    (leak,) = leaks_of(events)
    assert (leak.agent, leak.kind, leak.owner) == ("bob", "Phase-1 result", "carol")


def test_a_leak_the_agent_then_repeats_is_still_found(golden_events: list[Event]) -> None:
    secret = find(golden_events, ReasoningRecorded, lambda r: r.agent == "bob").text
    address = "p2/r2/carol/statement"
    events = plant(golden_events, at(address), append(secret))
    # carol echoes what she was (wrongly) shown: that must not excuse the prompt.
    i = index_of(events, ModelCallCompleted, lambda c: c.address == address)
    done = events[i]
    assert isinstance(done, ModelCallCompleted)
    answer = done.answer.model_copy(update={"text": f"{done.answer.text}\n{secret}"})
    events[i] = done.model_copy(update={"answer": answer})
    found = [(leak.address, leak.owner) for leak in leaks_of(events)]
    assert (address, "bob") in found
