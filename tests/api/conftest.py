"""A small ledger for the Python API and ``maai runs`` tests, made once per session: two
finished simulated Frohlich runs with labels (the second priced and named), a run that was
created and never started, and a run of an experiment this installation does not have."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import pytest

from maai.ledger import EventStore
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import start_run
from tests.support.driver import make_config

HIGH = "20261123-182745-5634a5"
LOW = "20261123-182801-0b9e2c"
NEW = "20261123-182900-77aa01"
FOREIGN = "20261123-183000-f0f0f0"
COMMON_PREFIX = "20261123-18"
PRICES = {"simulated": {"input": 2.0, "output": 10.0}}  # US dollars per million tokens


@dataclass(frozen=True)
class Sample:
    path: Path
    ids: tuple[str, ...]  # oldest first


def _run(store: EventStore, run_id: str, **overrides: object) -> None:
    config = make_config(phase2_rounds=1, **overrides)
    start_run(store, config, run_id=run_id)
    asyncio.run(Engine(store, run_id, LiveExecutor(config, env={})).run())


@pytest.fixture(scope="session")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Sample:
    path = tmp_path_factory.mktemp("api") / "ledger.db"
    with EventStore.open(str(path)) as store:
        _run(store, HIGH, labels={"condition": "high"})
        _run(
            store,
            LOW,
            seed=11,
            name="priced",
            labels={"condition": "low", "n": 3, "flag": True},
            prices=PRICES,
        )
        never_started = make_config(labels={"condition": "high"}).model_dump(mode="json")
        store.create_run(NEW, "frohlich", never_started)
        store.create_run(FOREIGN, "nonesuch", {"labels": {"condition": "high"}})
        ids = tuple(run.run_id for run in store.list_runs())
    assert ids == (HIGH, LOW, NEW, FOREIGN)
    return Sample(path, ids)
