"""A study's page follows the study while a worker runs it (docs/view.md, docs/studies.md
"Many machines"): done, running, failed and pending runs, the ETA, and the cost against the
budget of the plan the study's jobs carry; a study run on one machine gets its plan and
budget from its file (``maai view --study FILE``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import typer
from starlette.testclient import TestClient

from maai.cli.view_commands import study_plans
from maai.ledger import EventStore
from maai.runtime.view.app import create_app
from tests.runtime.test_study import invoke, write_study

PRICES = {"simulated": {"input": 2.0, "output": 10.0}}


def test_the_study_page_shows_progress_while_a_worker_runs_the_study(
    postgres_url: str, tmp_path: Path
) -> None:
    EventStore.open(postgres_url, upgrade=True).close()
    study = write_study(
        tmp_path, factors={"exchanges": [1, 2]}, replicates=1, prices=PRICES, budget_usd=100
    )
    submitted = invoke("study", "submit", str(study), "--db", postgres_url)
    assert submitted.exit_code == 0, submitted.output
    client = TestClient(create_app(postgres_url))
    before = client.get("/studies/grid/live").json()
    assert before["progress"] == {
        "done": 0,
        "running": 0,
        "failed": 0,
        "interrupted": 0,
        "pending": 2,
    }
    assert before["total"] == 2 and before["budget_usd"] == 100 and before["eta_s"] is None
    page = client.get("/studies/grid").text
    assert 'id="study-budget">$100.00</span> budget' in page

    worker = subprocess.Popen(
        [sys.executable, "-m", "maai", "worker", "--db", postgres_url, "--burst"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    seen: list[dict[str, Any]] = []
    try:
        deadline = time.monotonic() + 180
        while not seen or seen[-1]["progress"]["done"] < 2:
            assert time.monotonic() < deadline, seen[-1:]
            assert worker.poll() in (None, 0), worker.stderr.read().decode()  # type: ignore[union-attr]
            seen.append(client.get("/studies/grid/live").json())
            time.sleep(0.1)
        assert worker.wait(timeout=60) == 0, worker.stderr.read().decode()  # type: ignore[union-attr]
    finally:
        if worker.poll() is None:
            worker.terminate()
            worker.wait(timeout=20)
    # Seen under way: some done and some not, or a run running.
    under_way = [s for s in seen if s["progress"]["running"] or 0 < s["progress"]["done"] < 2]
    assert under_way, seen
    assert any(s["eta_s"] is not None for s in under_way if s["progress"]["done"])
    done = seen[-1]
    assert done["progress"]["pending"] == 0 and done["progress"]["running"] == 0
    assert done["cost_usd"] > 0 and done["eta_s"] is None
    spent = f"{100 * done['cost_usd'] / 100:.0f}%"
    page = client.get("/studies/grid").text
    assert f'id="study-spent">{spent}</span>' in page and 'id="study-eta">done' in page


def test_a_study_file_gives_a_study_run_on_one_machine_its_plan_and_budget(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "ledger.db")
    EventStore.open(db, upgrade=True).close()
    study = write_study(
        tmp_path, factors={"exchanges": [1, 2]}, replicates=1, prices=PRICES, budget_usd=50
    )
    client = TestClient(create_app(db, plans=study_plans([str(study)], db)))
    before = client.get("/studies/grid/live").json()  # no run in the ledger yet
    assert before["progress"]["pending"] == 2 and before["total"] == 2
    assert before["budget_usd"] == 50
    ran = invoke("study", "run", str(study), "--db", db, "-q")
    assert ran.exit_code == 0, ran.output
    after = client.get("/studies/grid/live").json()
    assert after["progress"]["done"] == 2 and after["progress"]["pending"] == 0
    assert 0 < after["cost_usd"] < 50
    page = client.get("/studies/grid").text
    assert 'id="study-budget">$50.00</span> budget' in page and "(those in the ledger)" not in page
    without = TestClient(create_app(db)).get("/studies/grid").text
    assert "(those in the ledger)" in without and "study-budget" not in without
    with pytest.raises(typer.Exit) as refused:
        study_plans([str(tmp_path / "missing.yaml")], db)
    assert refused.value.exit_code == 2
