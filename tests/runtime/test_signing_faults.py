"""Every ended run is signed, or not marked ended: the signature's write takes the write lock
before it reads (another writer committing meanwhile is no false "locked" error), it is tried
again while the store stays locked, and a head that cannot be signed stops the run with the
store's error instead of a warning. A missing ``MAAI_SIGNING_KEY`` file is an error, never a
new key."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from typer.testing import CliRunner

from maai.cli.app import app
from maai.ledger import EventStore, NewEvent
from maai.ledger.errors import StoreBusyError
from maai.runtime import signing
from maai.runtime.checkpoints import SIGN_ATTEMPTS
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import load_config, start_run

REPO = Path(__file__).resolve().parents[2]
COLLABORATION = REPO / "configs" / "collaboration.yaml"


def test_a_checkpoint_is_recorded_though_another_writer_commits_while_it_reads(
    tmp_path: Path, signing_key: str
) -> None:
    """What left studies' runs unsigned: the checkpoint's transaction read first and then
    wrote, and a commit by another connection in between made SQLite refuse the write at once
    ("database is locked"), which the store reported as a lock held for 30 s."""
    db = str(tmp_path / "l.db")
    signer = signing.load_signer(Path(signing_key))
    with EventStore.open(db) as store, EventStore.open(db, busy_timeout_s=0.2) as other:
        for run_id in ("a", "b"):
            store.create_run(run_id, "test", {})
            store.append(run_id, 0, [NewEvent(type="t", payload={"n": 1})])
        seq, head_hash = store.head_hash("a") or (0, "")
        other_head = [1]
        refused: list[Exception] = []

        def commit_elsewhere(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            # Right after the checkpoint's own read: another writer appends to another run.
            if statement.lstrip().startswith("SELECT events.hash") and not other_head[1:]:
                try:
                    other.append("b", other_head[0], [NewEvent(type="t", payload={"n": 2})])
                    other_head.append(2)
                except StoreBusyError as exc:  # it waits for the checkpoint: that is right
                    refused.append(exc)
                    other_head.append(0)

        event.listen(store._engine, "after_cursor_execute", commit_elsewhere)  # noqa: SLF001
        cp = store.add_checkpoint(
            "a", seq, head_hash, signer.public_key, signer.sign("a", seq, head_hash)
        )
        assert [c.seq for c in store.checkpoints("a")] == [cp.seq] == [1]
        assert other_head[1:], "the other writer never tried"


class _BusyOnCheckpoint:
    """A store whose first ``failures`` checkpoint writes meet a lock held too long."""

    def __init__(self, store: EventStore, failures: int) -> None:
        self.store = store
        self.failures = failures
        self.tries = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def add_checkpoint(self, *args: Any) -> Any:
        self.tries += 1
        if self.tries <= self.failures:
            raise StoreBusyError("recording a checkpoint: stayed locked for more than 30s")
        return self.store.add_checkpoint(*args)


def _engine(store: Any, run_id: str, signer: signing.Signer) -> Engine:
    config = load_config(COLLABORATION)
    return Engine(store, run_id, LiveExecutor(config, env={}), signer=signer)


def test_a_head_that_cannot_be_signed_leaves_the_run_unended_and_raises(
    tmp_path: Path, signing_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("maai.runtime.checkpoints.time.sleep", lambda s: None)
    signer = signing.load_signer(Path(signing_key))
    with EventStore.open(str(tmp_path / "l.db")) as store:
        run_id = start_run(store, load_config(COLLABORATION))
        busy = _BusyOnCheckpoint(store, failures=10 * SIGN_ATTEMPTS)
        engine = _engine(busy, run_id, signer)
        with pytest.raises(StoreBusyError):
            asyncio.run(engine.run())
        assert busy.tries == SIGN_ATTEMPTS  # tried again, and not once more after the end
        assert store.get_run(run_id).status == "running"  # resumable, never "completed"
        assert store.checkpoints(run_id) == []
        # The next resume signs and ends it.
        asyncio.run(_engine(store, run_id, signer).run())
        assert store.get_run(run_id).status == "completed"
        (cp,) = store.checkpoints(run_id)
        assert cp.seq == store.head(run_id)


def test_a_lock_held_for_a_while_only_delays_the_signature(
    tmp_path: Path, signing_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("maai.runtime.checkpoints.time.sleep", lambda s: None)
    signer = signing.load_signer(Path(signing_key))
    with EventStore.open(str(tmp_path / "l.db")) as store:
        run_id = start_run(store, load_config(COLLABORATION))
        busy = _BusyOnCheckpoint(store, failures=SIGN_ATTEMPTS - 1)
        engine = _engine(busy, run_id, signer)
        asyncio.run(engine.run())
        assert engine.warnings == []
        assert store.get_run(run_id).status == "completed"
        assert [cp.seq for cp in store.checkpoints(run_id)] == [store.head(run_id)]


def test_a_missing_key_file_named_by_the_variable_is_an_error_and_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "keys" / "mistyped.pem"
    monkeypatch.setenv(signing.KEY_ENV, str(missing))
    db = tmp_path / "l.db"
    for args in (
        ["run", "collaboration", "--db", str(db), "-q"],
        ["study", "run", str(REPO / "configs" / "studies" / "u_sweep.yaml"), "--db", str(db)],
    ):
        result = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
        assert result.exit_code == 2, result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and str(missing) in lines[0] and signing.KEY_ENV in lines[0]
        assert not missing.exists() and not missing.parent.exists()
        assert not db.exists()


def test_the_default_key_is_created_on_first_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(signing.KEY_ENV, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    signer = signing.load_signer()
    path = tmp_path / "config" / "maai" / "signing_key.pem"
    assert signer.path == path and path.is_file()
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert signing.load_signer().public_key == signer.public_key


def test_a_write_that_met_another_writer_s_commit_is_not_called_a_long_lock(
    tmp_path: Path,
) -> None:
    """SQLite's SQLITE_BUSY_SNAPSHOT reads "database is locked", yet no lock was held for the
    busy timeout: the message says what happened."""
    snapshot = sqlite3.OperationalError("database is locked")
    snapshot.sqlite_errorcode = sqlite3.SQLITE_BUSY_SNAPSHOT  # type: ignore[attr-defined]
    with EventStore.open(str(tmp_path / "l.db")) as store:
        error = store._translate(snapshot, "recording a checkpoint")  # noqa: SLF001
    assert isinstance(error, StoreBusyError)
    assert "another writer changed" in str(error) and "for more than" not in str(error)


def test_a_checkpoint_that_cannot_be_written_midway_stops_the_run_resumable(
    tmp_path: Path, signing_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("maai.runtime.checkpoints.time.sleep", lambda s: None)
    signer = signing.load_signer(Path(signing_key))
    config = load_config(COLLABORATION)
    with EventStore.open(str(tmp_path / "l.db")) as store:
        run_id = start_run(store, config)
        busy = _BusyOnCheckpoint(store, failures=10 * SIGN_ATTEMPTS)
        engine = Engine(
            busy, run_id, LiveExecutor(config, env={}), signer=signer, checkpoint_every=10
        )
        with pytest.raises(StoreBusyError):
            asyncio.run(engine.run())
        stopped_at = store.head(run_id)
        assert busy.tries >= SIGN_ATTEMPTS and stopped_at >= 10
        assert store.get_run(run_id).status == "running"  # never completed unsigned
        asyncio.run(_engine(store, run_id, signer).run())
        assert store.get_run(run_id).status == "completed"
        assert max(cp.seq for cp in store.checkpoints(run_id)) == store.head(run_id) > stopped_at
