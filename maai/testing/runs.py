"""Recording an experiment's runs with its simulated participants, in process, and reading
them back as the contract tests compare them (``maai.testing.contract``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maai.domain import experiments
from maai.domain.config import ExperimentConfig
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
from maai.domain.experiment import Experiment
from maai.ledger import EventStore
from maai.runtime import config_files
from maai.runtime.checkpoints import sign_head
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import config_snapshot, load_config, start_run
from maai.runtime.signing import load_signer
from maai.runtime.writer import to_new_event

RUN_ID = "contract"

TELEMETRY = (ModelCallRequested, ModelAttemptFailed, RunSigned, RunClaimed)
"""Per-attempt records, which a run cut and resumed holds again for the calls it redoes, the
signatures of the chain, which sign hashes that differ from ledger to ledger, and the study
workers' claims, one per take."""


@dataclass(frozen=True)
class Recorded:
    """A run recorded to its end in the ledger at ``db``."""

    experiment: Experiment
    config: ExperimentConfig
    db: str
    run_id: str
    state: Any
    """The state the engine ended with."""

    def events(self) -> list[Event]:
        with EventStore.open(self.db) as store:
            return [decode(self.experiment, stored) for stored in store.read(self.run_id)]


def decode(experiment: Experiment, stored: Any) -> Event:
    return experiment.registry.decode(stored.type, stored.schema_version, stored.payload)


def example_config(name: str) -> ExperimentConfig:
    """The config ``maai run NAME`` runs: the experiment's default example."""
    return load_config(config_files.resolve(name))


def record(
    name: str, folder: Path, *, config: ExperimentConfig | None = None, file: str = "ledger.db"
) -> Recorded:
    """Run experiment ``name``'s example config (or ``config``) to its end with the simulated
    participants, in a fresh SQLite ledger in ``folder``."""
    experiment = experiments.get(name)
    config = config or example_config(name)
    db = str(folder / file)
    with EventStore.open(db) as store:
        run_id = start_run(store, config, run_id=RUN_ID)
        state = asyncio.run(Engine(store, run_id, LiveExecutor(config, env={})).run())
    return Recorded(experiment, config, db, run_id, state)


def resume_from(recorded: Recorded, upto: int, folder: Path) -> Recorded:
    """A new ledger in ``folder`` holding ``recorded``'s first ``upto`` events, as a run
    stopped right after writing them leaves it (its head signed, its status
    ``interrupted``), then resumed to its end."""
    # The signatures are left out: they sign the original ledger's hashes, not the copy's.
    events = [e for e in recorded.events()[:upto] if not isinstance(e, RunSigned)]
    assert events and isinstance(events[0], RunStarted)
    db = str(folder / f"cut-{upto}.db")
    config, run_id = recorded.config, recorded.run_id
    with EventStore.open(db) as store:
        store.create_run(run_id, config.experiment, config_snapshot(config))
        store.append(run_id, 0, [to_new_event(event) for event in events])
        sign_head(store, run_id, load_signer())
        store.set_status(run_id, "interrupted")
        state = asyncio.run(Engine(store, run_id, LiveExecutor(config, env={})).run())
    return Recorded(recorded.experiment, config, db, run_id, state)


def canonical(event: Event) -> dict[str, Any]:
    """An event as two runs of one config must agree on it: without the answer's measured
    latency, and without the start's trace id and provenance (host, code state)."""
    data = event.model_dump(mode="json")
    if isinstance(event, ModelCallCompleted):
        data["answer"].pop("latency_ms", None)
    if isinstance(event, RunStarted):
        for name in ("trace_id", "provenance", "code_version"):
            data.pop(name, None)
    return {"type": event.TYPE, **data}


def domain_events(events: list[Event]) -> dict[str, dict[str, Any]]:
    """Key -> canonical event, for every event but the per-attempt telemetry and failures.
    Calls made side by side may be recorded in either order: the keys say which is which."""
    found: dict[str, dict[str, Any]] = {}
    for event in events:
        if isinstance(event, (*TELEMETRY, RunFailed)):
            continue
        assert event.key not in found, f"event {event.key} recorded twice"
        found[event.key] = canonical(event)
    return found


def differences(actual: list[Event], expected: list[Event], limit: int = 5) -> list[str]:
    """What differs between two runs' domain events, in words (empty: nothing)."""
    got, want = domain_events(actual), domain_events(expected)
    lines = []
    missing = [key for key in want if key not in got]
    extra = [key for key in got if key not in want]
    changed = [key for key in want if key in got and got[key] != want[key]]
    if missing:
        lines.append(f"{len(missing)} event(s) missing, e.g. {missing[:limit]}")
    if extra:
        lines.append(f"{len(extra)} event(s) not expected, e.g. {extra[:limit]}")
    for key in changed[:limit]:
        fields = sorted(f for f in {*got[key], *want[key]} if got[key].get(f) != want[key].get(f))
        lines.append(f"event {key} differs in {fields}")
    return lines


def turns(events: list[Event], most: int) -> list[int]:
    """Where to cut a run: after its start, and after each turn (a group of answers, before
    what the protocol derives from them), at most ``most`` of them spread evenly over the
    run, the first and the last always among them."""
    ends = [1] + [
        i
        for i in range(1, len(events))
        if isinstance(events[i - 1], ModelCallCompleted)
        and not isinstance(events[i], ModelCallCompleted)
    ]
    if len(ends) <= most:
        return ends
    step = (len(ends) - 1) / (most - 1)
    return sorted({ends[round(i * step)] for i in range(most)})
