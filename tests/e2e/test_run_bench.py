"""``benchmarks/run_bench.py``: the critical path it derives from the call addresses, and a
small real run (no wall time can beat the critical path the protocol allows)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.support.benchmarks import load_benchmark


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_benchmark("run_bench.py", "maai_run_bench")


def test_critical_path_from_addresses(bench: ModuleType) -> None:
    addresses = [
        # Phase 1: Ann's chain is 4 calls (an extraction and a second attempt), Ben's 2.
        "p1/Ann/s1.1/ranking/1",
        "p1/Ben/s1.1/ranking/1",
        "p1/Ann/s1.1/ranking/1/extract/1",
        "p1/Ben/s1.1/memory",
        "p1/Ann/s1.1/ranking/2",
        "p1/Ann/s1.1/memory",
        # Round 1: two speakers (4 calls), a poll where Ben needed 3 calls, round memories.
        "p2/r1/Ben/reasoning",
        "p2/r1/Ben/statement",
        "p2/r1/t1/poll/Ann/1",
        "p2/r1/t1/poll/Ben/1",
        "p2/r1/t1/poll/Ben/1/extract/1",
        "p2/r1/t1/poll/Ben/2",
        "p2/r1/t1/ballot/Ann/1",
        "p2/r1/t1/ballot/Ben/1",
        "p2/r1/Ann/memory",
        "p2/r1/Ben/memory",
        "p2/r1/Ben/memory/shorten",
        # After the discussion.
        "p2/s2.2/Ann/memory",
        "p2/s2.2/Ben/memory",
        "p2/Ann/s2.3/ranking/1",
        "p2/Ann/s2.3/memory",
        "p2/Ben/s2.3/ranking/1",
    ]
    path = bench.critical_path(addresses)
    assert path.phase1.cost == 4
    (shape,) = path.rounds.values()
    assert shape.speaker_calls == 2
    assert [(s.name, s.cost) for s in shape.stages] == [
        ("p2/r1/t1/poll", 3),
        ("p2/r1/t1/ballot", 1),
        ("p2/r1/memory", 2),
    ]
    assert [(s.name, s.cost) for s in path.after_discussion] == [
        ("p2/s2.2/memory", 1),
        ("p2/s2.3/ranking+memory", 2),
    ]
    assert path.calls == 4 + 2 + 3 + 1 + 2 + 1 + 2
    with pytest.raises(ValueError, match="no place"):
        bench.critical_path(["p3/something"])


def test_small_run_is_never_faster_than_its_critical_path(
    bench: ModuleType, tmp_path: Path
) -> None:
    latency_ms = 10.0
    config = bench.bench_config(3, 2, latency_ms, 7)
    result = bench.run_once(config, latency_ms, "FULL", tmp_path)
    figures = bench.report(result, latency_ms, config)
    assert result.state.status == "completed"
    assert figures["calls"] == sum(p["calls"] for p in figures["by_phase"].values())
    assert figures["critical_path_calls"] >= figures["phase1_chain_calls"] > 0
    # Every call on the chain sleeps its latency: no schedule can beat the chain.
    assert figures["wall_s"] >= 0.99 * figures["critical_path_s"]
    assert figures["ratio"] == pytest.approx(figures["wall_s"] / figures["critical_path_s"])
