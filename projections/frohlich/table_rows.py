"""The rows of each CSV table (``projections.tables`` declares their columns)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerMissing,
    BallotResolved,
    DiscussionEnded,
    DistributionsDrawn,
    ManipulatorTargetChosen,
    MemoryUpdated,
    PayoffAwarded,
    PollResolved,
    RoundUnpaid,
    StatementMade,
)
from maai.projections.calls import call_rows
from maai.projections.frohlich.calls import collect_calls, site_of
from maai.projections.history import Entry, History, cite

Row = dict[str, Any]


def _resolved(
    history: History, kind: str
) -> Iterator[tuple[Entry, AnswerAccepted | AnswerMissing]]:
    """The event that settled each answer slot of ``kind``: accepted, or missing."""
    for entry, event in history.each(AnswerAccepted, AnswerMissing):
        if event.kind == kind:
            yield entry, event


def _answer(entry: Entry, event: AnswerAccepted | AnswerMissing) -> Row:
    if isinstance(event, AnswerMissing):
        return {"agent": event.agent, "status": "missing", **cite(entry)}
    return {
        "agent": event.agent,
        "status": "accepted",
        "source": event.source,
        "attempt": event.attempt,
        **cite(entry),
    }


def _choice(value: Any) -> Row:
    if not isinstance(value, dict):
        return {}
    return {"principle": value.get("principle"), "amount": value.get("amount")}


def _slot_site(event: AnswerAccepted | AnswerMissing) -> Any:
    return site_of(f"{event.slot}/1")


def rankings(history: History) -> Iterator[Row]:
    for entry, event in _resolved(history, "ranking"):
        row = {**_answer(entry, event), "step": _slot_site(event).step}
        if isinstance(event, AnswerAccepted) and isinstance(event.value, dict):
            order = list(event.value.get("order", []))
            for i in range(4):
                row[f"rank_{i + 1}"] = order[i] if i < len(order) else None
            row["certainty"] = event.value.get("certainty")
        yield row


def _draws(history: History) -> dict[tuple[str | None, int | None], DistributionsDrawn]:
    return {(d.agent, d.round): d for _, d in history.each(DistributionsDrawn)}


def choices(history: History) -> Iterator[Row]:
    draws = _draws(history)
    for entry, event in _resolved(history, "choice"):
        rnd = _slot_site(event).round
        row = {**_answer(entry, event), "round": rnd}
        drawn = draws.get((event.agent, rnd))
        row["multiplier"] = drawn.multiplier if drawn else None
        row["situation"] = drawn.situation if drawn else None
        if isinstance(event, AnswerAccepted):
            row.update(_choice(event.value))
        yield row


def payoffs(history: History) -> Iterator[Row]:
    draws = _draws(history)
    for entry, event in history.each(PayoffAwarded, RoundUnpaid):
        if isinstance(event, RoundUnpaid):
            drawn = draws.get((event.agent, event.round))
            yield {
                "agent": event.agent,
                "scope": "phase1",
                "round": event.round,
                "status": "unpaid",
                "reason": event.reason,
                "multiplier": drawn.multiplier if drawn else None,
                "situation": drawn.situation if drawn else None,
                **cite(entry),
            }
            continue
        key = (event.agent, event.round) if event.scope == "phase1" else (None, None)
        drawn = draws.get(key)
        yield {
            "agent": event.agent,
            "scope": event.scope,
            "round": event.round,
            "status": "paid",
            **(_choice(event.choice.model_dump(mode="json")) if event.choice else {}),
            "distribution": event.distribution,
            "constraint_satisfied": event.constraint_satisfied,
            "income_class": event.income_class.value,
            "income": event.income,
            "payoff_cents": event.payoff_cents,
            "balance_cents": event.balance_cents,
            "multiplier": drawn.multiplier if drawn else None,
            "situation": drawn.situation if drawn else None,
            **cite(entry),
        }


def conditions(history: History) -> Iterator[Row]:
    """One row per run: the conditions it ran under, the manipulator's target and whether
    the group adopted it."""
    config = history.config
    if config is None:
        return
    row: Row = {
        "language": config.language,
        "original_values": config.original_values,
        "manipulator": config.manipulator.agent if config.manipulator else None,
        "history_window_rounds": config.history.window_rounds,
    }
    chosen = history.of(ManipulatorTargetChosen)
    ended = history.of(DiscussionEnded)
    agreement = ended[-1][1].agreement if ended else None
    row["agreement"] = agreement.principle.value if agreement else None
    if chosen:
        entry, event = chosen[-1]
        row["target"] = event.target.value
        for principle, points in event.scores.items():
            row[f"borda_{principle.value}"] = points
        if ended:
            row["target_adopted"] = agreement is not None and agreement.principle is event.target
        row.update(cite(entry))
    yield row


def counterfactuals(history: History) -> Iterator[Row]:
    for entry, event in history.each(PayoffAwarded):
        for row in event.counterfactuals:
            yield {
                "agent": event.agent,
                "scope": event.scope,
                "round": event.round,
                "distribution": row.distribution,
                "chosen": row.distribution == event.distribution,
                "income": row.income,
                "payoff_cents": row.payoff_cents,
                "picked_by": "; ".join(row.picked_by),
                "seq": entry.seq,
            }


def statements(history: History) -> Iterator[Row]:
    for entry, event in history.each(StatementMade):
        yield {
            "round": event.round,
            "turn": event.turn,
            "agent": event.agent,
            "proposes_vote": event.proposes_vote,
            "words": len(event.text.split()),
            "text": event.text,
            **cite(entry),
        }


def polls(history: History) -> Iterator[Row]:
    results = {(p.round, p.turn): p for _, p in history.each(PollResolved)}
    proposers = {(s.round, s.turn): s.agent for _, s in history.each(StatementMade)}
    for entry, event in _resolved(history, "poll"):
        site = _slot_site(event)
        result = results.get((site.round, site.turn))
        answer = event.value if isinstance(event, AnswerAccepted) else None
        yield {
            "round": site.round,
            "turn": site.turn,
            "proposer": proposers.get((site.round, site.turn)),
            **_answer(entry, event),
            "answer": None if answer is None else ("yes" if answer else "no"),
            "passed": result.passed if result else None,
        }


def ballots(history: History) -> Iterator[Row]:
    results = {(b.round, b.turn): b for _, b in history.each(BallotResolved)}
    for entry, event in _resolved(history, "ballot"):
        site = _slot_site(event)
        result = results.get((site.round, site.turn))
        row = {
            "round": site.round,
            "turn": site.turn,
            **_answer(entry, event),
            "consensus": result.consensus if result else None,
        }
        if isinstance(event, AnswerAccepted):
            row.update(_choice(event.value))
            row["raw_text"] = event.raw_text
        yield row


def memory(history: History) -> Iterator[Row]:
    for entry, event in history.each(MemoryUpdated):
        yield {
            "agent": event.agent,
            "slot": event.slot,
            "step": event.step,
            "source": event.source,
            "words": event.words,
            "words_before_cut": event.words_before_cut,
            "memory": event.memory,
            **cite(entry),
        }


def model_calls(history: History) -> Iterator[Row]:
    def where(address: str) -> Row:
        site = site_of(address)
        return {"phase": site.phase, "step": site.step, "round": site.round, "turn": site.turn}

    return call_rows(collect_calls(history), where)
