"""``benchmarks/fold_sql_bench.py`` on a tiny run: a smoke test of the instrument, not a
measurement. Every layout it times must answer with the rows the fold's own query gives, or
its figures would compare different work."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.benchmarks import load_benchmark


def _bench() -> ModuleType:
    return load_benchmark("fold_sql_bench.py", "maai_fold_sql_bench")


def test_every_layout_reads_the_folds_rows(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    assert bench.main(["--size", "3x1", "--rounds", "1", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    for layout in bench.LAYOUTS:
        assert f"{layout} |" in out
    assert "events; SQL CPU time" in out


def test_a_layout_that_reads_other_rows_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _bench()
    stored = bench.LAYOUTS["stored"]
    monkeypatch.setitem(
        bench.LAYOUTS, "wrong", (stored[0], lambda: lambda c, r, a: stored[1]()(c, r, a)[1:])
    )
    with pytest.raises(AssertionError, match="'wrong' reads other rows"):
        bench.main(["--size", "3x1", "--rounds", "1", "--repeat", "1"])
