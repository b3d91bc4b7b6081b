"""Ledgers for the viewer's tests: the golden Frohlich run written to a SQLite store, with
texts a participant could write planted where the viewer shows them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from maai.domain.events import ModelCallCompleted, RunCompleted, RunForked, RunStarted
from maai.domain.frohlich.events import MemoryUpdated, StatementMade
from maai.ledger import EventStore, NewEvent
from tests.projections.frohlich.recording import golden_history

SCRIPT = "<script>window.__pwned = 1</script>"
IMG = '<img src=x onerror="window.__pwned = 2">'
JS_LINK = '[click me](javascript:window.__pwned=3) <a href="javascript:alert(1)">x</a>'
MARKDOWN = "# Heading\n**bold** ![img](http://evil.example/x.png)"
HOSTILE = f"{SCRIPT} {IMG} {JS_LINK} {MARKDOWN}"


def payload_of(event: Any) -> dict[str, Any]:
    data: dict[str, Any] = event.model_dump(mode="json")
    return data


def write_run(
    db: str | Path,
    run_id: str = "golden-run",
    *,
    hostile: bool = False,
    upto: int | None = None,
    labels: dict[str, Any] | None = None,
    prices: dict[str, Any] | None = None,
    provenance: dict[str, Any] | None = None,
) -> list[Any]:
    """The golden run (its first ``upto`` events) appended to the store at ``db``; with
    ``hostile``, every statement, answer and memory holds :data:`HOSTILE`. Returns the
    events written."""
    events = [entry.event for entry in golden_history().entries][:upto]
    if hostile:
        events = [_planted(event) for event in events]
    if labels or prices:
        started = events[0]
        assert isinstance(started, RunStarted)
        config = {
            **started.config,
            "labels": {**started.config.get("labels", {}), **(labels or {})},
        }
        if prices:
            config["prices"] = prices
        events[0] = started.model_copy(update={"config": config})
    if provenance is not None:
        events[0] = events[0].model_copy(update={"provenance": provenance})
    with EventStore.open(str(db), upgrade=True) as store:
        started = events[0]
        store.create_run(run_id, started.experiment, started.config)
        store.append(run_id, 0, [NewEvent(e.TYPE, payload_of(e), e.agent_name) for e in events])
        done = any(isinstance(e, RunCompleted) for e in events)
        store.set_status(run_id, "completed" if done else "running")
    return events


def append_more(db: str | Path, run_id: str, events: list[Any]) -> None:
    with EventStore.open(str(db)) as store:
        head = store.head(run_id)
        new = [NewEvent(e.TYPE, payload_of(e), e.agent_name) for e in events]
        store.append(run_id, head, new)


def _planted(event: Any) -> Any:
    if isinstance(event, StatementMade):
        return event.model_copy(update={"text": HOSTILE})
    if isinstance(event, MemoryUpdated):
        return event.model_copy(update={"memory": event.memory + "\n" + HOSTILE})
    if isinstance(event, ModelCallCompleted):
        answer = event.answer.model_copy(update={"text": HOSTILE + "\n" + event.answer.text})
        return event.model_copy(update={"answer": answer})
    return event


def write_fork(
    db: str | Path, parent: str, child: str, at: int, point: str = "round:2"
) -> list[Any]:
    """A fork ``child`` of the golden run ``parent`` (written by :func:`write_run`) after its
    event ``at``, as ``maai fork`` lays one out (docs/forks.md): the parent's events 1..at,
    ``run.forked``, then the golden run's later events with each statement changed (the
    intervention's effect). Returns the child's events."""
    with EventStore.open(str(db)) as store:
        stored = list(store.read(parent))
        info = store.get_run(parent)
    events = golden_history().entries
    started = events[0].event
    assert isinstance(started, RunStarted)
    forked = RunForked(
        parent_run=parent,
        parent_seq=at,
        parent_hash="0" * 64,
        point=point,
        changes={"agents.Alice.temperature": 0.9},
        draws="same",
        seed=started.seed,
        config=started.config,
    )
    later = [
        e.event.model_copy(update={"text": "The fork says otherwise."})
        if isinstance(e.event, StatementMade)
        else e.event
        for e in events[at:]
    ]
    with EventStore.open(str(db)) as store:
        store.create_run(child, info.kind, info.config)
        prefix = [NewEvent(s.type, s.payload, s.agent, s.schema_version) for s in stored[:at]]
        rest = [NewEvent(e.TYPE, payload_of(e), e.agent_name) for e in [forked, *later]]
        store.append(child, 0, prefix + rest)
        store.set_status(child, "completed")
    return [s for s in stored[:at]] + [forked, *later]
