"""``benchmarks/append_bench.py`` on a tiny run: a smoke test of the instrument, not a
measurement. Its rows digest is what two checkouts are compared by, so it must be the same
for the same batches, however often they are appended and whether kept in a file or not."""

from __future__ import annotations

from pathlib import Path

from tests.support.benchmarks import load_benchmark


def test_the_same_batches_store_the_same_rows(tmp_path: Path) -> None:
    bench = load_benchmark("append_bench.py", "maai_append_bench")
    kept = tmp_path / "batches.pickle"
    args = ["--agents", "3", "--rounds", "1", "--repeat", "2", "--batches", str(kept)]
    first = bench.main(args)
    assert kept.exists()
    again = bench.main(args)  # read back from the file
    assert first["events"] > 100 and first["calls"] > 10 and first["cpu_s"] > 0
    assert len(first["rows_digest"]) == 1  # both appends stored the same bytes
    assert again["rows_digest"] == first["rows_digest"]
    assert again["events"] == first["events"]
