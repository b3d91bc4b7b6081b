"""``benchmarks/view_bench.py`` at a tiny size: a smoke test of the instrument, not a
measurement (its figures come from the full size, run by hand)."""

from __future__ import annotations

from pathlib import Path

from tests.support.benchmarks import load_benchmark


def test_a_tiny_ledger_is_served_and_timed(tmp_path: Path) -> None:
    bench = load_benchmark("view_bench.py", "maai_view_bench")
    figures = bench.main(
        [*("--agents", "3", "--rounds", "1", "--runs", "5", "--events", "2"), "--json"]
        + ["--keep", str(tmp_path)]
    )
    assert figures["long_run"]["events"] > 100
    assert figures["runs"] == 5  # the long run, the small one and three copies
    assert figures["first_screen_s"]["cold"] > 0 and figures["first_screen_s"]["bytes"] > 1000
    assert figures["runs_page_s"]["warm"] > 0
    assert figures["new_event_s"]["events"] == 2
    # A new event is seen within a poll interval and a request, however the load.
    assert 0 < figures["new_event_s"]["worst"] < bench.POLL_S + 5
