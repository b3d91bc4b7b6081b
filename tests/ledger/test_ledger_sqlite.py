"""What only the SQLite backend has: pragmas, the write lock, files."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from maai.ledger import EventStore, NewEvent, StoreBusyError, StoreUnreachableError
from tests.ledger.helpers import unwritable


def pragma(store: EventStore, name: str) -> object:
    with store._engine.connect() as conn:
        return conn.exec_driver_sql(f"PRAGMA {name}").scalar()


@pytest.mark.parametrize(("mode", "value"), [("FULL", 2), ("normal", 1), ("EXTRA", 3)])
def test_pragmas(tmp_path: Path, mode: str, value: int) -> None:
    with EventStore.open(str(tmp_path / "x.db"), synchronous=mode, busy_timeout_s=2.5) as store:
        assert pragma(store, "journal_mode") == "wal"
        assert pragma(store, "synchronous") == value
        assert pragma(store, "foreign_keys") == 1
        assert pragma(store, "busy_timeout") == 2500


def test_default_synchronous_is_full(tmp_path: Path) -> None:
    with EventStore.open(str(tmp_path / "x.db")) as store:
        assert pragma(store, "synchronous") == 2


def test_a_writer_blocked_past_the_busy_timeout_gets_store_busy(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    with EventStore.open(str(path), busy_timeout_s=0.2) as store:
        store.create_run("r1", "test", {})
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            started = time.monotonic()
            with pytest.raises(StoreBusyError, match="locked") as caught:
                store.append("r1", 0, [NewEvent(type="t", payload={})])
            assert 0.15 < time.monotonic() - started < 5
            assert str(path) in str(caught.value)
            assert store.head("r1") == 0  # readers are not blocked in WAL mode
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert store.append("r1", 0, [NewEvent(type="t", payload={})])[0].seq == 1


def test_a_writer_waits_for_the_lock_within_the_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    with EventStore.open(str(path), busy_timeout_s=10) as store:
        store.create_run("r1", "test", {})
        blocker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        blocker.execute("BEGIN IMMEDIATE")
        release = threading.Timer(0.3, lambda: blocker.execute("COMMIT"))
        release.start()
        try:
            started = time.monotonic()
            store.append("r1", 0, [NewEvent(type="t", payload={})])
            assert time.monotonic() - started >= 0.25
        finally:
            release.join()
            blocker.close()


def test_an_existing_ledger_in_an_unwritable_folder(tmp_path: Path) -> None:
    """WAL needs to create files beside the database: refuse up front, clearly."""
    folder = tmp_path / "f"
    folder.mkdir()
    EventStore.open(str(folder / "x.db")).close()
    before = sorted(p.name for p in folder.iterdir())
    with (
        unwritable(folder),
        pytest.raises(StoreUnreachableError, match="folder is not writable"),
    ):
        EventStore.open(str(folder / "x.db"))
    assert sorted(p.name for p in folder.iterdir()) == before


def test_refused_open_of_a_new_file_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If creating a new ledger fails half-way, the half-made file is removed."""
    from maai.ledger import store as ledger_store

    def broken_upgrade(connection: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(ledger_store, "upgrade_to_head", broken_upgrade)
    with pytest.raises(RuntimeError, match="disk on fire"):
        EventStore.open(str(tmp_path / "new.db"))
    assert list(tmp_path.iterdir()) == []


def _append_in_flight(
    store: EventStore, monkeypatch: pytest.MonkeyPatch, seconds: float
) -> threading.Thread:
    """Runs "r1" and "r2" created; a thread's append to "r1" is inside its write transaction,
    where building the rows takes ``seconds``."""
    from maai.ledger import batch as ledger_batch

    store.create_run("r1", "test", {})
    store.create_run("r2", "test", {})
    inside = threading.Event()
    real = ledger_batch.Batch.build_rows

    def slow(self: object, prev_hash: str) -> list[tuple[object, ...]]:
        inside.set()
        time.sleep(seconds)
        return real(self, prev_hash)  # type: ignore[arg-type]

    monkeypatch.setattr(ledger_batch.Batch, "build_rows", slow)
    first = threading.Thread(target=store.append, args=("r1", 0, [NewEvent(type="t", payload={})]))
    first.start()
    assert inside.wait(5)
    return first


def test_threads_of_one_process_wait_for_each_others_appends_up_to_the_busy_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with EventStore.open(str(tmp_path / "x.db"), busy_timeout_s=0.2) as store:
        first = _append_in_flight(store, monkeypatch, 1.0)
        started = time.monotonic()
        with pytest.raises(StoreBusyError, match="busy") as caught:
            store.append("r2", 0, [NewEvent(type="t", payload={})])
        assert 0.15 < time.monotonic() - started < 0.9
        assert str(tmp_path / "x.db") in str(caught.value)
        first.join()
        assert (store.head("r1"), store.head("r2")) == (1, 0)


def test_appends_of_two_threads_within_the_busy_timeout_both_land(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with EventStore.open(str(tmp_path / "x.db"), busy_timeout_s=10) as store:
        first = _append_in_flight(store, monkeypatch, 0.3)
        store.append("r2", 0, [NewEvent(type="t", payload={"n": 2})])
        first.join()
        assert (store.head("r1"), store.head("r2")) == (1, 1)
        assert store.verify_chain("r1").ok and store.verify_chain("r2").ok
