"""The parts of a run's page that every experiment has, read from its history: the
timeline of events, each agent's private trail, the calls with their readings, memory
versions with diffs, and the audits' findings linked to the events they name.

The experiment's own sections (discussion, ballots, payoffs, plots) come through its views'
``report`` (``projections.report.experiment_sections``), the ones ``maai report`` writes:
this module knows no experiment.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from maai.domain.events import (
    ModelCallCompleted,
    ModelCallRequested,
    RunStarted,
)
from maai.ledger import StoredEvent
from maai.projections.calls import collect_calls
from maai.projections.history import PROMPT_NOT_HELD, Entry, History

PREVIEW_CHARS = 600
"""The characters of an event's text shown in the timeline; the whole text is one click away
(the event's JSON)."""

_SKIP_FIELDS = {"request", "config", "provenance"}


@dataclass(frozen=True)
class EventLine:
    """One event of the timeline."""

    seq: int
    type: str
    agent: str
    address: str
    recorded_at: str
    texts: list[tuple[str, str]]  # field name, text (cut to PREVIEW_CHARS)
    facts: list[tuple[str, str]]  # other scalar fields


@dataclass
class CallView:
    address: str
    agent: str
    for_agent: str
    seq: int
    request_seqs: list[int]
    other_seqs: list[int] = field(default_factory=list)  # its answer and failures
    model: str = ""
    answer: str | None = None
    failures: list[str] = field(default_factory=list)
    readings: list[EventLine] = field(default_factory=list)
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True)
class MemoryVersion:
    seq: int
    agent: str
    text: str
    diff: list[tuple[str, str]]  # (css class, line) against the previous version


@dataclass(frozen=True)
class Finding:
    audit: str
    rule: str
    detail: str
    seqs: list[int]


def event_line(seq: int, type_: str, payload: dict[str, Any], recorded_at: str) -> EventLine:
    """A timeline line from an event's stored payload (any experiment's)."""
    texts: list[tuple[str, str]] = []
    facts: list[tuple[str, str]] = []
    agent = payload.get("agent")
    if type_ == ModelCallRequested.TYPE:
        request = payload.get("request") or {}
        agent = request.get("agent")
        address = str(request.get("address") or "")
    elif type_ == ModelCallCompleted.TYPE:
        answer = payload.get("answer") or {}
        address = str(payload.get("address") or "")
        texts.append(("answer", _cut(str(answer.get("text") or ""))))
    else:
        address = str(payload.get("address") or "")
    for name, value in payload.items():
        if name in _SKIP_FIELDS or name in ("agent", "address", "answer"):
            continue
        if isinstance(value, str) and (" " in value.strip() or "\n" in value or name == "text"):
            texts.append((name, _cut(value)))
        elif isinstance(value, str | int | float | bool) or value is None:
            facts.append((name, json.dumps(value, ensure_ascii=False)))
        else:
            facts.append((name, _cut(json.dumps(value, ensure_ascii=False, sort_keys=True), 200)))
    return EventLine(seq, type_, str(agent or ""), address, recorded_at, texts, facts[:12])


