"""The ``runs`` row is a cache of the hashed events, never a source: verify reports a row
that disagrees with the events, resume takes its config from ``run.started``, and replay and
show refuse a broken chain (``--no-check`` reads it anyway)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.ledger import EventStore
from maai.runtime.runs import stored_config

runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


@pytest.fixture
def ledger(tmp_path: Path) -> tuple[str, str]:
    db = str(tmp_path / "l.db")
    done = invoke("run", "collaboration", "--db", db, "-q")
    assert done.exit_code == 0, done.output
    with EventStore.open(db) as store:
        (run,) = store.list_runs()
    return db, run.run_id


def tamper(db: str, *statements: str) -> None:
    """As an adversary with write access would: the append-only triggers dropped first."""
    lite = sqlite3.connect(db, isolation_level=None)
    try:
        triggers = lite.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'"
        ).fetchall()
        for (name,) in triggers:
            lite.execute(f"DROP TRIGGER {name}")
        for statement in statements:
            lite.execute(statement)
    finally:
        lite.close()


def test_a_clean_run_verifies(ledger: tuple[str, str]) -> None:
    db, run_id = ledger
    result = invoke("verify", run_id, "--db", db)
    assert result.exit_code == 0, result.output


def test_a_truncated_run_with_its_head_fixed_fails_verify(ledger: tuple[str, str]) -> None:
    db, run_id = ledger
    tamper(
        db,
        f"DELETE FROM events WHERE run_id = '{run_id}' AND seq > 40",
        f"UPDATE runs SET head_seq = 40 WHERE run_id = '{run_id}'",
    )
    result = invoke("verify", run_id, "--db", db)
    assert result.exit_code == 1
    assert "the runs row says completed, but the last event (seq 40)" in result.stderr


def test_an_edited_config_in_the_runs_row_is_reported_and_never_used(
    ledger: tuple[str, str],
) -> None:
    db, run_id = ledger
    lite = sqlite3.connect(db, isolation_level=None)
    (config_text,) = lite.execute("SELECT config FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    config = json.loads(config_text)
    config["agents"][0]["provider"] = {"base_url": "https://elsewhere.example/v1"}
    lite.execute("UPDATE runs SET config = ? WHERE run_id = ?", (json.dumps(config), run_id))
    lite.close()
    result = invoke("verify", run_id, "--db", db)
    assert result.exit_code == 1
    assert "the runs row's config differs from the config in run.started" in result.stderr
    assert "agents" in result.stderr
    with EventStore.open(db) as store:
        _, recorded = stored_config(store, run_id)
    assert recorded.model_dump(mode="json")["agents"][0]["provider"] is None


def test_a_row_naming_another_experiment_is_reported(ledger: tuple[str, str]) -> None:
    db, run_id = ledger
    tamper(db, f"UPDATE runs SET kind = 'frohlich' WHERE run_id = '{run_id}'")
    result = invoke("verify", run_id, "--db", db)
    assert result.exit_code == 1
    assert "names experiment 'frohlich', run.started 'collaboration'" in result.stderr


@pytest.mark.parametrize("command", ["replay", "show"])
def test_replay_and_show_refuse_a_broken_chain(ledger: tuple[str, str], command: str) -> None:
    db, run_id = ledger
    tamper(
        db,
        f"""UPDATE events SET payload = replace(payload, ':"collaborative"', ':"individual"') """
        f"WHERE run_id = '{run_id}' AND type = 'points.awarded'",
    )
    refused = invoke(command, run_id, "--db", db)
    assert refused.exit_code == 1
    assert "hash chain broken at seq" in refused.stderr and "--no-check" in refused.stderr
    forensic = invoke(command, run_id, "--db", db, "--no-check")
    assert forensic.exit_code == 0, forensic.output


def test_an_unreadable_event_is_one_line_not_a_traceback(ledger: tuple[str, str]) -> None:
    db, run_id = ledger
    tamper(
        db,
        f"UPDATE events SET payload = '{{\"nonsense\": 1}}' "
        f"WHERE run_id = '{run_id}' AND type = 'points.awarded'",
    )
    result = invoke("replay", run_id, "--db", db, "--no-check")
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "(points.awarded) cannot be read" in lines[0], lines
