"""``benchmarks/world_bench.py``: the critical path it derives from the call addresses, and
both worlds run for a few ticks: a smoke test of the instrument, not a measurement (its
figures come from the full sizes, run by hand; docs/performance.md, "World benchmark")."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.benchmarks import load_benchmark


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_benchmark("world_bench.py", "maai_world_bench")


def test_critical_path_from_addresses(bench: ModuleType) -> None:
    calls = bench.calls_of(
        [
            # Tick 0: Ann's action is read by the utility agent, then asked again (3 calls).
            "w/t0/Ann/act/1",
            "w/t0/Ben/act/1",
            "w/t0/Ann/act/1/extract/1",
            "w/t0/Ann/act/2",
            # Tick 1: Ben's scores are sent back once (3 calls with his action), Ann's not.
            "w/t1/Ann/importance/1",
            "w/t1/Ben/importance/1",
            "w/t1/Ann/act/1",
            "w/t1/Ben/importance/2",
            "w/t1/Ben/act/1",
        ]
    )
    assert calls.per_tick == {0: 4, 1: 5}
    assert calls.chain_per_tick == {0: 3, 1: 3}
    assert calls.critical_calls == 6
    assert calls.by_purpose == {
        "act": 4,
        "importance": 2,
        "extract": 1,
        "act asked again": 1,
        "importance asked again": 1,
    }
    with pytest.raises(ValueError, match="no place"):
        bench.calls_of(["p1/Ann/s1.1/ranking/1"])


def test_both_worlds_run_and_are_measured(bench: ModuleType) -> None:
    figures = bench.main(["--agents", "3", "--ticks", "3", "--latency-ms", "5", "--json"])
    assert [(f["world"], f["agents"]) for f in figures] == [("free", 3), ("pgg", 3)]
    for f in figures:
        assert f["ticks"] == 3 and f["outcome"] == "tick limit"
        assert f["calls"] == round(f["calls_per_tick_mean"] * 3) > 0
        assert f["calls_per_tick_max"] >= f["calls_per_tick_mean"]
        assert sum(f["calls_by_purpose"].values()) == f["calls"]
        assert f["events"] > f["calls"] and f["ledger_bytes"] > 0
        assert 3 <= f["critical_path_calls"] <= f["calls"]
        # Every call on the chain waits out its latency: no schedule can beat the chain.
        assert f["wall_s"] >= 0.99 * f["critical_path_s"]
        assert f["ratio"] == pytest.approx(f["wall_s"] / f["critical_path_s"])
