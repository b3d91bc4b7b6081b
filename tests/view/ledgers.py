"""Ledgers for the viewer's tests: the golden Frohlich run written to a SQLite store, with
texts a participant could write planted where the viewer shows them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from maai.domain.events import ModelCallCompleted, RunCompleted, RunStarted
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
