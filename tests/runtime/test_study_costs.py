"""A study's cost, budget and call limits (docs/studies.md "Cost", "Limits")."""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path
from typing import Any

import pytest

from maai.domain.costs import Price, Usage
from maai.ledger import EventStore
from maai.runtime import study as study_module
from maai.runtime.limits import CallLimits, PerMinute, ProviderLimit, provider_key
from tests.runtime.test_study import invoke, write_study

PRICES = {"simulated": {"input": 2.0, "output": 10.0}}


def test_cost_is_tokens_times_the_price_per_million() -> None:
    usage = Usage()
    usage.add("openai:gpt-x", 1_000_000, 100_000)
    usage.add("openai:gpt-x", 500_000, 0)
    usage.add("simulated", 10, 10)
    prices = {"openai:gpt-x": Price(input=0.5, output=4.0)}
    assert usage.cost_usd(prices) == 1.5 * 0.5 + 0.1 * 4.0  # the simulated model is free
    assert (
        Usage(calls={"other": 1}, input_tokens={"other": 1}, output_tokens={"other": 0}).cost_usd(
            prices
        )
        is None
    )  # no price, no cost: never a guess


def _runs(folder: Path) -> list[dict[str, str]]:
    with (folder / "runs.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_a_budget_stops_the_study_and_a_larger_one_finishes_it(tmp_path: Path) -> None:
    db = str(tmp_path / "ledger.db")
    study = write_study(
        tmp_path,
        factors={"exchanges": [1, 2]},
        replicates=4,
        concurrency=1,
        prices=PRICES,
        budget_usd=0.05,
    )
    result = invoke("study", "run", str(study), "--db", db, "-q")
    assert result.exit_code == 5, result.output
    assert "budget reached" in result.output and "were not started" in result.output
    with EventStore.open(db) as store:
        done = [i.run_id for i in store.list_runs() if i.status == "completed"]
    assert 0 < len(done) < 8
    study = write_study(
        tmp_path,
        factors={"exchanges": [1, 2]},
        replicates=4,
        concurrency=1,
        prices=PRICES,
        budget_usd=100,
    )
    result = invoke("study", "run", str(study), "--db", db, "-q")
    assert result.exit_code == 0, result.output
    assert f"{len(done)} run(s) were already completed" in result.output
    assert (
        invoke("study", "export", "grid", "--db", db, "--out", str(tmp_path / "t")).exit_code == 0
    )
    rows = _runs(tmp_path / "t")
    assert len(rows) == 8
    total = 0.0
    for row in rows:
        expected = (int(row["input_tokens"]) * 2.0 + int(row["output_tokens"]) * 10.0) / 1e6
        assert abs(float(row["cost_usd"]) - expected) < 1e-12
        total += expected
    assert "of $100.00" in result.output and f"${total:,.2f}" in result.output


def test_a_negative_budget_is_one_line(tmp_path: Path) -> None:
    study = write_study(tmp_path, budget_usd=-1)
    result = invoke("study", "run", str(study), "--db", str(tmp_path / "l.db"))
    assert result.exit_code == 2
    assert "study.yaml: budget_usd: Input should be greater than or equal to 0" in result.output


def test_calls_at_once_never_exceed_the_limits() -> None:
    async def main() -> tuple[int, int]:
        limits = CallLimits(3, {"slow": ProviderLimit(concurrency=1)})
        seen = {"slow": 0, "most_slow": 0}

        async def call(provider: str) -> None:
            async with limits.slot(provider):
                if provider == "slow":
                    seen["slow"] += 1
                    seen["most_slow"] = max(seen["most_slow"], seen["slow"])
                await asyncio.sleep(0.01)
                if provider == "slow":
                    seen["slow"] -= 1

        await asyncio.gather(*(call("slow" if i % 2 else "fast") for i in range(20)))
        return limits.most_in_flight, seen["most_slow"]

    most, most_slow = asyncio.run(main())
    assert most == 3 and most_slow == 1


def test_calls_per_minute_wait_for_the_window() -> None:
    now = [0.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    async def main() -> list[float]:
        limiter = PerMinute(3, clock=lambda: now[0], sleep=sleep)
        starts = []
        for _ in range(7):
            await limiter.wait()
            starts.append(now[0])
            now[0] += 1.0
        return starts

    starts = asyncio.run(main())
    assert starts == [0.0, 1.0, 2.0, 60.0, 61.0, 62.0, 120.0]
    assert all(s > 0 for s in slept)


def test_a_study_s_calls_wait_for_its_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[CallLimits] = []

    class Recorded(CallLimits):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(study_module, "CallLimits", Recorded)
    for limits, most in (({"calls": 1}, 1), ({}, None)):
        folder = tmp_path / str(len(made))
        folder.mkdir()
        study = write_study(folder, factors={"exchanges": [1]}, replicates=3, limits=limits)
        result = invoke("study", "run", str(study), "--db", str(folder / "l.db"), "-q")
        assert result.exit_code == 0, result.output
        assert "done 3" in result.output
        if most is not None:
            assert made[-1].most_in_flight == most
        else:  # three runs at once, unlimited: their calls overlap
            assert made[-1].most_in_flight > 1


def test_the_provider_of_a_model() -> None:
    assert provider_key("simulated", None) == "simulated"
    assert provider_key("openai:gpt-4o", None) == "openai"
    assert provider_key("llama3", "http://localhost:11434/v1/") == "http://localhost:11434/v1"


def test_corrected_prices_do_not_count_as_a_changed_study(tmp_path: Path) -> None:
    db = str(tmp_path / "l.db")
    study = write_study(tmp_path, factors={"exchanges": [1]}, replicates=1, prices=PRICES)
    assert invoke("study", "run", str(study), "--db", db, "-q").exit_code == 0
    cheaper = {"simulated": {"input": 1.0, "output": 5.0}}
    study = write_study(tmp_path, factors={"exchanges": [1]}, replicates=2, prices=cheaper)
    result = invoke("study", "run", str(study), "--db", db, "-q")
    assert result.exit_code == 0, result.output
    assert "1 run(s) were already completed" in result.output
    with EventStore.open(db) as store:  # each run keeps the prices it started with
        prices = {i.run_id: i.config["prices"]["simulated"]["input"] for i in store.list_runs()}
    assert prices == {"grid.c1.r1": 2.0, "grid.c1.r2": 1.0}
