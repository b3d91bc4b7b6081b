"""A SQLite ledger held by another process beyond the busy timeout: ``maai run`` and ``maai
resume`` say so in one line and exit 3, leaving no run ``running``; ``maai runs`` reads on
(readers never wait in WAL mode), and exits 3 only when the other process locks readers out
too. ``MAAI_BUSY_TIMEOUT_S`` shortens the wait."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.ledger import EventStore
from maai.runtime.runs import load_config, start_run
from tests.e2e.launcher import REPO

RUN_ID = "20990101-000000-busy00"
TIMEOUT = "0.3"

HOLD = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=5)
if sys.argv[2] == "exclusive":
    # Readers are locked out too: no shared memory, an exclusive lock held to the end.
    conn.execute("PRAGMA locking_mode = EXCLUSIVE")
    conn.execute("BEGIN EXCLUSIVE")
    conn.execute("UPDATE runs SET status = status")
else:
    conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(60)
"""


@contextmanager
def held(db: Path, how: str = "immediate") -> Iterator[None]:
    """Another process holds the ledger's write lock (or, ``exclusive``, every lock)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(db), how], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        yield
    finally:
        holder.kill()
        holder.wait(10)


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    """A ledger holding one interrupted run (its first event recorded)."""
    db = tmp_path / "ledger.db"
    config = load_config(REPO / "configs" / "default.yaml")
    with EventStore.open(str(db)) as store:
        start_run(store, config, run_id=RUN_ID)
        store.set_status(RUN_ID, "interrupted")
    return db


def invoke(*args: str, timeout: str = TIMEOUT) -> Result:
    env = {"COLUMNS": "80", "MAAI_BUSY_TIMEOUT_S": timeout, "OPENAI_AGENTS_DISABLE_TRACING": "1"}
    return CliRunner().invoke(app, list(args), env=env)


def stderr_line(result: Result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


def statuses(db: Path) -> dict[str, str]:
    with EventStore.open(str(db)) as store:
        return {run.run_id: run.status for run in store.list_runs()}


def test_run_on_a_locked_store_exits_3_and_creates_nothing(ledger: Path) -> None:
    with held(ledger):
        result = invoke("run", str(REPO / "configs" / "default.yaml"), "--db", str(ledger), "-q")
    assert result.exit_code == 3, result.output
    line = stderr_line(result)
    assert line.startswith("error: creating run ")
    assert f"{ledger} stayed locked by another writer for more than 0.3s" in line
    assert line.endswith("no run was created")
    assert statuses(ledger) == {RUN_ID: "interrupted"}


def test_resume_on_a_locked_store_exits_3_and_leaves_the_run_resumable(ledger: Path) -> None:
    with held(ledger):
        result = invoke("resume", RUN_ID, "--db", str(ledger), "-q")
    assert result.exit_code == 3, result.output
    line = stderr_line(result)
    assert line.startswith("stopped: ") and "stayed locked by another writer" in line
    assert line.endswith(f"continue it with: maai resume {RUN_ID}")
    assert statuses(ledger) == {RUN_ID: "interrupted"}
    # Once the other process is gone, the run resumes to its end.
    done = invoke("resume", RUN_ID, "--db", str(ledger), "-q")
    assert done.exit_code == 0, done.output
    assert statuses(ledger) == {RUN_ID: "completed"}


def test_runs_reads_on_while_another_process_writes(ledger: Path) -> None:
    with held(ledger):
        result = invoke("runs", "--db", str(ledger))
    assert result.exit_code == 0, result.output
    assert RUN_ID in result.stdout


def test_runs_exits_3_when_readers_are_locked_out(ledger: Path) -> None:
    with held(ledger, "exclusive"):
        result = invoke("runs", "--db", str(ledger))
        shown = invoke("show", RUN_ID, "--db", str(ledger))
    assert result.exit_code == 3, result.output
    line = stderr_line(result)
    assert line.startswith("error: ") and f"{ledger} stayed locked by another writer" in line
    assert shown.exit_code == 3 and "stayed locked" in stderr_line(shown)


@pytest.mark.parametrize("value", ["soon", "0", "-1", "nan", "inf"])
def test_a_bad_busy_timeout_is_one_line(ledger: Path, value: str) -> None:
    result = invoke("runs", "--db", str(ledger), timeout=value)
    assert result.exit_code == 2
    assert stderr_line(result).startswith(f"error: MAAI_BUSY_TIMEOUT_S={value!r}: expected")
