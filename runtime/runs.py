"""Starting, resuming and summarizing runs: the services behind the CLI and the Python API.
They know an experiment only through the Experiment interface."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from maai.domain import experiments
from maai.domain.calls import REQUEST_HASH_VERSION
from maai.domain.config import ConfigError, ExperimentConfig
from maai.domain.events import RunStarted
from maai.domain.experiment import Experiment
from maai.domain.registry import COMMON_REGISTRY
from maai.ledger import ConcurrencyError, EventStore
from maai.runtime.config_files import read_config
from maai.runtime.engine import to_new_event
from maai.runtime.provenance import provenance


def load_config(path: str | Path | Traversable, *, seed: int | None = None) -> ExperimentConfig:
    """Read and validate a YAML config of any experiment (its ``experiment:`` key), with the
    files it names read in (``config_files.read_config``)."""
    data = read_config(path)
    if isinstance(data, dict) and seed is not None:
        data = {**data, "seed": seed}
    _, config = experiments.parse_config(data, source=str(path))
    return config


def experiment_of(config: ExperimentConfig) -> Experiment:
    return experiments.get(config.experiment)


def new_run_id(now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def code_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("maai")
    except PackageNotFoundError:
        return "unknown"


def config_snapshot(config: ExperimentConfig) -> dict[str, Any]:
    """The config as stored: it holds no secrets (keys are named by environment variable
    only), so it is stored as it is."""
    return config.model_dump(mode="json")


def start_run(
    store: EventStore,
    config: ExperimentConfig,
    *,
    run_id: str | None = None,
    trace_id: str | None = None,
    request_hash_version: int = REQUEST_HASH_VERSION,
) -> str:
    """Create the run and record its first event. ``request_hash_version``: 1 records a run
    as runs were recorded before version 2 (tests compare the two)."""
    run_id = run_id or new_run_id()
    snapshot = config_snapshot(config)
    store.create_run(run_id, config.experiment, snapshot)
    started = _run_started(config, snapshot, trace_id, request_hash_version)
    store.append(run_id, 0, [to_new_event(started)])
    return run_id


def _run_started(
    config: ExperimentConfig,
    snapshot: dict[str, Any],
    trace_id: str | None,
    request_hash_version: int = REQUEST_HASH_VERSION,
    *,
    worker: dict[str, Any] | None = None,
) -> RunStarted:
    return RunStarted(
        experiment=config.experiment,
        config=snapshot,
        seed=config.seed,
        trace_id=trace_id,
        code_version=code_version(),
        provenance=provenance() if worker is None else {**provenance(), "worker": worker},
        request_hash_version=None if request_hash_version == 1 else request_hash_version,
    )


def ensure_started(
    store: EventStore,
    run_id: str,
    config: ExperimentConfig,
    *,
    worker: dict[str, Any] | None = None,
) -> bool:
    """Record ``run.started`` for a run that has no events yet: its process died between
    creating the run and recording its first event (``start_run`` takes two writes), or a
    study's worker starts a run its submitter created (``worker``: who runs it, kept in the
    event's provenance). Returns whether it was recorded here; a writer that got there first
    is fine."""
    if store.head(run_id) != 0:
        return False
    snapshot = config_snapshot(config)
    started = _run_started(config, snapshot, None, worker=worker)
    try:
        store.append(run_id, 0, [to_new_event(started)])
    except ConcurrencyError:
        return False
    return True


def run_experiment(store: EventStore, run_id: str) -> Experiment:
    """The experiment of a stored run."""
    return experiments.get(store.get_run(run_id).kind)


def started_event(store: EventStore, run_id: str) -> RunStarted | None:
    """The run's first event, ``run.started`` (``None`` for a run with no events yet)."""
    first = next(iter(store.read(run_id)), None)
    if first is None:
        return None
    event = COMMON_REGISTRY.decode(first.type, first.schema_version, first.payload)
    if not isinstance(event, RunStarted):
        raise ConfigError(f"run {run_id}: its first event is {first.type}, not run.started")
    return event


def stored_config(store: EventStore, run_id: str) -> tuple[Experiment, ExperimentConfig]:
    """The experiment and config of a stored run, from its hashed ``run.started`` event: the
    ``runs`` row is a cache, never a source. Only a run whose process died between creating
    it and recording its first event has nothing but the row."""
    started = started_event(store, run_id)
    if started is None:
        info = store.get_run(run_id)
        experiment = experiments.get(info.kind)
        return experiment, experiment.config_model.model_validate(info.config)
    experiment = experiments.get(started.experiment)
    return experiment, experiment.config_of(started)
