"""``maai db upgrade``, ``maai runs``, and how the CLI reports a bad store."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.ledger import EventStore, NewEvent, head_revision

runner = CliRunner()


def one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_help() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0, result.output
    assert "runs" in result.stdout and "db" in result.stdout
    result = runner.invoke(app, ["db", "--help"])
    assert result.exit_code == 0 and "upgrade" in result.stdout


def test_db_upgrade_creates_an_upgraded_ledger(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    result = runner.invoke(app, ["db", "upgrade", "--db", str(path)])
    assert result.exit_code == 0, result.output
    assert f"upgraded schema from empty to revision {head_revision()}" in result.stdout
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (head_revision(),)
        ]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        conn.close()
    assert {"runs", "events"} <= tables

    again = runner.invoke(app, ["db", "upgrade", "--db", str(path)])
    assert again.exit_code == 0 and "up to date" in again.stdout


def test_runs_on_an_empty_ledger(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    result = runner.invoke(app, ["runs", "--db", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert result.stderr.strip() == f"no runs in {path}"


def test_runs_lists_runs(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with EventStore.open(str(path)) as store:
        store.create_run("exp-0001", "frohlich", {})
        store.create_run("exp-0002", "frohlich", {})
        store.append("exp-0002", 0, [NewEvent(type="t", payload={}) for _ in range(12)])
        store.set_status("exp-0002", "running")
        created = store.get_run("exp-0001").created_at.strftime("%Y-%m-%d %H:%M")
    result = runner.invoke(app, ["runs", "--db", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[0].split() == [
        "run", "id", "experiment", "config", "models", "seed", "status", "outcome", "calls",
        "tokens", "cost", "duration", "events", "created", "(UTC)", "labels",
    ]  # fmt: skip
    # A config this version cannot read and an unknown event leave those columns unknown,
    # and the listing goes on.
    assert [lines[1].split()[i] for i in (0, 1, 5, -3)] == ["exp-0001", "frohlich", "created", "0"]
    assert [lines[2].split()[i] for i in (0, 1, 5, -3)] == ["exp-0002", "frohlich", "running", "12"]
    assert created in lines[1]
    assert len(lines) == 3


def bad_locations(tmp_path: Path) -> dict[str, tuple[str, str]]:
    text_file = tmp_path / "notes.txt"
    text_file.write_text("not a database\n")
    return {
        "missing-folder": (str(tmp_path / "nope" / "x.db"), "does not exist"),
        "not-a-database": (str(text_file), "is not a SQLite database"),
        "malformed-url": ("postgresql://u@h:port/db", "malformed"),
        "unsupported-scheme": ("mysql://u@h/db", "unsupported database URL scheme"),
        "unreachable-postgres": ("postgresql://postgres@127.0.0.1:1/x", "cannot reach"),
    }


@pytest.mark.parametrize("command", [["runs"], ["db", "upgrade"]], ids=["runs", "db-upgrade"])
@pytest.mark.parametrize(
    "case",
    [
        "missing-folder",
        "not-a-database",
        "malformed-url",
        "unsupported-scheme",
        "unreachable-postgres",
    ],
)
def test_bad_store_gives_one_red_line(tmp_path: Path, command: list[str], case: str) -> None:
    location, fragment = bad_locations(tmp_path)[case]
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    result = runner.invoke(app, [*command, "--db", location])
    assert result.exit_code == 2, result.output
    assert fragment in one_error_line(result.stderr)
    assert result.stdout == ""
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_unwritable_folder_via_cli(unwritable_folder: Path) -> None:
    for command in (["runs"], ["db", "upgrade"]):
        result = runner.invoke(app, [*command, "--db", str(unwritable_folder / "x.db")])
        assert result.exit_code == 2, result.output
        assert "not writable" in one_error_line(result.stderr)
    assert list(unwritable_folder.iterdir()) == []


@pytest.mark.postgres
def test_postgres_needs_db_upgrade_first(postgres_url: str) -> None:
    refused = runner.invoke(app, ["runs", "--db", postgres_url])
    assert refused.exit_code == 2
    assert "maai db upgrade --db" in one_error_line(refused.stderr)
    upgraded = runner.invoke(app, ["db", "upgrade", "--db", postgres_url])
    assert upgraded.exit_code == 0, upgraded.output
    assert "upgraded schema from empty" in upgraded.stdout
    listed = runner.invoke(app, ["runs", "--db", postgres_url])
    assert listed.exit_code == 0 and "no runs" in listed.stderr


def test_the_installed_command_reports_without_a_traceback(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "maai"
    if not script.exists():
        pytest.skip("the maai console script is not installed next to this Python")
    missing = tmp_path / "nope" / "x.db"
    result = subprocess.run(
        [str(script), "runs", "--db", str(missing)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "does not exist" in one_error_line(result.stderr)
    assert not (tmp_path / "nope").exists()
