"""The world and its public-goods game end to end through the command line, with the helpers
the other experiments' end-to-end tests use: a run to completion; SIGKILL at event boundaries
(early, between contributions, at the announcement's tick) then ``maai resume`` ends with the
same domain events as an uninterrupted run and passes ``maai verify``; the protocol re-run
from the recording alone with no network; ``replay`` and ``verify`` offline; a changed
template makes ``verify`` name the call; exports byte-identical across two replays."""

from __future__ import annotations

import json
import signal
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from string import Template
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.events import ModelCallRequested
from maai.domain.world import prompts
from maai.domain.world.state import State
from maai.ledger import EventStore
from maai.runtime.config_files import read_config
from maai.runtime.executors import RecordedExecutor
from maai.runtime.replay import ReplayCaller
from maai.runtime.runs import load_config
from maai.runtime.verify import verify_events
from tests.e2e.history import decode, differences, domain_history
from tests.e2e.launcher import Launcher
from tests.e2e.runs import REPO, Reference, References, run_in_process
from tests.e2e.test_crash_resume import Mark, crash_and_resume
from tests.e2e.test_hermetic_replay import recorded_calls

CONFIG = REPO / "configs" / "world_pgg.yaml"
LATENCY_MS = 25  # each call waits, so a kill lands between events
PLANS: list[list[Mark]] = [
    ["tick/1", "tick/5"],  # killed during the run, then during the resume
    ["order/7"],
    ["contribution/1/Alice"],
]


def write(path: Path, latency_ms: float) -> Path:
    data = read_config(CONFIG)  # the world file read in: the copy stands alone
    for agent in data["world"]["agents"]:
        agent.setdefault("persona", {})["latency_ms"] = latency_ms
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def world_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("world") / "world.yaml", LATENCY_MS)


@pytest.fixture(scope="module")
def reference(references: References, world_config: Path) -> Reference:
    return references.of(world_config)


def test_an_uninterrupted_run_completes(reference: Reference) -> None:
    events = reference.history.events
    assert {"outcome/1", "announcement/1", "world/ended", "run/completed"} <= set(events)
    assert events["world/ended"]["reason"] == "game over"
    types = [e["type"] for e in events.values()]
    assert "answer.rejected" in types  # the seed exercises sending an answer back
    assert sum(1 for k in events if k.startswith("contribution/1/")) == 4


def test_sigkill_at_event_boundaries_then_resume_ends_as_the_uninterrupted_run(
    cli: Launcher, reference: Reference, tmp_path: Path
) -> None:
    dbs = [tmp_path / f"crash-{i}.db" for i in range(len(PLANS))]
    for db in dbs:
        EventStore.open(str(db)).close()
    with ThreadPoolExecutor(2) as pool:
        results = list(
            pool.map(
                lambda item: crash_and_resume(cli, reference, item[0], item[1]),
                zip(PLANS, dbs, strict=True),
            )
        )
    for result in results:
        where = result.where(reference.events)
        for kill in result.kills:
            assert kill.exit_code == -signal.SIGKILL, f"{where}: exited {kill.exit_code}"
            assert isinstance(kill.state, State)
        assert result.resume.poll() == 0, f"{where}: resume failed:\n{result.resume.output()}"
        assert result.final_status == "completed", where
        assert result.chain_ok and result.gapless, where
        assert result.verify.poll() == 0, f"{where}: verify failed:\n{result.verify.output()}"
        assert not result.problems, f"{where}: resumed run differs:\n" + "\n".join(result.problems)
    kills = [k for r in results for k in r.kills]
    assert any(k.during == "resume" for k in kills)
    assert len({k.killed_at for k in kills}) >= 3


# --- a run recorded in this process: replay, verify, exports ----------------------------------

RUN_ID = "20990101-000000-a0d1d1"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("world-recorded")
    config = write(folder / "recorded.yaml", 0)
    db = str(folder / "recorded.db")
    run_in_process(config, db, run_id=RUN_ID)
    return config, db


