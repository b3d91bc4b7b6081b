"""The collaboration game through the CLI and the real engine: ``maai run`` prints the
progress lines, then every export and audit works on the stored run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.ledger import EventStore

runner = CliRunner()


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """(db, run id, the output of ``maai run``)."""
    db = str(tmp_path_factory.mktemp("collab") / "l.db")
    result = runner.invoke(app, ["run", "collaboration", "--db", db])
    assert result.exit_code == 0, result.output
    with EventStore.open(db) as store:
        (run,) = store.list_runs()
    return db, run.run_id, result.output


def test_run_prints_the_progress(ledger: tuple[str, str, str]) -> None:
    output = ledger[2]
    for part in ("Step 1 · initial beliefs", "1. Ada", "→ Ben", "step 2: belief", "Points:"):
        assert part in output
    assert "game complete" in output or "game incomplete" in output


def test_exports(ledger: tuple[str, str, str], tmp_path: Path) -> None:
    db, run_id, _ = ledger
    log = runner.invoke(app, ["export", run_id, "--db", db])
    assert log.exit_code == 0 and '"format": "maai.collaboration_agent_log/1"' in log.output
    one = runner.invoke(app, ["export", run_id, "--db", db, "--agent", "Ben"])
    assert one.exit_code == 0 and list(json.loads(one.output)["agents"]) == ["Ben"]
    unknown = runner.invoke(app, ["export", run_id, "--db", db, "--agent", "Zed"])
    assert unknown.exit_code == 2 and "no agent named 'Zed'" in unknown.output
    md = runner.invoke(app, ["export", run_id, "--db", db, "-f", "transcript"])
    assert md.exit_code == 0 and "### Message 6 · Ben → Ada" in md.output
    tables = runner.invoke(
        app, ["export", run_id, "--db", db, "-f", "tables", "--out", str(tmp_path)]
    )
    assert tables.exit_code == 0, tables.output
    tables = {"beliefs", "messages", "decisions", "outcome", "model_calls"}
    assert {p.name for p in tmp_path.iterdir()} == {
        *(f"{name}.csv" for name in tables), *(f"{name}.parquet" for name in tables),
        "data_dictionary.md",
    }  # fmt: skip


def test_audits(ledger: tuple[str, str, str]) -> None:
    db, run_id, _ = ledger
    protocol = runner.invoke(app, ["audit", "protocol", run_id, "--db", db, "--rules"])
    assert protocol.exit_code == 0, protocol.output
    assert (
        "payoff (docs/collaboration.md §1)" in protocol.output and "ok: 16 rules" in protocol.output
    )
    leaks = runner.invoke(app, ["audit", "leaks", run_id, "--db", db])
    assert leaks.exit_code == 0 and "ok:" in leaks.output, leaks.output
    votes = runner.invoke(app, ["audit", "votes", run_id, "--db", db])
    assert votes.exit_code == 2 and "has no votes" in votes.output
