"""``benchmarks/verify_bench.py`` on two tiny ledgers: a smoke test of the instrument, not a
measurement (its figures come from the scale grid's largest runs)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from tests.e2e.runs import write_config
from tests.support.benchmarks import load_benchmark


@pytest.fixture(scope="module")
def ledgers(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Two small signed runs (3 agents, 1 and 2 rounds), each alone in its ledger."""
    folder = tmp_path_factory.mktemp("verify-bench")
    made = []
    for rounds in (1, 2):
        config = write_config(folder / f"3x{rounds}.yaml", agents=3, rounds=rounds)
        db = folder / f"3x{rounds}.db"
        result = CliRunner().invoke(app, ["run", str(config), "--db", str(db), "-q"])
        assert result.exit_code == 0, result.output
        made.append(str(db))
    return made


def test_each_ledger_is_verified_and_timed(
    ledgers: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_benchmark("verify_bench.py", "maai_verify_bench")
    bench.main([*ledgers, "--repeat", "1"])
    out = capsys.readouterr().out
    for db in ledgers:
        assert f"{db}: " in out and " events, wall " in out
    assert "slope of wall time against events" in out
    bench.main([ledgers[0], "--chain-only"])
    assert "verify_chain best cpu" in capsys.readouterr().out


def test_a_ledger_that_does_not_verify_is_not_timed(ledgers: list[str], tmp_path: Path) -> None:
    bench = load_benchmark("verify_bench.py", "maai_verify_bench_broken")
    broken = tmp_path / "broken.db"
    with sqlite3.connect(ledgers[0]) as source, sqlite3.connect(broken) as copy:
        source.backup(copy)  # with what the write-ahead log still holds
    with sqlite3.connect(broken) as raw:
        # The ledger's append-only triggers dropped first, as a tamperer would.
        triggers = raw.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        for (name,) in triggers.fetchall():
            raw.execute(f"DROP TRIGGER {name}")
        raw.execute("UPDATE events SET hash = 'x' || substr(hash, 2) WHERE seq = 3")
    with pytest.raises(SystemExit, match="verify failed"):
        bench.main([str(broken), "--repeat", "1"])
