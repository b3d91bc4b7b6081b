"""``benchmarks/world_decide_bench.py``: a tiny drive, answers one by one and in bursts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "world_decide_bench.py"


def test_the_world_decide_bench_drives_a_world_to_its_end_whatever_the_batch() -> None:
    spec = importlib.util.spec_from_file_location("maai_world_decide_bench", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    for world in ("free", "pgg"):
        config = bench._world_bench().world_config(world, 3, 3, 0.0, 7)
        one_by_one = bench.drive(config, 1, 7)
        in_bursts = bench.drive(config, 20, 7)
        assert one_by_one["ticks"] == in_bursts["ticks"] == 3
        # The same calls answered and the same events derived, in fewer decisions.
        for figure in ("answers", "built", "events"):
            assert one_by_one[figure] == in_bursts[figure] > 0
        assert in_bursts["decisions"] < one_by_one["decisions"]
