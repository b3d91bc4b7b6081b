"""Every installed experiment, plug-ins included (issue 27, "How it is checked"): its example
config run by the engine with its own simulated participants, whose answers are rewritten as
real models write them (``tests/support/realistic.py``: quoting the prompt, earlier rounds,
tables, other agents and their own private lines, in mixed languages), passes every audit it
has. The per-experiment tests (``test_realistic_participant.py``) add languages, the
manipulator and planted bugs; this one holds no experiment's shape."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain import experiments
from maai.domain.calls import ModelRequest
from maai.domain.config import UTILITY
from maai.domain.embeddings import EMBEDDER
from maai.domain.events import ModelCallCompleted
from maai.domain.experiment import SimulatedPolicy
from maai.ledger import EventStore
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import start_run
from maai.runtime.simulated import SimulatedModel
from maai.testing.runs import example_config
from tests.support.realistic import ASIDES, RealisticParticipant

DONE = ModelCallCompleted.TYPE


class Realistic:
    """A simulated policy whose answers the realistic participant rewrites."""

    def __init__(self, inner: SimulatedPolicy) -> None:
        self.inner = inner
        self.latency_ms = 0
        self._schema: dict[str, Any] | None = None
        self._writer = RealisticParticipant(lambda r: inner.answer(r, self._schema))

    def answer(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        self._schema = schema
        return self._writer(request)


@pytest.mark.parametrize("name", experiments.names())
def test_a_realistic_run_of_every_experiment_passes_every_audit(name: str, tmp_path: Path) -> None:
    experiment = experiments.get(name)
    config = example_config(name)
    models = {
        user.who: SimulatedModel(Realistic(experiment.simulated_participant(config, user.who)))
        for user in config.model_users()
        if user.who not in (UTILITY, EMBEDDER)
    }
    db = str(tmp_path / "ledger.db")
    with EventStore.open(db) as store:
        run_id = start_run(store, config, run_id="realistic")
        executor = LiveExecutor(config, env={}, models=models)
        asyncio.run(Engine(store, run_id, executor).run())
        assert store.get_run(run_id).status == "completed"
        answers = [e.payload["answer"]["text"] for e in store.read(run_id) if e.type == DONE]
    assert any(a in text for a in ASIDES for text in answers), "the answers are rewritten"
    runner = CliRunner()
    for audit in ("protocol", "leaks", "votes"):
        result = runner.invoke(app, ["audit", audit, run_id, "--db", db])
        if audit == "votes" and "has no votes" in result.output:
            continue
        assert result.exit_code == 0, f"{name}: maai audit {audit}:\n{result.output}"
