"""``benchmarks/verify_bench.py`` on two tiny ledgers of the scale benchmark: a smoke test of
the instrument, not a measurement (its figures come from the scale grid's largest runs)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.support.benchmarks import load_benchmark


@pytest.fixture(scope="module")
def ledgers(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("verify-bench")
    scale = load_benchmark("scale_bench.py", "maai_scale_bench_for_verify")
    keep = ["--keep", str(folder), "--json"]
    scale.main(["--agents", "3", "--rounds", "1,2", "--commands", "run", *keep])
    return [str(folder / cell / "ledger.db") for cell in ("3x1", "3x2")]


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
    broken.write_bytes(Path(ledgers[0]).read_bytes())
    with sqlite3.connect(broken) as raw:
        # The ledger's append-only triggers dropped first, as a tamperer would.
        triggers = raw.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        for (name,) in triggers.fetchall():
            raw.execute(f"DROP TRIGGER {name}")
        raw.execute("UPDATE events SET hash = 'x' || substr(hash, 2) WHERE seq = 3")
    with pytest.raises(SystemExit, match="verify failed"):
        bench.main([str(broken), "--repeat", "1"])
