"""``benchmarks/fold_bench.py`` on tiny runs of every experiment: a smoke test of the
instrument, not a measurement (its figures come from the 1k and 10k sizes, run by hand)."""

from __future__ import annotations

from typing import Any

import pytest

from maai.domain import experiments
from tests.support.benchmarks import load_benchmark


def test_every_experiment_is_recorded_folded_and_timed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = load_benchmark("fold_bench.py", "maai_fold_bench")
    every = "frohlich,collaboration,world"
    assert bench.main(["--experiment", every, "--sizes", "3x1", "--repeat", "1"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    timed = {row[0]: row for row in rows if row and row[0] in bench.EXPERIMENTS}
    assert set(timed) == set(bench.EXPERIMENTS)
    for row in timed.values():
        assert int(row[2]) > 10  # events recorded
        # one "seconds s rate/s" cell per measure, after the first columns and a "|"
        rates = [cell for cell in row if cell.endswith("/s")]
        assert len(rates) == len(bench.MEASURES)
        assert all(float(rate[:-2].replace(",", "")) > 0 for rate in rates)


def test_a_timed_fold_that_disagrees_with_load_state_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = load_benchmark("fold_bench.py", "maai_fold_bench_wrong")
    real = bench.load_state

    def other_state(store: Any, run_id: str) -> tuple[Any, int]:
        _, head = real(store, run_id)
        return experiments.get("world").initial_state(), head  # as if nothing were folded

    monkeypatch.setattr(bench, "load_state", other_state)
    with pytest.raises(AssertionError, match="the timed fold and load_state disagree"):
        bench.main(["--experiment", "world", "--sizes", "3x1", "--repeat", "1"])