def _cut(text: str, limit: int = PREVIEW_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def timeline(history: History) -> list[EventLine]:
    return [line_of(entry) for entry in history.entries]


def lines_of(stored: Iterable[StoredEvent]) -> list[EventLine]:
    """Timeline lines straight from stored events (the live page's new events)."""
    return [event_line(s.seq, s.type, s.payload, s.recorded_at.isoformat()) for s in stored]


def line_of(entry: Entry) -> EventLine:
    event = entry.event
    payload = event.model_dump(mode="json")
    if isinstance(event, RunStarted):
        payload = {"experiment": event.experiment, "seed": event.seed}
    return event_line(entry.seq, event.TYPE, payload, entry.recorded_at)


CALL_EVENTS = frozenset({ModelCallRequested.TYPE, ModelCallCompleted.TYPE, "model.attempt_failed"})


def public_lines(lines: list[EventLine]) -> list[EventLine]:
    """The timeline without the calls' own events (shown under each call)."""
    return [line for line in lines if line.type not in CALL_EVENTS]


def trails(lines: list[EventLine], agents: Iterable[str]) -> dict[str, list[EventLine]]:
    """Each agent's events: what it was asked, answered, thought and kept in memory."""
    out: dict[str, list[EventLine]] = {name: [] for name in agents}
    for line in lines:
        if line.agent in out:
            out[line.agent].append(line)
    return out


def calls(history: History) -> list[CallView]:
    views: list[CallView] = []
    for call in collect_calls(history):
        view = CallView(
            address=call.address,
            agent=call.caller,
            for_agent=call.for_agent,
            seq=call.seq,
            request_seqs=[entry.seq for entry, _ in call.requests],
        )
        view.other_seqs = [entry.seq for entry, _ in call.failures]
        if call.completed is not None:
            done, completed = call.completed
            view.other_seqs.append(done.seq)
            view.model = completed.model
            view.answer = completed.answer.text
            view.input_tokens = completed.answer.usage.input_tokens
            view.output_tokens = completed.answer.usage.output_tokens
        view.failures = [
            f"attempt {f.attempt}: {f.error_kind}: {f.message}" for _, f in call.failures
        ]
        view.readings = [line_of(entry) for entry in call.results]
        views.append(view)
    return views


def prompt(history: History, seq: int) -> tuple[str, str] | None:
    """``system`` and ``input`` of the request recorded at ``seq``, or ``None``."""
    for entry in history.entries:
        if entry.seq == seq and isinstance(entry.event, ModelCallRequested):
            system, input_ = history.prompt(entry)
            return str(system), str(input_)
    return None


def memory_versions(history: History) -> dict[str, list[MemoryVersion]]:
    """Every event that records an agent's memory (a text field named ``memory``), per
    agent, each with its diff against the agent's previous version."""
    out: dict[str, list[MemoryVersion]] = {}
    for entry in history.entries:
        memory = getattr(entry.event, "memory", None)
        agent = entry.event.agent_name
        if not isinstance(memory, str) or memory == PROMPT_NOT_HELD or agent is None:
            continue
        versions = out.setdefault(agent, [])
        before = versions[-1].text if versions else ""
        versions.append(MemoryVersion(entry.seq, agent, memory, _diff(before, memory)))
    return out


def _diff(before: str, after: str) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=1):
        if line.startswith(("---", "+++")):
            continue
        css = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "same")
        lines.append((css, line))
    return lines


def findings(history: History) -> tuple[list[Finding], list[str]]:
    """The audits' findings, each with the seqs of the events it names; and the audits
    that could not run (named, with why), so a page never hides that."""
    if history.experiment is None:
        return [], ["the run's experiment is unknown: no audit"]
    views = history.experiment.views()
    found: list[Finding] = []
    failed: list[str] = []
    audits = (
        ("protocol", views.audit_protocol),
        ("leaks", views.audit_leaks),
        ("votes", views.audit_votes),
    )
    for name, audit in audits:
        try:
            result = audit(history)
        except Exception as exc:  # an audit that breaks on this run is shown, not fatal
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        if result is None:
            continue
        data = result.to_json() if hasattr(result, "to_json") else result
        found += [Finding(name, *item) for item in _items(data)]
    return found, failed


def _items(data: Any) -> Iterator[tuple[str, str, list[int]]]:
    """(rule, detail, seqs) of each violation, leak or vote finding in an audit's JSON."""
    if not isinstance(data, dict):
        return
    for key in ("violations", "leaks", "findings", "problems"):
        for item in data.get(key) or []:
            if isinstance(item, dict):
                seqs = sorted(
                    {v for k, v in item.items() if k.endswith("seq") and isinstance(v, int)}
                )
                rule = str(item.get("rule") or item.get("kind") or key)
                detail = str(item.get("detail") or item.get("message") or _brief(item))
                yield rule, detail, seqs
            else:
                yield key, str(item), []


def _brief(item: dict[str, Any]) -> str:
    return json.dumps(item, ensure_ascii=False, sort_keys=True)[:400]
