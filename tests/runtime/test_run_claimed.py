"""``run.claimed``, recorded when a study's worker takes a run (first, or continuing one
another worker began), is a fact no reducer reads: a run of any experiment holding it,
anywhere, folds to the same state, verifies against the current code, passes its protocol
audit and shows as before."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain import experiments
from maai.domain.config import ExperimentConfig
from maai.domain.events import Event, ModelCallRequested, RunClaimed, RunStarted
from maai.ledger import EventStore
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import start_run
from maai.runtime.verify import verify_events
from maai.runtime.writer import to_new_event
from maai.testing.runs import example_config
from tests.support.driver import make_config

TAKEN = RunClaimed(worker="lab-3", host="gpu-2", pid=4242, continues=True)


def _recorded(config: ExperimentConfig, folder: Path) -> list[Event]:
    """A run of ``config`` as the engine records it (simulated participants)."""
    with EventStore.open(str(folder / "recorded.db")) as store:
        run_id = start_run(store, config)
        engine = Engine(store, run_id, LiveExecutor(config, env={}), signer=None)
        asyncio.run(engine.run())
        experiment = experiments.get(config.experiment)
        return [
            experiment.registry.decode(s.type, s.schema_version, s.payload)
            for s in store.read(run_id)
        ]


# Every installed experiment runs its example config, save where a shorter run says as much:
# Frohlich's example discusses for ten rounds, one is enough here.
SHORTER: dict[str, Callable[[], ExperimentConfig]] = {
    "frohlich": lambda: make_config(phase2_rounds=1),
}


def _config(name: str) -> ExperimentConfig:
    return SHORTER[name]() if name in SHORTER else example_config(name)


def _taken_over(events: list[Event]) -> list[Event]:
    """``events`` with a claim after the start, inside a batch of calls in flight (right
    after a request), and before the end."""
    first_request = next(i for i, e in enumerate(events) if isinstance(e, ModelCallRequested))
    at = sorted({1, first_request + 1, len(events) // 2, len(events) - 1}, reverse=True)
    out = list(events)
    for index in at:
        out.insert(index, TAKEN)
    return out


@pytest.mark.parametrize("name", experiments.names())
def test_a_claimed_run_folds_verifies_and_audits_as_before(name: str, tmp_path: Path) -> None:
    events = _recorded(_config(name), tmp_path)
    started = events[0]
    assert isinstance(started, RunStarted)
    experiment = experiments.get(started.experiment)
    taken = _taken_over(events)
    assert sum(isinstance(e, RunClaimed) for e in taken) == 4

    plain = experiment.summarize("r", experiment.fold(events), "completed").data
    assert experiment.summarize("r", experiment.fold(taken), "completed").data == plain

    db = str(tmp_path / "l.db")
    with EventStore.open(db) as store:
        store.create_run("taken", started.experiment, started.config)
        store.append("taken", 0, [to_new_event(e) for e in taken])
        report = verify_events(store.read("taken"), experiment)
        assert report.ok, [d.describe() for d in report.divergences]
        assert report.derived > 0 and report.requests > 0
        decoded = [
            experiment.registry.decode(s.type, s.schema_version, s.payload)
            for s in store.read("taken")
        ]
        assert [e for e in decoded if isinstance(e, RunClaimed)] == [TAKEN] * 4

    runner = CliRunner()
    audit = runner.invoke(app, ["audit", "protocol", "taken", "--db", db], env={"COLUMNS": "200"})
    assert audit.exit_code == 0, audit.output
    shown = runner.invoke(app, ["show", "taken", "--db", db], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "taken by worker lab-3 on host gpu-2 (pid 4242)" in shown.output
