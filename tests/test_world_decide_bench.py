"""``benchmarks/world_decide_bench.py``: a tiny drive, answers one by one and in bursts."""

from __future__ import annotations

from tests.support.benchmarks import load_benchmark


def test_the_world_decide_bench_drives_a_world_to_its_end_whatever_the_batch() -> None:
    bench = load_benchmark("world_decide_bench.py", "maai_world_decide_bench")
    for world in ("free", "pgg"):
        config = bench._world_bench().world_config(world, 3, 3, 0.0, 7)
        one_by_one = bench.drive(config, 1, 7)
        in_bursts = bench.drive(config, 20, 7)
        assert one_by_one["ticks"] == in_bursts["ticks"] == 3
        # The same calls answered and the same events derived, in fewer decisions.
        for figure in ("answers", "built", "events"):
            assert one_by_one[figure] == in_bursts[figure] > 0
        assert in_bursts["decisions"] < one_by_one["decisions"]
