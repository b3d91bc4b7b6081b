"""``benchmarks/fork_bench.py`` on a tiny run: a smoke test of the instrument, not a
measurement (its figures come from a 16 x 40 run, run by hand)."""

from __future__ import annotations

from tests.support.benchmarks import load_benchmark


def test_a_fork_is_timed_and_its_bytes_and_savings_counted() -> None:
    bench = load_benchmark("fork_bench.py", "maai_fork_bench")
    figures = bench.main(["--agents", "3", "--rounds", "2", "--replicates", "2"])
    assert 0 < figures["point_seq"] < figures["parent_events"]
    # The child's prefix is the parent's stored text, plus its run.forked.
    assert figures["child_bytes_before_own_events"] > figures["parent_prefix_bytes"]
    assert figures["phase1_calls_per_run"] > 0
    assert figures["calls_saved"] == 2 * figures["phase1_calls_per_run"]
    assert figures["tokens_saved"] > 0
