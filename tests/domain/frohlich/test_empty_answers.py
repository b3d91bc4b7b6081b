"""An empty (blank or null) answer to a free-text call — a memory update, a shortened memory,
a private reasoning, a statement — is asked again, telling the participant it was empty, and
never stored as the memory, reasoning or statement; after ``attempts.<kind>`` empty answers
the slot is recorded missing and the protocol goes on without inventing text (docs/rules.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from maai.domain.calls import ModelAnswer, ModelRequest, Usage
from maai.domain.events import Event, ModelCallCompleted, RunCompleted
from maai.domain.frohlich.events import (
    AnswerMissing,
    AnswerRejected,
    MemoryUpdated,
    ReasoningRecorded,
    StatementMade,
)
from maai.domain.frohlich.phase2 import NO_REASONING, NO_STATEMENT
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.steps import EMPTY_ANSWER
from maai.ledger import EventStore
from maai.projections.frohlich.leaks import audit_leaks
from maai.projections.frohlich.protocol import audit_protocol
from maai.projections.history import history_from_events, history_from_stored
from maai.runtime.engine import Engine
from maai.runtime.runs import start_run
from maai.runtime.verify import verify_events
from tests.support.driver import agreeable, drive, make_config


def talkative(request: ModelRequest) -> str:
    """``agreeable``, except that nobody proposes a vote in round 1: everyone speaks in it."""
    if request.purpose == Purpose.STATEMENT and request.address.startswith("p2/r1/"):
        return f"I, {request.agent}, like (c) with a floor of $13,000."
    return agreeable(request)


def scripted(empty: dict[str, str], base: Callable[[ModelRequest], str] = talkative):
    """``talkative``, except that the calls at the addresses in ``empty`` answer that text."""

    def respond(request: ModelRequest) -> str:
        if request.address in empty:
            return empty[request.address]
        return base(request)

    return respond


def of(events: list[Event], cls: type[Event]) -> list:
    return [e for e in events if isinstance(e, cls)]


def completed_text(events: list[Event], address: str) -> str | None:
    found = [e.answer.text for e in of(events, ModelCallCompleted) if e.address == address]
    return found[0] if found else None


def assert_clean(events: list[Event]) -> None:
    """The run completes and the protocol and leak audits pass."""
    assert isinstance(events[-1], RunCompleted)
    history = history_from_events(events)
    assert audit_protocol(history).violations == ()
    assert audit_leaks(history).ok


def test_an_empty_memory_is_asked_again_and_the_next_answer_is_kept() -> None:
    slot = "p1/alice/s1.1/memory"
    responder = scripted({slot: "", f"{slot}/2": "  \n\t "})
    _, events, requests = drive(make_config(), responder)

    asked = [r for r in requests if r.address.startswith(slot) and "shorten" not in r.address]
    assert [r.address for r in asked] == [slot, f"{slot}/2", f"{slot}/3"]
    assert EMPTY_ANSWER not in asked[0].input
    assert all(EMPTY_ANSWER in r.input and r.context["feedback"] == EMPTY_ANSWER for r in asked[1:])
    rejected = [e for e in of(events, AnswerRejected) if e.slot == slot]
    assert [(e.kind, e.attempt, e.raw_text) for e in rejected] == [
        ("memory", 1, ""),
        ("memory", 2, "  \n\t "),
    ]
    (memory,) = [e for e in of(events, MemoryUpdated) if e.slot == slot]
    assert memory.memory == completed_text(events, f"{slot}/3") != ""
    assert not [e for e in of(events, AnswerMissing) if e.slot == slot]
    assert_clean(events)


def test_a_memory_empty_every_time_stays_as_it_was() -> None:
    first, second = "p1/bob/s1.1/memory", "p1/bob/s1.2/memory"
    empty = {second: "", f"{second}/2": "", f"{second}/3": ""}
    state, events, requests = drive(make_config(), scripted(empty))

    assert f"{second}/4" not in {r.address for r in requests}
    (missing,) = [e for e in of(events, AnswerMissing) if e.slot == second]
    assert (missing.kind, missing.attempts, missing.last_reason) == ("memory", 3, EMPTY_ANSWER)
    assert not [e for e in of(events, MemoryUpdated) if e.slot == second]
    # The memory stays the one written at 1.1 until the next update (the first round).
    kept = next(e for e in of(events, MemoryUpdated) if e.slot == first).memory
    round1 = next(r for r in requests if r.address == "p1/bob/r1/choice/1")
    assert f"Memory:\n{kept}\n" in round1.input
    assert second in state.agents["bob"].missing
    assert_clean(events)


def test_an_empty_shortened_memory_is_asked_again_then_the_long_one_is_cut() -> None:
    long = " ".join(["word"] * 80)  # over the 60-word limit
    slot = "p1/carol/s1.1/memory"
    shorten = f"{slot}/shorten"
    empty = {slot: long, shorten: "", f"{shorten}/2": "", f"{shorten}/3": ""}
    config = make_config(
        agents=[{"name": n, "memory_words": 60} for n in ("alice", "bob", "carol")]
    )
    _, events, requests = drive(config, scripted(empty))

    assert {f"{shorten}/2", f"{shorten}/3"} <= {r.address for r in requests}
    (missing,) = [e for e in of(events, AnswerMissing) if e.slot == shorten]
    assert missing.kind == "memory"
    (memory,) = [e for e in of(events, MemoryUpdated) if e.slot == slot]
    assert (memory.source, memory.words, memory.words_before_cut) == ("cut", 60, 80)
    assert memory.memory == " ".join(["word"] * 60)
    assert_clean(events)


def test_an_empty_statement_is_asked_again_then_recorded_missing_as_no_statement() -> None:
    address = "p2/r1/bob/statement"
    empty = {address: "", f"{address}/2": "", f"{address}/3": "   "}
    _, events, requests = drive(make_config(), scripted(empty))

    asked = [r for r in requests if r.address.startswith(address)]
    assert [r.purpose for r in asked] == [Purpose.STATEMENT] * 3
    assert EMPTY_ANSWER in asked[1].input and EMPTY_ANSWER in asked[2].input
    (missing,) = [e for e in of(events, AnswerMissing) if e.slot == address]
    assert missing.kind == "statement"
    (said,) = [e for e in of(events, StatementMade) if e.address == address]
    assert said.text == NO_STATEMENT and not said.proposes_vote
    # The others see that bob said nothing, never an empty line or invented words.
    later = [r for r in requests if r.agent != "bob" and r.address.startswith("p2/r1/")]
    shown = [r for r in later if "bob: (no statement)" in r.input]
    assert shown, "the group was not shown bob's missing statement"
    assert_clean(events)


def test_an_empty_reasoning_is_asked_again_then_recorded_missing() -> None:
    address = "p2/r1/alice/reasoning"
    empty = {address: "", f"{address}/2": "", f"{address}/3": ""}
    _, events, requests = drive(make_config(), scripted(empty))

    (missing,) = [e for e in of(events, AnswerMissing) if e.slot == address]
    assert missing.kind == "reasoning"
    (reasoned,) = [e for e in of(events, ReasoningRecorded) if e.round == 1 and e.agent == "alice"]
    assert reasoned.text == NO_REASONING
    statement = next(r for r in requests if r.address == "p2/r1/alice/statement")
    assert statement.context["reasoning"] is None
    assert NO_REASONING not in statement.input
    assert_clean(events)


def test_a_null_answer_counts_as_empty() -> None:
    # A reply whose content is null reaches the protocol as "" (runtime.recording).
    slot = "p2/r1/carol/memory"
    _, events, _ = drive(make_config(), scripted({slot: ""}))
    assert [e.attempt for e in of(events, AnswerRejected) if e.slot == slot] == [1]
    (memory,) = [e for e in of(events, MemoryUpdated) if e.slot == slot]
    assert memory.memory
    assert_clean(events)


def test_the_bound_is_the_configured_attempts() -> None:
    address = "p2/r1/bob/statement"
    config = make_config(attempts={"statement": 1})
    _, events, requests = drive(config, scripted({address: ""}))
    assert [r.address for r in requests if r.address.startswith(address)] == [address]
    (missing,) = [e for e in of(events, AnswerMissing) if e.slot == address]
    assert missing.attempts == 1
    assert_clean(events)


def test_runs_without_empty_answers_record_nothing_new() -> None:
    _, events, requests = drive(make_config(), talkative)
    assert not of(events, AnswerRejected) and not of(events, AnswerMissing)
    assert all(
        r.address.split("/")[-1] not in ("2", "3")
        for r in requests
        if r.purpose
        in (
            Purpose.MEMORY,
            Purpose.MEMORY_SHORTEN,
            Purpose.REASONING,
            Purpose.STATEMENT,
        )
    )


class Scripted:
    """The engine's executor, answering with a scripted responder."""

    def __init__(self, responder: Callable[[ModelRequest], str]) -> None:
        self.responder = responder

    async def execute(self, request: ModelRequest, on_attempt_failed: object) -> ModelAnswer:
        usage = Usage(input_tokens=10, output_tokens=5)
        return ModelAnswer(text=self.responder(request), usage=usage)


