"""Histories shared by the projection tests: the checked-in golden run, an agreeable run that
reaches consensus, and a run made by the real engine on a temporary SQLite ledger."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from maai.domain.events import Event
from maai.ledger import EventStore
from maai.projections.history import History, history_from_stored
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import start_run
from tests.projections.frohlich.recording import golden_config, golden_history
from tests.support.driver import agreeable, drive, make_config

ENGINE_RUN = "engine-run"


@pytest.fixture(scope="session")
def golden() -> History:
    return golden_history()


@pytest.fixture(scope="session")
def golden_events(golden: History) -> list[Event]:
    return [entry.event for entry in golden.entries]


@pytest.fixture(scope="session")
def agreeable_events() -> list[Event]:
    _, events, _ = drive(make_config(), agreeable)
    return events


@pytest.fixture(scope="session")
def engine_ledger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A SQLite ledger holding one run made by the engine with the simulated participants."""
    path: Path = tmp_path_factory.mktemp("ledger") / "ledger.db"
    config = golden_config()
    with EventStore.open(str(path)) as store:
        run_id = start_run(store, config, run_id=ENGINE_RUN)
        asyncio.run(Engine(store, run_id, LiveExecutor(config)).run())
    yield str(path)


@pytest.fixture(scope="session")
def engine_history(engine_ledger: str) -> History:
    with EventStore.open(engine_ledger) as store:
        info = store.get_run(ENGINE_RUN)
        return history_from_stored(info.run_id, store.read(info.run_id), info.status)


@pytest.fixture
def small_read_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store reads 4 events per query here instead of 500, so that what a command holds
    of the chunk being read stays small beside what the bounded-memory tests measure."""
    open_store: Any = EventStore.open.__func__  # type: ignore[attr-defined]

    def open_with_small_chunks(cls: type[EventStore], *args: Any, **kwargs: Any) -> EventStore:
        return open_store(cls, *args, **{**kwargs, "read_chunk": 4})  # type: ignore[no-any-return]

    monkeypatch.setattr(EventStore, "open", classmethod(open_with_small_chunks))
