"""A read-only ledger: a published SQLite file on read-only media, or one whose file and folder
give no write permission. ``maai verify``, ``replay``, ``show``, ``export`` and ``audit`` read
it (``maai runs`` too) without writing anything (on a Frohlich run: the ledger reads any
experiment's alike): no WAL switch, no schema upgrade (a ledger
at an older, known revision is read as it is), no side file; writes are refused in one line.

Read-only media are simulated by making the ledger's permission check report no write
access (root passes any permission check, and the tests may run as root); one test uses
real permissions and is skipped as root.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.domain.frohlich.config import parse_config
from maai.ledger import EventStore, NewEvent, SchemaBehindError, sqlite_files
from maai.ledger import store as store_module
from maai.ledger.errors import ReadOnlyStoreError
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import start_run

COMPAT = Path(__file__).resolve().parents[1] / "fixtures" / "compat"
GOLDEN = COMPAT / "golden"
RUN_ID = "20261123-182745-5634a5"


def golden(name: str) -> bytes:
    path = GOLDEN / name
    if not path.exists():
        return gzip.decompress((GOLDEN / f"{name}.gz").read_bytes())
    return path.read_bytes()


def snapshot(folder: Path) -> dict[str, str]:
    """Every file in ``folder`` with the sha256 of its bytes."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


@pytest.fixture
def published(tmp_path: Path) -> Path:
    """The compatibility ledger (schema revision 0001, WAL mode) in a folder of its own."""
    folder = tmp_path / "published"
    folder.mkdir()
    path = folder / "ledger.db"
    with gzip.open(COMPAT / "ledger.db.gz") as source, path.open("wb") as target:
        shutil.copyfileobj(source, target)
    return path


@pytest.fixture
def read_only_media(published: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The ledger's folder behaves as read-only media: nothing in it may be written."""
    folder = published.parent
    real = sqlite_files.can_write

    def can_write(path: Path) -> bool:
        inside = path == folder or path.parent == folder
        return False if inside else real(path)

    monkeypatch.setattr(sqlite_files, "can_write", can_write)
    os.chmod(published, 0o444)
    os.chmod(folder, 0o555)
    try:
        yield published
    finally:
        os.chmod(folder, 0o755)
        os.chmod(published, 0o644)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def test_an_old_ledger_reads_read_only_without_a_change(published: Path) -> None:
    before = snapshot(published.parent)
    with EventStore.open(str(published), read_only=True) as store:
        assert store.read_only and store.schema_revision == "0001"
        assert store.upgraded_from is None
        assert [r.run_id for r in store.list_runs()] == [RUN_ID]
        report = store.verify_chain(RUN_ID)
        assert report.ok and report.events_checked == 365
        assert store.checkpoints(RUN_ID) == []  # 0001 kept none
        for write in (
            lambda: store.create_run("new-run", "frohlich", {}),
            lambda: store.set_status(RUN_ID, "failed"),
            lambda: store.append(RUN_ID, 365, [NewEvent(type="x", payload={})]),
            lambda: store.add_checkpoint(RUN_ID, 1, "0" * 64, "k", "s"),
        ):
            with pytest.raises(ReadOnlyStoreError, match="opened read-only; nothing was written"):
                write()
    # On a writable folder SQLite may add its -wal/-shm side files; the ledger is untouched.
    assert snapshot(published.parent)["ledger.db"] == before["ledger.db"]


def test_read_only_media_get_no_side_file(read_only_media: Path) -> None:
    before = snapshot(read_only_media.parent)
    with EventStore.open(str(read_only_media), read_only=None) as store:
        assert store.read_only
        assert store.verify_chain(RUN_ID).ok
    assert snapshot(read_only_media.parent) == before


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("summary.json", ["replay", RUN_ID, "--json"]),
        ("export.json", ["export", RUN_ID]),
        ("transcript.md", ["export", RUN_ID, "-f", "transcript"]),
        ("audit_votes.json", ["audit", "votes", RUN_ID, "--json"]),
        ("audit_leaks.json", ["audit", "leaks", RUN_ID, "--json"]),
        ("audit_protocol.json", ["audit", "protocol", RUN_ID, "--json"]),
    ],
)
def test_the_read_commands_work_on_read_only_media(
    read_only_media: Path, name: str, args: list[str]
) -> None:
    before = snapshot(read_only_media.parent)
    result = invoke(*args, "--db", str(read_only_media))
    assert result.exit_code == 0, result.output
    if name == "summary.json":
        assert json.loads(result.stdout) == json.loads(golden(name))
    elif name == "audit_protocol.json":
        # Rules were added since the old code wrote it (tests/compat): none is broken.
        assert json.loads(result.stdout)["violations"] == json.loads(golden(name))["violations"]
    else:
        assert result.stdout_bytes == golden(name)
    assert snapshot(read_only_media.parent) == before