def test_through_the_engine_the_run_verifies(tmp_path: Path) -> None:
    """The same rule in a real run on a ledger: resumable, and `verify` reproduces every
    re-asked request and every missing record from the recorded answers."""
    empty = {
        "p1/alice/s1.2/memory": "",
        "p2/r1/bob/reasoning": "",
        "p2/r1/bob/reasoning/2": "",
        "p2/r1/bob/reasoning/3": "",
        "p2/r1/carol/statement": " ",
        "p2/r1/carol/statement/2": "",
        "p2/r1/carol/statement/3": "",
    }
    config = make_config()
    with EventStore.open(str(tmp_path / "ledger.db")) as store:
        run_id = start_run(store, config, run_id="empty-answers")
        engine = Engine(store, run_id, Scripted(scripted(empty)), signer=None)
        asyncio.run(engine.run())
        assert store.get_run(run_id).status == "completed"
        report = verify_events(store.read(run_id))
        assert report.ok, [d.describe() for d in report.divergences]
        history = history_from_stored(run_id, store.read(run_id))
    missing = {(e.kind, e.slot) for _, e in history.of(AnswerMissing)}
    assert missing == {("reasoning", "p2/r1/bob/reasoning"), ("statement", "p2/r1/carol/statement")}
    assert audit_protocol(history).violations == ()
