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
from maai.domain.events import RunClaimed, RunStarted
from maai.domain.experiment import Experiment
from maai.domain.registry import COMMON_REGISTRY
from maai.ledger import ConcurrencyError, EventStore
from maai.runtime.config_files import read_config
from maai.runtime.provenance import provenance
from maai.runtime.signing import Signer
from maai.runtime.writer import to_new_event


def load_config(path: str | Path | Traversable, *, seed: int | None = None) -> ExperimentConfig:
    """Read and validate a YAML config of any experiment (its ``experiment:`` key), with the
    files it names read in (``config_files.read_config``)."""
    return load_experiment_config(path, seed=seed)[1]


def load_experiment_config(
    path: str | Path | Traversable, *, seed: int | None = None
) -> tuple[Experiment, ExperimentConfig]:
    """:func:`load_config`, with the experiment the config names: found once, here, and
    passed on to whatever runs it (never looked up by name again)."""
    data = read_config(path)
    if isinstance(data, dict) and seed is not None:
        data = {**data, "seed": seed}
    return experiments.parse_config(data, source=str(path))


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
    signer: Signer | None = None,
) -> str:
    """Create the run and record its first event. ``request_hash_version``: 1 records a run
    as runs were recorded before version 2 (tests compare the two). With ``signer``, the new
    head is signed at once: a run stopped before its engine starts (Ctrl-C in the first
    moment) is then signed as every stopped run is (docs/ledger.md)."""
    run_id = run_id or new_run_id()
    snapshot = config_snapshot(config)
    store.create_run(run_id, config.experiment, snapshot)
    started = _run_started(config, snapshot, trace_id, request_hash_version)
    (appended,) = store.append(run_id, 0, [to_new_event(started)])
    if signer is not None:
        store.add_checkpoint(
            run_id, 1, appended.hash, signer.public_key, signer.sign(run_id, 1, appended.hash)
        )
    return run_id


def _run_started(
    config: ExperimentConfig,
    snapshot: dict[str, Any],
    trace_id: str | None,
    request_hash_version: int = REQUEST_HASH_VERSION,
) -> RunStarted:
    return RunStarted(
        experiment=config.experiment,
        config=snapshot,
        seed=config.seed,
        trace_id=trace_id,
        code_version=code_version(),
        provenance=provenance(),
        request_hash_version=None if request_hash_version == 1 else request_hash_version,
    )


def ensure_started(store: EventStore, run_id: str, config: ExperimentConfig) -> bool:
    """Record ``run.started`` for a run that has no events yet: its process died between
    creating the run and recording its first event (``start_run`` takes two writes). Returns
    whether it was recorded here; a writer that got there first is fine."""
    if store.head(run_id) != 0:
        return False
    snapshot = config_snapshot(config)
    try:
        store.append(run_id, 0, [to_new_event(_run_started(config, snapshot, None))])
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


def first_claim(store: EventStore, run_id: str) -> RunClaimed | None:
    """The first ``run.claimed`` of the run: the study's worker that took it first, or
    ``None`` (no worker took it, or the event cannot be read: ``maai verify`` says why)."""
    seqs = store.seqs_of_type(run_id, RunClaimed.TYPE)
    stored = store.read_one(run_id, seqs[0]) if seqs else None
    if stored is None:
        return None
    try:
        event = COMMON_REGISTRY.decode(stored.type, stored.schema_version, stored.payload)
    except Exception:  # an edited payload: shown as no worker, never a traceback
        return None
    return event if isinstance(event, RunClaimed) else None


def stored_config(store: EventStore, run_id: str) -> tuple[Experiment, ExperimentConfig]:
    """The experiment and config of a stored run, from its hashed ``run.started`` event: the
    ``runs`` row is a cache, never a source. A run with no events has no config to trust
    (``ConfigError``): its row alone, which anyone who can write to the ledger can make or
    edit, never becomes the config requests are sent with."""
    started = started_event(store, run_id)
    if started is None:
        raise ConfigError(
            f"run {run_id} has no events: it was never started (its first write was lost, or "
            "its row was made by hand); its row is not trusted for a config, start a new run"
        )
    experiment = experiments.get(started.experiment)
    # A fork's config from its fork point on is its run.forked's (docs/forks.md).
    from maai.runtime.forks import forked_of

    forked = forked_of(store, run_id)
    if forked is not None:
        started = started.model_copy(update={"config": forked.config, "seed": forked.seed})
    return experiment, experiment.config_of(started)
