"""The agent-centric log (seed 000 §3.5): run-level facts, then per agent its configuration
and every input and output in order, with what was derived from them.

The result is plain JSON data; :func:`projections.jsonout.dumps` turns it into the same bytes
for the same events. Raw provider responses and the structured request ``context`` are left
out: the texts the agent saw and wrote, and the parsed values, are what the log is for.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from maai.domain.address import CallAddress
from maai.domain.config import UTILITY
from maai.domain.events import Event, RunFailed
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerMissing,
    DistributionsDrawn,
    MemoryUpdated,
    PayoffAwarded,
    ReasoningRecorded,
    RoundUnpaid,
    StatementMade,
)
from maai.projections.calls import CallList
from maai.projections.frohlich.calls import Call, collect_calls, site_of
from maai.projections.frohlich.outcome import outcome_json, phase2_payment_json, usage_json
from maai.projections.history import Entry, History, UnknownAgentError, cite, event_json
from maai.projections.jsonout import scrub, section

FORMAT = "maai.agent_log/1"


def agent_log(history: History, agent: str | None = None) -> dict[str, Any]:
    names = history.agent_names
    if agent is not None and agent not in names:
        raise UnknownAgentError(agent, names)
    calls = collect_calls(history)
    chosen = names if agent is None else [agent]
    deferred = history.source is not None  # read from a store: each section built as written
    return {
        "format": FORMAT,
        "run": run_json(history, calls),
        "agents": {
            name: section(partial(agent_json, history, name, calls), deferred=deferred)
            for name in chosen
        },
    }


def run_json(history: History, calls: CallList) -> dict[str, Any]:
    started = history.started
    entries = history.entries
    failures = history.of(RunFailed)
    failure = None
    if history.status == "failed" and failures:
        failure = event_json(failures[-1][0])
    return {
        "run_id": history.run_id,
        "status": history.status,
        "experiment": started.experiment if started else None,
        "seed": started.seed if started else None,
        "code_version": started.code_version if started else None,
        "trace_id": started.trace_id if started else None,
        "config": scrub(started.config) if started else None,
        "agents": history.agent_names,
        "events": {
            "count": len(entries),
            "first_recorded_at": entries[0].recorded_at if entries else None,
            "last": (
                {
                    **cite(entries[-1]),
                    "type": entries[-1].event.TYPE,
                    "recorded_at": entries[-1].recorded_at,
                }
                if entries
                else None
            ),
        },
        "outcome": outcome_json(history),
        "phase2_payment": phase2_payment_json(history),
        "model_usage": usage_json(calls),
        "failure": failure,
    }


def agent_json(history: History, name: str, calls: CallList) -> dict[str, Any]:
    def mine(*types: type[Event]) -> list[Entry]:
        return [e for e, _ in history.of_agent(name, *types)]

    answers = mine(AnswerAccepted, AnswerMissing)

    def answered(kind: str) -> list[dict[str, Any]]:
        return [_answer_json(e) for e in answers if getattr(e.event, "kind", None) == kind]

    def recorded(cls: type[Event]) -> list[dict[str, Any]]:
        return [event_json(e, drop=("agent",)) for e in mine(cls)]

    return {
        "name": name,
        "config": _agent_config(history, name),
        "calls": _calls_json(history, calls, name),
        "memory": _memory_json(mine(MemoryUpdated)),
        "bank_balance": [_balance_json(e) for e in mine(PayoffAwarded)],
        "rankings": answered("ranking"),
        "choices": answered("choice"),
        "phase1_tables": [event_json(e, drop=("agent", "scope")) for e in mine(DistributionsDrawn)],
        "payoffs": recorded(PayoffAwarded),
        "unpaid_rounds": recorded(RoundUnpaid),
        "missing": recorded(AnswerMissing),
        "reasoning": recorded(ReasoningRecorded),
        "statements": recorded(StatementMade),
        "poll_answers": answered("poll"),
        "ballots": answered("ballot"),
    }


def _balance_json(entry: Entry) -> dict[str, Any]:
    paid = entry.event
    assert isinstance(paid, PayoffAwarded)
    return {
        **cite(entry),
        "scope": paid.scope,
        "round": paid.round,
        "payoff_cents": paid.payoff_cents,
        "balance_cents": paid.balance_cents,
    }


def _agent_config(history: History, name: str) -> dict[str, Any] | None:
    started = history.started
    agents = started.config.get("agents", []) if started else []
    for item in agents if isinstance(agents, list) else []:
        if isinstance(item, dict) and item.get("name") == name:
            return scrub(item)  # type: ignore[no-any-return]
    return None


def _answer_json(entry: Entry) -> dict[str, Any]:
    """One resolved answer slot: the accepted value (with how it was read) or missing."""
    event = entry.event
    site = site_of(f"{getattr(event, 'slot', '')}/1")
    base = {**cite(entry), "step": site.step, "round": site.round, "turn": site.turn}
    if isinstance(event, AnswerAccepted):
        return {
            **base,
            "status": "accepted",
            "slot": event.slot,
            "value": event.value,
            "source": event.source,
            "via": event.via,
            "attempt": event.attempt,
            "address": event.address,
        }
    assert isinstance(event, AnswerMissing)
    return {
        **base,
        "status": "missing",
        "slot": event.slot,
        "value": None,
        "attempts": event.attempts,
        "last_reason": event.last_reason,
    }


def _memory_json(entries: list[Entry]) -> list[dict[str, Any]]:
    out = []
    before = ""
    for entry in entries:
        event = entry.event
        assert isinstance(event, MemoryUpdated)
        out.append(
            {
                **cite(entry),
                "slot": event.slot,
                "step": event.step,
                "source": event.source,
                "words": event.words,
                "words_before_cut": event.words_before_cut,
                "before": before,
                "after": event.memory,
            }
        )
        before = event.memory
    return out


def _calls_json(history: History, calls: CallList, name: str) -> list[dict[str, Any]]:
    # ``caller`` is ``request.agent``, known without reading the request: only the calls
    # shown are read.
    extractions: dict[str, list[Call]] = {}
    for call in calls:
        if call.caller != UTILITY:
            continue
        address = CallAddress.parse(call.address)
        if address.is_extraction:
            extractions.setdefault(address.participant, []).append(call)
    return [
        call_json(history, call, extractions.get(call.address, []))
        for call in calls
        if call.caller == name
    ]


def call_json(history: History, call: Call, extractions: list[Call]) -> dict[str, Any]:
    request = call.request
    # The texts, or handles that read them when the log is written (a long run's prompts
    # are not held: projections/history.py).
    system, input_ = history.prompt(call.requests[-1][0])
    site = site_of(call.address)
    first_entry = call.requests[0][0]
    answer = None
    if call.completed is not None:
        entry, done = call.completed
        answer = {
            **cite(entry),
            "completed_at": entry.recorded_at,
            "model": done.model,
            "text": done.answer.text,
            "input_tokens": done.answer.usage.input_tokens,
            "output_tokens": done.answer.usage.output_tokens,
            "latency_ms": done.answer.latency_ms,
            "attempts": done.answer.attempts,
        }
    return {
        **cite(first_entry),
        "requested_at": first_entry.recorded_at,
        "times_requested": len(call.requests),
        "address": call.address,
        "agent": request.agent,
        "purpose": request.purpose,
        "phase": site.phase,
        "step": site.step,
        "round": site.round,
        "turn": site.turn,
        "model": request.model,
        "temperature": request.temperature,
        "request_hash": call.requests[-1][1].request_hash,
        "system": system,
        "input": input_,
        "answer": answer,
        "failed_attempts": [event_json(e, drop=("agent", "address")) for e, _ in call.failures],
        "results": [event_json(e, drop=("agent", "raw_text")) for e in call.results],
        "extractions": [call_json(history, x, []) for x in extractions],
    }
