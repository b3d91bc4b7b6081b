"""``benchmarks/scale_bench.py`` on a one-cell grid: a smoke test of the instrument, not a
measurement (its figures come from the whole grid, run by hand)."""

from __future__ import annotations

from pathlib import Path

from tests.support.benchmarks import load_benchmark


def test_one_cell_is_run_read_and_measured(tmp_path: Path) -> None:
    bench = load_benchmark("scale_bench.py", "maai_scale_bench")
    figures = bench.main(["--agents", "3", "--rounds", "1", "--json", "--keep", str(tmp_path)])
    (cell,) = figures["cells"]
    assert cell["agents"] == 3 and cell["rounds"] == 1
    assert cell["events"] > 100 and cell["ledger_bytes"] > 0
    assert 0 < cell["stored_payload_bytes"] < cell["whole_payload_bytes"]
    assert set(cell["seconds"]) == set(bench.COMMANDS) == set(cell["peak_mib"])
    assert all(s > 0 for s in cell["seconds"].values())
    assert figures["slopes"]["ledger_bytes"] is None  # one point has no slope
    rates = figures["largest"]["events_per_s"]
    assert rates["verify"] == cell["events"] / cell["seconds"]["verify"]
    assert (tmp_path / "3x1" / "out" / "choices.csv").exists()
    assert abs(bench.slope([1, 10, 100], [2, 20, 200]) - 1.0) < 1e-9
    assert abs(bench.slope([1, 10, 100], [1, 100, 10000]) - 2.0) < 1e-9


def test_one_world_cell_is_run_read_and_measured(tmp_path: Path) -> None:
    bench = load_benchmark("scale_bench.py", "maai_scale_bench_world")
    figures = bench.main(
        [
            *("--experiment", "world", "--agents", "3", "--rounds", "2"),
            *("--commands", "run,verify,tables", "--json", "--keep", str(tmp_path)),
        ]
    )
    (cell,) = figures["cells"]
    assert cell["agents"] == 3 and cell["rounds"] == 2  # rounds: ticks, for the world
    assert cell["events"] > 20 and cell["ledger_bytes"] > 0
    assert 0 < cell["stored_payload_bytes"] <= cell["whole_payload_bytes"]
    assert set(cell["seconds"]) == {"run", "verify", "tables"}
    assert (tmp_path / "3x2" / "out" / "events.csv").exists()
