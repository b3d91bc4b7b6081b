"""Choosing an experiment: the config's ``experiment:`` key, packaged configs by name,
``maai init``, labels carried into the tables, and provenance in the first event."""

from __future__ import annotations

import asyncio
import csv
import io
import os
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain import experiments
from maai.domain.config import ConfigError
from maai.domain.events import RunStarted
from maai.ledger import EventStore
from maai.projections.history import history_from_stored
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import load_config, start_run
from tests.support.driver import make_config

runner = CliRunner()


def write(path: Path, data: object) -> Path:
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_every_experiment_is_found_by_name() -> None:
    names = experiments.names()
    assert {"frohlich", "collaboration"} <= set(names)
    for name in names:
        assert experiments.get(name).name == name


def test_an_unknown_experiment_names_the_known_ones(tmp_path: Path) -> None:
    unknown = "no-such-experiment"
    assert unknown not in experiments.names()
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path / "c.yaml", {"experiment": unknown, "seed": 1}))
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'c.yaml'}: experiment: unknown experiment")
    assert all(name in message for name in experiments.names())


def test_a_config_without_experiment_says_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="experiment: missing; name the experiment"):
        load_config(write(tmp_path / "c.yaml", {"seed": 1}))


def test_keys_of_another_experiment_are_named_as_such(tmp_path: Path) -> None:
    data = make_config().model_dump(mode="json")
    data["experiment"] = "collaboration"
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path / "c.yaml", data))
    first = str(caught.value).splitlines()[0]
    assert "phase2_rounds" in first and "belong to the 'frohlich' experiment's config" in first


def test_a_config_that_is_not_utf8_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("experiment: frohlich\nname: Se\xf1or\n".encode("latin-1"))
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path)


def test_a_base_url_carrying_a_key_is_refused(tmp_path: Path) -> None:
    data = make_config().model_dump(mode="json")
    data["agents"][0]["provider"] = {"base_url": "https://host.example/v1?api_key=sk-123"}
    with pytest.raises(ConfigError, match="must not carry a key"):
        load_config(write(tmp_path / "c.yaml", data))


def test_maai_run_takes_an_experiment_name_from_an_empty_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    db = str(tmp_path / "l.db")
    result = runner.invoke(app, ["run", "collaboration", "--db", db, "-q"])
    assert result.exit_code == 0, result.output
    assert "status: completed" in result.output
    with EventStore.open(db) as store:
        (run,) = store.list_runs()
    assert run.kind == "collaboration"
    assert os.listdir(tmp_path) == ["l.db"] or set(os.listdir(tmp_path)) <= {
        "l.db",
        "l.db-wal",
        "l.db-shm",
        "l.db-reserve",  # room for a run's last status on a full disk (ledger.reserve)
    }


def test_an_unknown_config_name_lists_what_there_is(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "nosuch", "--db", str(tmp_path / "l.db")])
    assert result.exit_code == 2
    assert "no packaged config or experiment of that name" in result.stderr
    assert "default" in result.stderr and "collaboration" in result.stderr


def test_maai_init_writes_the_examples_and_never_overwrites(tmp_path: Path) -> None:
    result = runner.invoke(app, ["init", str(tmp_path / "examples")])
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in (tmp_path / "examples").glob("*.yaml"))
    assert {"default.yaml", "collaboration.yaml", "world_free.yaml"} <= set(written)
    # The world files the world configs name are copied beside them, so the copies stand alone.
    assert (tmp_path / "examples" / "worlds" / "little_town.json").is_file()
    for name in written:
        load_config(tmp_path / "examples" / name)  # every example is a valid config
    again = runner.invoke(app, ["init", str(tmp_path / "examples")])
    assert again.exit_code == 2 and "already there; use --force" in again.stderr
    forced = runner.invoke(app, ["init", str(tmp_path / "examples"), "--force"])
    assert forced.exit_code == 0


def test_labels_and_provenance_are_recorded_and_reach_every_table(tmp_path: Path) -> None:
    config = make_config(phase2_rounds=1, labels={"condition": "high_u", "round": 2})
    with EventStore.open(str(tmp_path / "l.db")) as store:
        run_id = start_run(store, config)
        asyncio.run(Engine(store, run_id, LiveExecutor(config, env={})).run())
        info = store.get_run(run_id)
        history = history_from_stored(run_id, store.read(run_id), info.status)
    assert info.config["labels"] == {"condition": "high_u", "round": 2}
    started = history.entries[0].event
    assert isinstance(started, RunStarted) and started.provenance is not None
    assert started.provenance["maai"] and started.provenance["python"]
    assert set(started.provenance["packages"]) >= {"pydantic", "openai-agents"}
    assert history.experiment is not None
    files = history.experiment.views().tables([history])
    for name, text in files.items():
        if not name.endswith(".csv"):
            continue
        header, *rows = list(csv.reader(io.StringIO(text)))
        assert header[:2] == ["run_id", "condition"], name
        # A label named like a table's own column is prefixed, never overwritten.
        own = header[3:]
        assert header[2] == ("label_round" if "round" in own else "round"), name
        for row in rows:
            assert row[1:3] == ["high_u", "2"], name
    assert "`condition`" in files["data_dictionary.md"]
