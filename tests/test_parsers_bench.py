"""``benchmarks/parsers_bench.py``: every parser on every degenerate answer, at one small
size, and the figures are printed."""

from __future__ import annotations

import pytest

from tests.support.benchmarks import load_benchmark


def test_the_parsers_benchmark_prints_a_row_per_parser_and_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = load_benchmark("parsers_bench.py", "maai_parsers_bench")
    assert bench.main(["--sizes", "500,1000"]) == 0
    printed = capsys.readouterr().out
    rows = [line for line in printed.splitlines() if line.endswith(" ms")]
    assert len(rows) == len(bench.PARSERS) * len(bench.answers(500))
    assert "slowest at 1,000 characters" in printed
