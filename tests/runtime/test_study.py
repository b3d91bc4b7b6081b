"""Studies (docs/studies.md): a study file's plan, `maai study run` finishing every run in one
command and continuing after a kill without running a finished run again, the study's tables,
and bad study files refused in one line with nothing created."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.seeds import derive_seed
from maai.domain.study import label_key, parse_path, set_path
from maai.ledger import EventStore
from maai.ledger.locks import LockHeldError, named_lock
from maai.runtime.study import load_study

BASE: dict[str, Any] = {
    "experiment": "collaboration",
    "exchanges": 1,
    "agents": [
        {
            "name": "Ada",
            "company": "Brickworks Motors",
            "u_value": 0.75,
            "persona": {"kind": "trusting", "latency_ms": 15},
        },
        {
            "name": "Ben",
            "company": "Studline Cars",
            "u_value": 0.75,
            "persona": {"kind": "strategic", "latency_ms": 15},
        },
    ],
}
FACTORS: dict[str, list[Any]] = {
    "agents[*].u_value": [0.25, 0.5, 0.9],
    "exchanges": [1, 2],
    "disclose_initial_belief": [True, False],
}


def write_study(folder: Path, **changes: Any) -> Path:
    (folder / "base.yaml").write_text(yaml.safe_dump(BASE), encoding="utf-8")
    study = {
        "study": "grid",
        "base": "base.yaml",
        "factors": FACTORS,
        "replicates": 2,
        "seed": 11,
        "concurrency": 3,
        **changes,
    }
    path = folder / "study.yaml"
    path.write_text(yaml.safe_dump(study, sort_keys=False), encoding="utf-8")
    return path


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def test_the_plan_is_every_cell_times_every_replicate(tmp_path: Path) -> None:
    study = load_study(write_study(tmp_path))
    assert len(study.runs) == 3 * 2 * 2 * 2
    assert len({r.run_id for r in study.runs}) == 24
    first = study.runs[0]
    assert first.run_id == "grid.c01.r1"
    assert first.values == {
        "agents[*].u_value": 0.25,
        "exchanges": 1,
        "disclose_initial_belief": True,
    }
    config: Any = first.config
    assert [a.u_value for a in config.agents] == [0.25, 0.25] and config.exchanges == 1
    assert config.labels == {
        "agents.u_value": 0.25,
        "exchanges": 1,
        "disclose_initial_belief": True,
        "study": "grid",
        "cell": 1,
        "replicate": 1,
    }
    for run in study.runs:
        assert run.config.seed == derive_seed(11, run.values, run.replicate)
    assert len({r.config.seed for r in study.runs}) == 24


def test_factor_paths() -> None:
    assert parse_path("agents[*].persona.kind") == ["agents", "*", "persona", "kind"]
    assert parse_path("agents[1].model") == ["agents", 1, "model"]
    assert label_key("agents[1].model") == "agents.1.model"
    data = {"agents": [{"m": 1}, {"m": 2}], "x": {"y": 0}}
    set_path(data, "agents[*].m", 9)
    set_path(data, "x.y", [1])
    assert data == {"agents": [{"m": 9}, {"m": 9}], "x": {"y": [1]}}
    for bad in ("agents[*]model", ".x", "x.", "[0]", "a..b", "a[x]", "a[=x]", "a[k=]"):
        with pytest.raises(ValueError):
            parse_path(bad)


def test_a_factor_path_can_pick_the_items_of_a_list_by_a_key() -> None:
    world = {
        "agents": [
            {"name": "Ann", "role": "player", "priming": ""},
            {"name": "Mod", "role": "moderator"},
            {"name": "Ben", "role": "player", "priming": ""},
        ]
    }
    set_path(world, "agents[role=player].priming", "Sharing pays.")
    assert [a.get("priming") for a in world["agents"]] == ["Sharing pays.", None, "Sharing pays."]
    assert label_key("world.agents[role=player].priming") == "world.agents.player.priming"
    with pytest.raises(ValueError, match="no item of agents has role = 'judge'"):
        set_path(world, "agents[role=judge].priming", "x")


def _runs_csv(folder: Path) -> list[dict[str, str]]:
    with (folder / "runs.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_one_command_runs_the_study_and_its_table_has_a_row_per_run(tmp_path: Path) -> None:
    db = str(tmp_path / "ledger.db")
    study = write_study(tmp_path)
    result = invoke("study", "run", str(study), "--db", db, "-q")
    assert result.exit_code == 0, result.output
    assert "done 24" in result.output and "failed 0" in result.output
    result = invoke("study", "export", "grid", "--db", db, "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    rows = _runs_csv(tmp_path / "out")
    assert len(rows) == 24
    again = invoke("study", "export", "grid", "--db", db, "--out", str(tmp_path / "out"))
    assert again.exit_code == 2 and "the folder is not empty; give --force" in again.output
    assert {r["status"] for r in rows} == {"completed"}
    assert {(r["agents.u_value"], r["exchanges"], r["disclose_initial_belief"]) for r in rows} == {
        (u, e, d) for u in ("0.25", "0.5", "0.9") for e in ("1", "2") for d in ("true", "false")
    }
    # The experiment's own tables are stacked with the same factor columns on every row.
    with (tmp_path / "out" / "decisions.csv").open(encoding="utf-8") as handle:
        decisions = list(csv.DictReader(handle))
    assert {d["run_id"] for d in decisions} == {r["run_id"] for r in rows}
    assert all(d["agents.u_value"] in ("0.25", "0.5", "0.9") for d in decisions)
    if (tmp_path / "out" / "runs.parquet").exists():
        pandas = pytest.importorskip("pandas")
        frame = pandas.read_parquet(tmp_path / "out" / "runs.parquet")
        assert len(frame) == 24 and frame["disclose_initial_belief"].dtype == bool
    # Run again: nothing left to do, nothing run twice.
    result = invoke("study", "run", str(study), "--db", db, "-q")
    assert result.exit_code == 0 and "24 run(s) were already completed" in result.output
    result = invoke("study", "list", "--db", db)
    assert "grid" in result.output and "24" in result.output


def _heads(db: str) -> dict[str, tuple[str, int, str | None]]:
    with EventStore.open(db) as store:
        out = {}
        for info in store.list_runs():
            head = store.head_hash(info.run_id)
            out[info.run_id] = (info.status, head[0] if head else 0, head[1] if head else None)
        return out


def test_a_study_killed_halfway_finishes_without_running_a_finished_run_again(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "ledger.db")
    study = write_study(tmp_path, concurrency=2)
    command = [sys.executable, "-m", "maai", "study", "run", str(study), "--db", db, "-q"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if os.path.exists(db):
                done = [s for s, _, _ in _heads(db).values() if s == "completed"]
                if len(done) >= 6:
                    break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    before = _heads(db)
    finished = {run_id: head for run_id, head in before.items() if head[0] == "completed"}
    assert 6 <= len(finished) < 24
    result = invoke("study", "run", str(study), "--db", db, "-q")
    assert result.exit_code == 0, result.output
    assert f"{len(finished)} run(s) were already completed" in result.output
    after = _heads(db)
    assert len(after) == 24 and {s for s, _, _ in after.values()} == {"completed"}
    for run_id, head in finished.items():
        assert after[run_id] == head  # not one event added to a finished run
    with EventStore.open(db) as store:
        for run_id in after:
            completed = [e for e in store.read(run_id) if e.type == "run.completed"]
            assert len(completed) == 1, run_id
    assert invoke("verify", "grid.c12.r2", "--db", db).exit_code == 0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"factors": {"agents[*].u_valu": [0.5]}},
            "study.yaml: factors: 'agents[*].u_valu': agents[*] has no key 'u_valu'",
        ),
        ({"factors": {"exchanges": ["many"]}}, "study.yaml: exchanges: Input should be a valid"),
        ({"factors": {"exchanges": []}}, "factor 'exchanges' has no values"),
        ({"replicates": 0}, "study.yaml: replicates: Input should be greater than or equal to 1"),
        ({"base": "missing.yaml"}, "missing.yaml: no such file"),
        ({"base": None, "config": {"experiment": "chess"}}, "chess"),
        ({"studdy": "x"}, "study.yaml: studdy: unknown key"),
    ],
)
def test_a_bad_study_file_is_one_line_and_creates_nothing(
    tmp_path: Path, changes: dict[str, Any], message: str
) -> None:
    db = str(tmp_path / "ledger.db")
    study = write_study(tmp_path, **changes)
    result = invoke("study", "run", str(study), "--db", db)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    if os.path.exists(db):
        with EventStore.open(db) as store:
            assert store.list_runs() == []


def test_a_study_running_elsewhere_is_refused_with_exit_3(tmp_path: Path) -> None:
    db = str(tmp_path / "ledger.db")
    study = write_study(tmp_path)
    with EventStore.open(db) as store, named_lock(store.location, "study-grid", "study grid"):
        result = invoke("study", "run", str(study), "--db", db)
    assert result.exit_code == 3, result.output
    assert "study grid is running in another process" in result.output
    assert len(result.output.strip().splitlines()) == 1
    with EventStore.open(db) as store:
        assert store.list_runs() == []


def test_a_changed_study_file_is_refused_naming_the_run(tmp_path: Path) -> None:
    db = str(tmp_path / "ledger.db")
    study = write_study(tmp_path, factors={"exchanges": [1]}, replicates=1)
    assert invoke("study", "run", str(study), "--db", db, "-q").exit_code == 0
    base = dict(BASE, agents=[dict(BASE["agents"][0], company="Other Motors"), BASE["agents"][1]])
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(base), encoding="utf-8")
    result = invoke("study", "run", str(study), "--db", db, "-q")
    assert result.exit_code == 2
    assert "run grid.c1.r1 exists with another config" in result.output


def test_a_study_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    EventStore.open(postgres_url, upgrade=True).close()
    study = write_study(tmp_path, factors={"exchanges": [1, 2]}, replicates=1)
    result = invoke("study", "run", str(study), "--db", postgres_url, "-q")
    assert result.exit_code == 0, result.output
    assert "done 2" in result.output
    result = invoke("study", "status", "grid", "--db", postgres_url)
    assert "2 completed" in result.output
    with EventStore.open(postgres_url) as store:
        with named_lock(store.location, "study-x", "study x"):
            again = named_lock(store.location, "study-x", "study x")
            with pytest.raises(LockHeldError) as err, again:
                pass
            assert "study x is running in another process" in str(err.value)
        with named_lock(store.location, "study-x", "study x"):
            pass  # released with the first holder


def test_the_example_studies_plan() -> None:
    folder = Path(__file__).parents[2] / "configs" / "studies"
    sizes = {p.name: len(load_study(p).runs) for p in sorted(folder.glob("*.yaml"))}
    assert sizes == {
        "frohlich_conditions.yaml": 16,
        "u_sweep.yaml": 40,
        "world_pgg_priming.yaml": 6,
    }


def test_ctrl_c_leaves_no_run_running_and_the_study_continues(tmp_path: Path) -> None:
    db = str(tmp_path / "ledger.db")
    study = write_study(tmp_path, concurrency=3)
    command = [sys.executable, "-m", "maai", "study", "run", str(study), "--db", db, "-q"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if os.path.exists(db):
                heads = _heads(db)
                if sum(1 for s, _, _ in heads.values() if s == "completed") >= 3:
                    break
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, output
    assert b"continue it with: maai study run" in output
    statuses = {s for s, _, _ in _heads(db).values()}
    assert "running" not in statuses and "created" not in statuses
    result = invoke("study", "run", str(study), "--db", db, "-q")
    assert result.exit_code == 0, result.output
    assert {s for s, _, _ in _heads(db).values()} == {"completed"}


def test_export_all_puts_each_study_in_its_folder(tmp_path: Path) -> None:
    db = str(tmp_path / "ledger.db")
    study = write_study(tmp_path, factors={"exchanges": [1, 2]}, replicates=1)
    assert invoke("study", "run", str(study), "--db", db, "-q").exit_code == 0
    assert invoke("run", "collaboration", "--db", db, "-q").exit_code == 0
    out = tmp_path / "all"
    result = invoke("export", "--all", "-f", "tables", "--db", db, "--out", str(out))
    assert result.exit_code == 0, result.output
    in_study = _runs_csv(out / "study-grid")
    assert [r["run_id"] for r in in_study] == ["grid.c1.r1", "grid.c2.r1"]
    assert [r["exchanges"] for r in in_study] == ["1", "2"]
    alone = _runs_csv(out)
    assert len(alone) == 1 and not alone[0]["run_id"].startswith("grid.")
    assert (out / "study-grid" / "decisions.csv").exists() and (out / "decisions.csv").exists()
