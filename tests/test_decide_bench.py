"""``benchmarks/decide_bench.py``: a tiny drive, both ways (requests built when sent, and
built at once as before) make the same calls, and the figures are printed."""

from __future__ import annotations

import pytest

from maai.domain import walk
from maai.domain.calls import ModelRequest
from tests.support.benchmarks import load_benchmark


def test_both_ways_make_the_same_calls(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_benchmark("decide_bench.py", "maai_decide_bench")
    config = bench.config_of(3, 1, seed=3)
    _, at_once = bench.drive(config, build_at_once=True)
    _, when_sent = bench.drive(config, build_at_once=False)
    assert at_once == when_sent > 20
    # The eager way is put back once the drive is over: calls are lazy again.
    request = ModelRequest(address="a", agent="x", purpose="p", model="m", system="s", input="i")
    assert not walk.Call.later("a", lambda: request).built
    assert bench.main(["--agents", "3", "--rounds", "1", "--repeat", "1"]) == 0
    printed = capsys.readouterr().out
    assert "built at once (before)" in printed and "ms per call" in printed
