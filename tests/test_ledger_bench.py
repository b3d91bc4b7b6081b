"""``benchmarks/ledger_bench.py`` with a few hundred events: a smoke test of the instrument,
not a measurement (its figures come from 100,000 events, run by hand)."""

from __future__ import annotations

import pytest

from tests.support.benchmarks import load_benchmark


def test_the_store_is_timed_beside_raw_sqlite(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MAAI_TEST_POSTGRES_URL", raising=False)
    bench = load_benchmark("ledger_bench.py", "maai_ledger_bench")
    assert bench.main(["--events", "300", "--single", "10", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    for measured in ("append, 1 per commit", "read + deserialize", "verify_chain"):
        assert measured in out
    assert "executemany, rows ready" in out and "select + json.loads" in out
    assert "ratio EventStore / raw" in out
    assert "PostgreSQL: skipped" in out


def test_too_few_events_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_benchmark("ledger_bench.py", "maai_ledger_bench_few")
    with pytest.raises(SystemExit):
        bench.main(["--events", "1", "--repeat", "1"])
    assert "need --events >=" in capsys.readouterr().err