def test_replay_and_verify_work_offline(recorded: tuple[Path, str], offline: list[Any]) -> None:
    _, db = recorded
    runner = CliRunner()
    as_json = runner.invoke(app, ["replay", RUN_ID, "--db", db, "--json"])
    assert as_json.exit_code == 0, as_json.output
    summary = json.loads(as_json.stdout)
    assert summary["status"] == "completed"
    assert [a["name"] for a in summary["agents"]] == ["Alice", "Bob", "Carla", "Dan", "Mona"]
    [announced] = summary["announcements"]  # the shipped seed's moderator errs
    assert announced["round"] == 1 and not announced["matches"] and announced["differences"]
    assert sum(summary["calls_per_tick"].values()) == summary["calls"]
    verify = runner.invoke(app, ["verify", RUN_ID, "--db", db])
    assert verify.exit_code == 0 and verify.stdout.startswith("ok:"), verify.output
    for audit in ("protocol", "leaks"):
        result = runner.invoke(app, ["audit", audit, RUN_ID, "--db", db])
        assert result.exit_code == 0 and result.stdout.startswith("ok:"), result.output
    assert offline == []


def test_the_protocol_reruns_from_the_recording_alone(
    recorded: tuple[Path, str], offline: list[Any], tmp_path: Path
) -> None:
    config, original = recorded
    agents = load_config(config).agent_names()
    with EventStore.open(original) as store:
        caller = ReplayCaller.from_calls(recorded_calls(store, RUN_ID))
        expected = domain_history(store.read(RUN_ID), agents)
    db = str(tmp_path / "replayed.db")
    run_in_process(config, db, run_id=RUN_ID, executor=lambda _: RecordedExecutor(caller))
    assert caller.unserved() == []
    with EventStore.open(db) as store:
        actual = domain_history(store.read(RUN_ID), agents)
    assert not differences(actual, expected), differences(actual, expected)
    assert offline == []


ORIGINAL = "In each step you take exactly one action."
CHANGED = "In each step you take one action."


def test_a_changed_template_makes_verify_name_the_call(
    recorded: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, db = recorded
    with EventStore.open(db) as store:
        stored = list(store.read(RUN_ID))
    assert verify_events(stored).ok
    first = next(
        (e.seq, event.request.address)
        for e in stored
        if isinstance(event := decode(e), ModelCallRequested) and event.request.agent != "utility"
    )
    original = prompts.PROMPTS.template

    def changed(name: str, language: str = "en") -> Template:
        found = original(name, language)
        if name != "system":
            return found
        assert ORIGINAL in found.template
        return Template(found.template.replace(ORIGINAL, CHANGED))

    monkeypatch.setattr(prompts.PROMPTS, "template", changed)
    report = verify_events(stored)
    assert not report.ok
    divergence = report.divergences[0]
    assert (divergence.seq, divergence.address) == first
    assert "request differs" in divergence.detail


def exports(db: str, folder: Path) -> dict[str, bytes]:
    runner = CliRunner()
    found: dict[str, bytes] = {}
    for name, args in {"json": [], "transcript": ["-f", "transcript"]}.items():
        result = runner.invoke(app, ["export", RUN_ID, "--db", db, *args])
        assert result.exit_code == 0, result.output
        found[name] = result.stdout_bytes
    tables = folder / "tables"
    result = runner.invoke(app, ["export", RUN_ID, "--db", db, "-f", "tables", "--out", tables])
    assert result.exit_code == 0, result.output
    for path in sorted(tables.iterdir()):
        found[f"tables/{path.name}"] = path.read_bytes()
    assert {"tables/events.csv", "tables/payoffs.csv", "tables/memories.csv"} <= set(found)
    return found


def test_exports_are_byte_identical_across_two_replays_of_the_same_ledger(
    recorded: tuple[Path, str], offline: list[Any], tmp_path: Path
) -> None:
    _, db = recorded
    outputs = []
    for copy in ("one", "two"):
        ledger = tmp_path / f"{copy}.db"
        source, target = sqlite3.connect(db), sqlite3.connect(ledger)
        try:
            source.backup(target)
        finally:
            source.close()
            target.close()
        for again in (1, 2):
            replay = CliRunner().invoke(app, ["replay", RUN_ID, "--db", str(ledger)])
            assert replay.exit_code == 0, replay.output
            outputs.append(exports(str(ledger), tmp_path / f"{copy}-{again}"))
    first = outputs[0]
    for other in outputs[1:]:
        assert sorted(other) == sorted(first)
        for name in first:
            assert other[name] == first[name], f"{name} differs between two replays"
    assert offline == []
