"""The agent-centric log of a collaboration run: run-level facts, then per agent its
configuration, every prompt it saw and answer it gave (with seq/hash citations), its beliefs,
predictions and reasoning, the messages it sent, its decision and its points.

Plain JSON data: :func:`projections.jsonout.dumps` gives the same bytes for the same events.
Raw provider responses and the request ``context`` (facts for the simulated participant)
are left out: the texts the agent saw and wrote are the record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from maai.domain.address import CallAddress
from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.config import UTILITY
from maai.domain.events import RunFailed
from maai.projections.collaboration import facts
from maai.projections.collaboration.calls import Call, collect_calls, site_of
from maai.projections.history import Entry, History, UnknownAgentError, cite, event_json
from maai.projections.jsonout import scrub

FORMAT = "maai.collaboration_agent_log/1"


def agent_log(history: History, agent: str | None = None) -> dict[str, Any]:
    names = history.agent_names
    if agent is not None and agent not in names:
        raise UnknownAgentError(agent, names)
    calls = collect_calls(history)
    chosen = names if agent is None else [agent]
    return {
        "format": FORMAT,
        "run": run_json(history, calls),
        "agents": {name: agent_json(history, name, calls) for name in chosen},
    }


def run_json(history: History, calls: Sequence[Call]) -> dict[str, Any]:
    started = history.started
    entries = history.entries
    failures = history.of(RunFailed)
    last = entries[-1] if entries else None
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
                {**cite(last), "type": last.event.TYPE, "recorded_at": last.recorded_at}
                if last
                else None
            ),
        },
        "conversation": [event_json(e) for e, _ in facts.messages(history)],
        "outcome": outcome_json(history),
        "model_usage": usage_json(calls),
        "failure": (
            event_json(failures[-1][0]) if history.status == "failed" and failures else None
        ),
    }


def outcome_json(history: History) -> dict[str, Any] | None:
    ended = facts.ended(history)
    awarded = facts.points(history)
    drawn = facts.partner_drawn(history)
    if ended is None and awarded is None and drawn is None:
        return None
    return {
        "ended": event_json(ended[0]) if ended else None,
        "points": event_json(awarded[0]) if awarded else None,
        "joint_points": facts.joint_points(history),
        "lottery_partner": event_json(drawn[0]) if drawn else None,
    }


def usage_json(calls: Sequence[Call]) -> dict[str, Any]:
    def totals(group: Sequence[Call]) -> dict[str, int]:
        done = [c.completed[1].answer for c in group if c.completed is not None]
        return {
            "calls": len(group),
            "completed": len(done),
            "pending": len(group) - len(done),
            "input_tokens": sum(a.usage.input_tokens for a in done),
            "output_tokens": sum(a.usage.output_tokens for a in done),
            "failed_attempts": sum(len(c.failures) for c in group),
        }

    callers = sorted({c.request.agent for c in calls})
    return {
        "total": totals(calls),
        "by_caller": {who: totals([c for c in calls if c.request.agent == who]) for who in callers},
    }


def agent_json(history: History, name: str, calls: Sequence[Call]) -> dict[str, Any]:
    config = facts.config_of(history)
    decision = facts.decisions(history).get(name)
    awarded = facts.points(history)
    return {
        "name": name,
        "partner": config.partner_of(name) if config else None,
        "config": _agent_config(history, name),
        "options": _options_json(config, name) if config else [],
        "calls": _calls_json(history, calls, name),
        "beliefs": [_belief_json(s) for s in facts.beliefs(history) if s.event.agent == name],
        "messages_sent": [
            event_json(e, drop=("agent",)) for e, m in facts.messages(history) if m.agent == name
        ],
        "decision": _decision_json(history, config, name, decision),
        "points": awarded[1].points.get(name) if awarded else None,
        "missing": [event_json(e, drop=("agent",)) for e, _ in facts.missing(history, name)],
    }


def _agent_config(history: History, name: str) -> dict[str, Any] | None:
    started = history.started
    agents = started.config.get("agents", []) if started else []
    for item in agents if isinstance(agents, list) else []:
        if isinstance(item, dict) and item.get("name") == name:
            return scrub(item)  # type: ignore[no-any-return]
    return None


def _options_json(config: CollaborationConfig, name: str) -> list[dict[str, Any]]:
    return [
        {
            "name": o.name,
            "kind": o.kind,
            "upside": o.upside,
            "downside": o.downside,
            "points": o.points,
            "u_star": facts.option_u_star(config, name, o),
        }
        for o in config.options_of(name)
    ]


def _belief_json(stated: facts.Stated) -> dict[str, Any]:
    event = stated.event
    answer = stated.answer
    return {
        **cite(stated.entry),
        "step": event.step,
        "kind": stated.kind,
        "belief": event.belief,
        "prediction": event.prediction,
        "partner_belief": stated.partner_belief,
        "prediction_error": stated.prediction_error,
        "reasoning": event.reasoning,
        "answer": _answer_ref(answer),
    }


def _answer_ref(answer: tuple[Entry, Any] | None) -> dict[str, Any] | None:
    if answer is None:
        return None
    entry, accepted = answer
    return {
        **cite(entry),
        "address": accepted.address,
        "source": accepted.source,
        "via": accepted.via,
        "attempt": accepted.attempt,
    }


def _decision_json(
    history: History, config: CollaborationConfig | None, name: str, found: Any
) -> dict[str, Any] | None:
    if found is None:
        return None
    entry, event = found
    option = facts.option_of(config, name, event.option) if config else None
    return {
        **cite(entry),
        "option": event.option,
        "strategy": event.strategy,
        "reasoning": event.reasoning,
        "u_value": config.agent(name).u_value if config else None,
        "u_star": facts.option_u_star(config, name, option) if config and option else None,
        "answer": _answer_ref(facts.decision_answer(history, name)),
    }


def _calls_json(history: History, calls: Sequence[Call], name: str) -> list[dict[str, Any]]:
    extractions: dict[str, list[Call]] = {}
    for call in calls:
        if call.request.agent == UTILITY and call.is_extraction:
            base = CallAddress.parse(call.address).participant
            extractions.setdefault(base, []).append(call)
    return [
        call_json(history, call, extractions.get(call.address, []))
        for call in calls
        if call.request.agent == name
    ]


def call_json(history: History, call: Call, extractions: list[Call]) -> dict[str, Any]:
    request = call.request
    system, input_ = history.prompt(call.requests[-1][0])  # or handles (history.py)
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
        "step": site_of(call.address).step,
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