def test_verify_show_runs_and_tables_on_read_only_media(
    read_only_media: Path, tmp_path: Path
) -> None:
    before = snapshot(read_only_media.parent)
    db = str(read_only_media)
    verified = invoke("verify", RUN_ID, "--db", db)
    # The same verdict as on a writable copy (which the open upgrades to the newest schema).
    copy = tmp_path / "copy.db"
    with gzip.open(COMPAT / "ledger.db.gz") as source, copy.open("wb") as target:
        shutil.copyfileobj(source, target)
    writable = invoke("verify", RUN_ID, "--db", str(copy))
    assert (verified.exit_code, verified.stdout, verified.stderr) == (
        writable.exit_code,
        writable.stdout,
        writable.stderr,
    )
    assert "error:" not in verified.stderr and "broken" not in verified.stderr
    shown = invoke("show", RUN_ID, "--db", db)
    assert shown.exit_code == 0 and RUN_ID in shown.stdout
    listed = invoke("runs", "--db", db)
    assert listed.exit_code == 0 and RUN_ID in listed.stdout
    tables = invoke("export", RUN_ID, "--db", db, "-f", "tables", "--out", str(tmp_path / "t"))
    assert tables.exit_code == 0, tables.output
    assert (tmp_path / "t" / "choices.csv").exists()
    assert snapshot(read_only_media.parent) == before


def test_a_current_ledger_verifies_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "current"
    folder.mkdir()
    db = folder / "ledger.db"
    config = parse_config(
        {"seed": 3, "phase2_rounds": 2, "agents": [{"name": n} for n in ("Ada", "Ben", "Cy")]}
    )
    with EventStore.open(str(db)) as store:
        run_id = start_run(store, config, run_id="current-run")
        asyncio.run(Engine(store, run_id, LiveExecutor(config)).run())
    before = snapshot(folder)
    monkeypatch.setattr(sqlite_files, "can_write", lambda path: False)
    verified = invoke("verify", run_id, "--db", str(db))
    assert verified.exit_code == 0, verified.output
    assert verified.stdout.startswith("ok: ") and "1 signed checkpoint(s)" in verified.stdout
    assert snapshot(folder) == before


def test_writing_commands_refuse_read_only_media_in_one_line(read_only_media: Path) -> None:
    resumed = invoke("resume", RUN_ID, "--db", str(read_only_media))
    assert resumed.exit_code == 2
    lines = resumed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert "no permission to read and write it" in lines[0] or "not writable" in lines[0]


def test_a_revision_that_needs_an_upgrade_is_refused_naming_a_writable_copy(
    published: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No shipped revision needs this yet; pretend 0001 could not be read as it is.
    monkeypatch.setattr(store_module, "READABLE_FROM", "0002")
    with pytest.raises(SchemaBehindError) as info:
        EventStore.open(str(published), read_only=True)
    message = str(info.value)
    assert "is at schema revision 0001" in message and "upgrade a writable copy" in message
    assert len(message.splitlines()) == 1


def test_nothing_is_created_read_only(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    with pytest.raises(Exception, match="there is no ledger at") as info:
        EventStore.open(str(missing), read_only=True)
    assert "opened read-only" in str(info.value)
    assert not missing.exists()
    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(SchemaBehindError, match="empty file"):
        EventStore.open(str(empty), read_only=True)
    assert empty.read_bytes() == b""


def test_read_only_refuses_an_upgrade() -> None:
    with pytest.raises(ValueError, match="cannot be upgraded"):
        EventStore.open("ledger.db", read_only=True, upgrade=True)


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="running as root: file permissions do not stop root, so chmod cannot make a "
    "read-only ledger here (the read_only_media tests simulate it instead)",
)
def test_real_permissions(published: Path) -> None:
    folder = published.parent
    before = snapshot(folder)
    os.chmod(published, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    os.chmod(folder, 0o555)
    try:
        for args in (["verify", RUN_ID], ["show", RUN_ID], ["export", RUN_ID], ["runs"]):
            result = invoke(*args, "--db", str(published))
            assert result.exit_code == 0, result.output
        assert snapshot(folder) == before
    finally:
        os.chmod(folder, 0o755)
        os.chmod(published, 0o644)


@pytest.mark.postgres
def test_postgresql_read_only_reads_and_refuses_writes(postgres_url: str) -> None:
    with EventStore.open(postgres_url, upgrade=True) as store:
        store.create_run("r1", "test", {})
        store.append("r1", 0, [NewEvent(type="t", payload={"n": 1})])
    with EventStore.open(postgres_url, read_only=True) as store:
        assert store.read_only
        assert [r.run_id for r in store.list_runs()] == ["r1"]
        assert store.verify_chain("r1").ok
        with pytest.raises(ReadOnlyStoreError):
            store.append("r1", 1, [NewEvent(type="t", payload={"n": 2})])
    with EventStore.open(postgres_url, read_only=None) as store:
        assert not store.read_only  # never guessed for a server
