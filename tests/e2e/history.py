"""Reading a run's ledger the way the end-to-end tests compare runs.

Two runs of the same config with the deterministic simulated participant must end with the
same *domain events*: the events decoded from the ledger without their envelope (position,
seq, time, hashes), without per-attempt telemetry (``model.requested``,
``model.attempt_failed``), with the latency dropped from each recorded answer and the trace
id dropped from ``run.started``, and without the ``run.signed`` events that name the run's
checkpoints (where they fall depends on where a run stopped and was resumed) nor the
``run.claimed`` events of study workers (one per take). Phase-1 agents
run side by side, so the global order may differ; what must be equal is the set of
(key -> event) and each thread's own sequence of keys, a thread being one participant (the
utility agent's calls count for the participant whose answer they read) or the group.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from maai.domain import experiments
from maai.domain.events import (
    Event,
    ModelAttemptFailed,
    ModelCallCompleted,
    ModelCallRequested,
    RunClaimed,
    RunFailed,
    RunSigned,
    RunStarted,
)
from maai.domain.registry import EventRegistry
from maai.ledger import EventStore, RunInfo, StoredEvent

TELEMETRY = (ModelCallRequested, ModelAttemptFailed)
GROUP = "(group)"


@cache
def _every_event_type() -> EventRegistry:
    # The e2e helpers serve every experiment: read any experiment's events.
    return EventRegistry(e for name in experiments.names() for e in experiments.get(name).events)


def decode(stored: StoredEvent) -> Event:
    return _every_event_type().decode(stored.type, stored.schema_version, stored.payload)


def canonical(event: Event) -> dict[str, Any]:
    data = event.model_dump(mode="json")
    if isinstance(event, ModelCallCompleted):
        data["answer"].pop("latency_ms", None)
    if isinstance(event, RunStarted):
        data.pop("trace_id", None)
        data.pop("provenance", None)  # the same code, but a checkout may turn dirty meanwhile
    return {"type": event.TYPE, **data}


def thread_of(event: Event, agents: Collection[str]) -> str:
    agent = event.agent_name
    if agent is None:
        return GROUP
    if agent in agents:
        return agent
    address = getattr(event, "address", None)  # the utility agent: whose answer it read
    if isinstance(address, str):
        for part in address.split("/"):
            if part in agents:
                return part
    return agent


@dataclass
class DomainHistory:
    events: dict[str, dict[str, Any]] = field(default_factory=dict)
    threads: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    duplicates: list[str] = field(default_factory=list)
    failures: int = 0  # run.failed events (kept out of ``events``: a resumed run has them)


def domain_history(
    stored: Iterable[StoredEvent], agents: Collection[str], *, keep_failures: bool = False
) -> DomainHistory:
    history = DomainHistory()
    for record in stored:
        event = decode(record)
        # RunSigned: evidence about the ledger; RunClaimed: which worker took the run.
        if isinstance(event, (*TELEMETRY, RunSigned, RunClaimed)):
            continue
        if isinstance(event, RunFailed) and not keep_failures:
            history.failures += 1
            continue
        key = event.key
        if key in history.events:
            history.duplicates.append(key)
            continue
        history.events[key] = canonical(event)
        history.threads[thread_of(event, agents)].append(key)
    return history


def differences(actual: DomainHistory, expected: DomainHistory, limit: int = 8) -> list[str]:
    """Human-readable differences (empty when the histories are the same)."""
    out: list[str] = []
    if actual.duplicates:
        out.append(f"slots recorded twice: {actual.duplicates[:limit]}")
    missing = [k for k in expected.events if k not in actual.events]
    extra = [k for k in actual.events if k not in expected.events]
    if missing:
        out.append(f"{len(missing)} events missing, e.g. {missing[:limit]}")
    if extra:
        out.append(f"{len(extra)} unexpected events, e.g. {extra[:limit]}")
    changed = [
        k for k in expected.events if k in actual.events and actual.events[k] != expected.events[k]
    ]
    for key in changed[:limit]:
        a, e = actual.events[key], expected.events[key]
        fields = sorted(f for f in set(a) | set(e) if a.get(f) != e.get(f))
        out.append(f"event {key} differs in {fields}")
    if len(changed) > limit:
        out.append(f"... {len(changed) - limit} more events differ")
    for thread in sorted(set(expected.threads) | set(actual.threads)):
        a_keys, e_keys = actual.threads.get(thread, []), expected.threads.get(thread, [])
        if a_keys != e_keys:
            at = next(
                (i for i, (x, y) in enumerate(zip(a_keys, e_keys, strict=False)) if x != y),
                min(len(a_keys), len(e_keys)),
            )
            out.append(
                f"thread {thread}: order differs at #{at}: "
                f"{a_keys[at : at + 3]} instead of {e_keys[at : at + 3]}"
            )
    return out


def only_run(store: EventStore) -> RunInfo | None:
    runs = store.list_runs()
    assert len(runs) <= 1, f"expected at most one run in {store.display}, found {len(runs)}"
    return runs[0] if runs else None


def wait_for(
    condition: Callable[[], bool],
    *,
    timeout: float,
    interval: float = 0.002,
    what: str = "condition",
    abort: Callable[[], str | None] | None = None,
) -> None:
    """Poll ``condition`` until true; ``abort`` may return a reason to give up early."""
    deadline = time.monotonic() + timeout
    while not condition():
        if abort is not None and (reason := abort()) is not None:
            raise AssertionError(f"gave up waiting for {what}: {reason}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(interval)


def seqs_gapless(store: EventStore, run_id: str) -> tuple[bool, int]:
    seqs = [e.seq for e in store.read(run_id)]
    return seqs == list(range(1, len(seqs) + 1)), len(seqs)
