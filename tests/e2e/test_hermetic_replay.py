"""Hermetic replay: with the network blocked and every model failing when called, ``maai
replay``, ``maai show`` and ``maai verify`` still work on a recorded run, and the protocol
re-runs from the recording alone to the same events."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.calls import ModelAnswer, ModelRequest
from maai.domain.events import ModelCallCompleted, ModelCallRequested
from maai.ledger import EventStore
from maai.runtime.engine import Engine
from maai.runtime.executors import RecordedExecutor
from maai.runtime.fold import load_state
from maai.runtime.replay import ReplayCaller
from maai.runtime.runs import load_config, run_experiment, start_run
from tests.e2e.history import decode, differences, domain_history
from tests.e2e.runs import Recorded


def recorded_calls(store: EventStore, run_id: str) -> list[tuple[ModelRequest, ModelAnswer]]:
    requests: dict[str, ModelRequest] = {}
    calls = []
    for stored in store.read(run_id):
        event = decode(stored)
        if isinstance(event, ModelCallRequested):
            requests[event.request.address] = event.request
        elif isinstance(event, ModelCallCompleted):
            calls.append((requests[event.address], event.answer))
    return calls


def test_replay_show_and_verify_work_offline(recorded_run: Recorded, offline: list[Any]) -> None:
    with EventStore.open(recorded_run.db) as store:
        info = store.get_run(recorded_run.run_id)
        state, head = load_state(store, recorded_run.run_id)
        experiment = run_experiment(store, recorded_run.run_id)
    expected = experiment.summarize(recorded_run.run_id, state, info.status).data
    assert expected["status"] == "completed" and expected["calls"] > 0

    runner = CliRunner()
    db = ["--db", recorded_run.db]
    as_json = runner.invoke(app, ["replay", recorded_run.run_id, *db, "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.stdout) == expected

    replay = runner.invoke(app, ["replay", recorded_run.run_id, *db])
    assert replay.exit_code == 0, replay.output
    assert "status: completed" in replay.stdout

    show = runner.invoke(app, ["show", recorded_run.run_id, *db])
    assert show.exit_code == 0, show.output
    assert recorded_run.run_id in show.stdout and f"events {head}" in show.stdout

    verify = runner.invoke(app, ["verify", recorded_run.run_id, *db])
    assert verify.exit_code == 0, verify.output
    assert verify.stdout.startswith(f"ok: {head} events chained")

    assert offline == []  # nothing even tried to connect


def test_protocol_reruns_from_the_recording_alone(
    recorded_run: Recorded, offline: list[Any], tmp_path: Path
) -> None:
    """The engine fed by ``ReplayCaller`` (no model, no network) on a fresh ledger records the
    same domain events as the recorded run, asking only recorded calls, each exactly as
    recorded (same address, same request hash)."""
    config = load_config(recorded_run.config)
    agents = [a.name for a in config.agents]
    with EventStore.open(recorded_run.db) as store:
        calls = recorded_calls(store, recorded_run.run_id)
        original = domain_history(store.read(recorded_run.run_id), agents)
    caller = ReplayCaller.from_calls(calls)
    with EventStore.open(str(tmp_path / "replayed.db")) as store:
        run_id = start_run(store, config)
        asyncio.run(Engine(store, run_id, RecordedExecutor(caller)).run())
        assert store.get_run(run_id).status == "completed"
        replayed = domain_history(store.read(run_id), agents)
    assert caller.unserved() == []
    assert not differences(replayed, original), differences(replayed, original)
    assert offline == []
