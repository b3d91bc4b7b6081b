"""A full disk: an append that fails with SQLite's "database or disk is full" (SQLITE_FULL) or
PostgreSQL's disk_full is a ``StoreFullError``; ``maai run`` stops with one line and exit 4,
the run is left ``interrupted`` with an unbroken chain, and ``maai resume`` completes it once
there is space again."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import event
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.ledger import EventStore, NewEvent, postgres_writer, sqlite_writer
from maai.ledger.errors import StoreFullError
from tests.e2e.launcher import REPO

CONFIG = str(REPO / "configs" / "default.yaml")


def invoke(*args: str) -> Result:
    env = {"COLUMNS": "80", "OPENAI_AGENTS_DISABLE_TRACING": "1"}
    return CliRunner().invoke(app, list(args), env=env)


def only_run(db: str) -> tuple[str, str, bool]:
    with EventStore.open(db) as store:
        (run,) = store.list_runs()
        return run.run_id, run.status, store.verify_chain(run.run_id).ok


def limit_pages(store: EventStore, extra: int) -> None:
    """SQLite's ``max_page_count`` (a per-connection limit) on every connection the store
    makes from now on: the file cannot grow by more than ``extra`` pages."""
    engine = store._engine  # noqa: SLF001 -- the test reaches into the store on purpose
    with engine.connect() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar()

    @event.listens_for(engine, "connect")
    def _limit(dbapi_connection: sqlite3.Connection, _: Any) -> None:
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages + extra}")

    engine.dispose()


def test_a_real_sqlite_full_append_is_a_store_full_error(tmp_path: Path) -> None:
    db = str(tmp_path / "tiny.db")
    with EventStore.open(db) as store:
        store.create_run("r1", "test", {})
        limit_pages(store, 4)
        payload = {"text": "x" * 3000}
        head = 0
        with pytest.raises(StoreFullError) as info:
            for _ in range(100):
                store.append("r1", head, [NewEvent(type="t", payload=payload)])
                head += 1
        assert head > 0
        message = str(info.value)
        assert message.startswith("appending to run 'r1': ")
        assert f"{db} is full (database or disk is full); nothing of this write was stored" in (
            message
        )
        assert isinstance(info.value.__cause__, Exception)
        # Nothing of the refused batch is stored: the head and the chain are as before.
        assert store.head("r1") == head
        assert store.verify_chain("r1").ok
        store.set_status("r1", "interrupted")  # an update in place still fits


def test_maai_run_on_a_full_sqlite_ledger_exits_4_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "tiny.db")
    EventStore.open(db).close()
    opened = EventStore.open.__func__  # type: ignore[attr-defined]

    def open_tiny(cls: type[EventStore], *args: Any, **kwargs: Any) -> EventStore:
        store = opened(cls, *args, **kwargs)
        limit_pages(store, 40)
        return store

    with monkeypatch.context() as patch:
        patch.setattr(EventStore, "open", classmethod(open_tiny))
        result = invoke("run", CONFIG, "--db", db, "-q")
    assert_stopped_full(result, db)


def assert_stopped_full(result: Result, db: str) -> None:
    assert result.exit_code == 4, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    run_id, status, chain_ok = only_run(db)
    line = lines[0]
    assert line.startswith(f"stopped: appending to run '{run_id}': ")
    assert " is full (" in line and "nothing of this write was stored" in line
    assert line.endswith(
        f"The run is saved; once there is space again, continue it with: maai resume {run_id}"
    )
    assert status == "interrupted" and chain_ok
    # Space again: the run resumes to its end and verifies.
    resumed = invoke("resume", run_id, "--db", db, "-q")
    assert resumed.exit_code == 0, resumed.output
    assert only_run(db)[1] == "completed"
    verified = invoke("verify", run_id, "--db", db)
    assert verified.exit_code == 0, verified.output


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    if request.param == "sqlite":
        yield "sqlite", str(tmp_path / "ledger.db")
        return
    url: str = request.getfixturevalue("postgres_url")
    EventStore.open(url, upgrade=True).close()
    yield "postgres", url


def failing_after(good: int, error: Callable[[], Exception], real: Any) -> Any:
    """``append_rows`` that works ``good`` times, then raises the driver's error."""
    calls = 0

    def append_rows(conn: Any, batch: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls > good:
            raise error()
        return real(conn, batch)

    return append_rows


def test_the_drivers_disk_full_errors_stop_the_run_with_exit_4(
    backend: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    kind, db = backend
    if kind == "sqlite":
        module: Any = sqlite_writer

        def error() -> Exception:
            return sqlite3.OperationalError("database or disk is full")
    else:
        module = postgres_writer

        def error() -> Exception:
            return psycopg.errors.DiskFull(
                'could not extend file "base/16384/16402": No space left on device'
            )

    with monkeypatch.context() as patch:
        patch.setattr(module, "append_rows", failing_after(6, error, module.append_rows))
        result = invoke("run", CONFIG, "--db", db, "-q")
    assert_stopped_full(result, db)
    if kind == "postgres":
        assert "No space left on device" in result.stderr
