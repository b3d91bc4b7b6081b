"""``benchmarks/study_bench.py`` on a two-run study: a smoke test of the instrument, not a
measurement (its figures come from 100 runs, run by hand)."""

from __future__ import annotations

from tests.support.benchmarks import load_benchmark

TINY = ["--runs", "2", "--concurrency", "2", "--agents", "3", "--rounds", "1"]


def test_a_study_is_run_and_compared_with_its_ideal() -> None:
    bench = load_benchmark("study_bench.py", "maai_study_bench")
    figures = bench.main([*TINY, "--latency-ms", "5"])
    assert figures["completed"] == figures["runs"] == 2
    assert figures["events"] > 100 and figures["participant_calls"] > 10
    # No study can finish before the longest run's chain of calls: the ideal is a floor.
    assert figures["ideal_s"] >= 0.005 * 2
    assert figures["ratio"] >= 1.0


def test_answers_at_once_have_no_ideal_to_compare_with() -> None:
    bench = load_benchmark("study_bench.py", "maai_study_bench_zero")
    figures = bench.main([*TINY, "--latency-ms", "0"])
    assert figures["completed"] == 2
    assert figures["ideal_s"] == 0 and figures["ratio"] is None
