"""Configs and reference runs for the end-to-end tests."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from maai.domain.config import ExperimentConfig
from maai.domain.frohlich.events import StepStarted
from maai.ledger import EventStore
from maai.runtime.engine import CallExecutor, Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import load_config, start_run
from tests.e2e.history import DomainHistory, decode, domain_history, only_run
from tests.e2e.launcher import REPO, Launcher

DEFAULT_CONFIG = REPO / "configs" / "default.yaml"
COLLABORATION_CONFIG = REPO / "configs" / "collaboration.yaml"
# What "rounds" means in each experiment's config: Phase-2 discussion rounds (Frohlich),
# exchanges of messages (collaboration). These are the bases the engine-level e2e tests use
# (the engine is experiment-agnostic, and these two are the cheapest to shorten); another
# experiment's config is written with ``rounds=None`` and its length set through ``edit``.
ROUNDS_KEY = {"frohlich": "phase2_rounds", "collaboration": "exchanges"}


def write_config(
    path: Path,
    *,
    agents: int = 3,
    rounds: int | None = 3,
    latency_ms: float | None = None,
    edit: Callable[[dict[str, Any]], None] | None = None,
    base: Path = DEFAULT_CONFIG,
) -> Path:
    """A copy of the ``base`` config (the default Frohlich one unless told) with its first
    ``agents`` agents and ``rounds`` rounds (Frohlich: Phase-2 rounds; collaboration:
    exchanges; None: as the base has them); ``latency_ms`` for every simulated persona;
    ``edit`` changes the data last."""
    data = yaml.safe_load(base.read_text(encoding="utf-8"))
    data["agents"] = data["agents"][:agents]
    if rounds is not None:
        data[ROUNDS_KEY[data["experiment"]]] = rounds
    data["name"] = f"e2e-{len(data['agents'])}x{'n' if rounds is None else rounds}"
    if latency_ms is not None:
        for agent in data["agents"]:
            agent.setdefault("persona", {})["latency_ms"] = latency_ms
    if edit is not None:
        edit(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def run_in_process(
    config_path: Path,
    db: str,
    *,
    run_id: str | None = None,
    executor: Callable[[ExperimentConfig], CallExecutor] | None = None,
) -> str:
    """Run a config to the end in this process (simulated or loopback models only, or what
    ``executor`` serves, e.g. a recording), as run ``run_id`` when given."""
    config = load_config(config_path)
    with EventStore.open(db) as store:
        run_id = start_run(store, config, run_id=run_id)
        calls = executor(config) if executor is not None else LiveExecutor(config, env={})
        asyncio.run(Engine(store, run_id, calls).run())
    return run_id


@dataclass(frozen=True)
class Recorded:
    config: Path
    db: str
    run_id: str


@dataclass(frozen=True)
class Reference:
    """An uninterrupted run of a config, as the tests compare others with it."""

    config: Path
    db: str
    run_id: str
    agents: tuple[str, ...]
    history: DomainHistory
    events: int  # the run's head seq
    # Frohlich: seq of the group's "2.1" step.started, where Phase 2 begins (None for an
    # experiment without phases).
    phase2_from: int | None


def read_reference(config: Path, db: str, run_id: str | None = None) -> Reference:
    agents = tuple(load_config(config).agent_names())
    with EventStore.open(db) as store:
        info = store.get_run(run_id) if run_id else only_run(store)
        assert info is not None, f"no run in {db}"
        assert info.status == "completed", f"reference run is {info.status}"
        stored = list(store.read(info.run_id))
    phase2_from = next(
        (
            e.seq
            for e in stored
            if e.type == StepStarted.TYPE
            and isinstance(ev := decode(e), StepStarted)
            and ev.step == "2.1"
        ),
        None,
    )
    return Reference(
        config=config,
        db=db,
        run_id=info.run_id,
        agents=agents,
        history=domain_history(stored, agents),
        events=stored[-1].seq,
        phase2_from=phase2_from,
    )


class References:
    """Uninterrupted runs made once per session through ``maai run``, one per config file."""

    def __init__(self, launcher: Launcher, folder: Path) -> None:
        self.launcher = launcher
        self.folder = folder
        self._made: dict[str, Reference] = {}
        self._lock = threading.Lock()

    def of(self, config: Path) -> Reference:
        key = str(config.resolve())
        with self._lock:
            found = self._made.get(key)
            if found is None:
                db = str(self.folder / f"reference-{len(self._made)}.db")
                EventStore.open(db).close()
                child = self.launcher.run("run", str(config), "--db", db, "-q")
                assert child.poll() == 0, f"reference run failed:\n{child.output()}"
                found = self._made[key] = read_reference(config, db)
        return found
