"""A world in a file of its own (docs/world.md §1): a config names it (a path beside the config,
or a packaged world by name), it is read in before validation so that the run records the
whole world, and each mistake names the file at fault: a missing file, unreadable YAML or
JSON (with the line), the world's own problems. Studies over such a config work too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.config import ConfigError
from maai.domain.world.config import WorldConfig
from maai.ledger import EventStore
from maai.runtime.config_files import read_config
from maai.runtime.runs import config_snapshot, load_config, started_event
from maai.runtime.study import load_study

WORLD: dict[str, Any] = {
    "name": "Town",
    "locations": [{"name": "Cafe"}, {"name": "Park"}],
    "agents": [
        {
            "name": "Iris",
            "private_bio": "Iris keeps a diary nobody reads.",
            "plan": {"location": "Cafe", "description": "have a coffee"},
            "persona": {"kind": "wanderer", "error_rate": 0.0},
        },
        {
            "name": "Jonas",
            "location": "Park",
            "persona": {"kind": "wanderer", "error_rate": 0.0},
        },
    ],
}


def config_naming(folder: Path, world: str, **top: Any) -> Path:
    path = folder / "town.yaml"
    data = {"experiment": "world", "seed": 3, "max_ticks": 3, "world": world, **top}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def write_world(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return str(caught.value)


def test_a_world_file_beside_the_config_is_read_in_as_if_inline(tmp_path: Path) -> None:
    write_world(tmp_path, "worlds/town.yaml", yaml.safe_dump(WORLD))
    config = load_config(config_naming(tmp_path, "worlds/town.yaml"))
    assert isinstance(config, WorldConfig)
    inline = WorldConfig.model_validate(
        {"experiment": "world", "seed": 3, "max_ticks": 3, "world": WORLD}
    )
    assert config == inline
    # What the run records holds the whole world, not the file's name.
    assert config_snapshot(config)["world"]["agents"][0]["name"] == "Iris"


def test_a_json_world_file_with_the_original_keys(tmp_path: Path) -> None:
    original = {
        "world_name": "Smallville",
        "locations": [{"name": "Park"}],
        "agents": [
            {
                "first_name": "Ann",
                "directives": ["Be polite."],
                "plan": {"location": "Park", "description": "walk", "stop": "tired"},
            }
        ],
    }
    write_world(tmp_path, "smallville.json", json.dumps(original))
    config = load_config(config_naming(tmp_path, "smallville.json"))
    assert isinstance(config, WorldConfig)
    assert config.world.name == "Smallville" and config.names == ["Ann"]
    assert config.world.agents[0].plan is not None
    assert config.world.agents[0].plan.stop_condition == "tired"


def test_a_packaged_world_by_name(tmp_path: Path) -> None:
    config = load_config(config_naming(tmp_path, "little_town"))
    assert isinstance(config, WorldConfig)
    assert config.world.name == "Little Town" and config.names == ["Iris", "Jonas", "Kira"]


def test_a_missing_world_file_names_the_config_and_the_file(tmp_path: Path) -> None:
    path = config_naming(tmp_path, "worlds/nowhere.yaml")
    message = error_of(path)
    assert message.startswith(f"{path}: world: worlds/nowhere.yaml: no such file")
    assert "little_town" in message and "village_hall" in message  # the packaged ones


def test_unreadable_yaml_names_the_world_file_and_the_line(tmp_path: Path) -> None:
    world = write_world(tmp_path, "broken.yaml", "name: Town\nlocations: [\n  - name: Cafe\n")
    message = error_of(config_naming(tmp_path, "broken.yaml"))
    assert message.startswith(f"{world}: ") and "at line" in message


def test_unreadable_json_names_the_world_file_and_the_line(tmp_path: Path) -> None:
    world = write_world(tmp_path, "broken.json", '{"name": "Town",\n "locations": [}\n')
    message = error_of(config_naming(tmp_path, "broken.json"))
    assert message.startswith(f"{world}: ") and "at line 2" in message


def test_the_worlds_own_problems_are_named_in_the_world_file(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(WORLD))
    bad["weather"] = "sunny"
    bad["agents"][0]["plan"]["location"] = "Moon"
    world = write_world(tmp_path, "bad.yaml", yaml.safe_dump(bad))
    lines = error_of(config_naming(tmp_path, "bad.yaml")).splitlines()
    assert f"{world}: weather: unknown key" in lines
    bad.pop("weather")
    write_world(tmp_path, "bad.yaml", yaml.safe_dump(bad))
    message = error_of(config_naming(tmp_path, "bad.yaml"))
    assert message.startswith(f"{world}: ")
    assert "agent 'Iris' plans to be in unknown location 'Moon'" in message


def test_a_game_that_does_not_fit_the_world_is_named_in_the_config(tmp_path: Path) -> None:
    write_world(tmp_path, "worlds/town.yaml", yaml.safe_dump(WORLD))
    path = config_naming(
        tmp_path, "worlds/town.yaml", game={"game_room": "Cafe", "contribution_room": "Vault"}
    )
    message = error_of(path)
    assert message.startswith(f"{path}: ") and "'Vault' is not a location" in message


def test_the_inline_world_still_works(tmp_path: Path) -> None:
    path = tmp_path / "inline.yaml"
    path.write_text(yaml.safe_dump({"experiment": "world", "world": WORLD}), encoding="utf-8")
    config = load_config(path)
    assert isinstance(config, WorldConfig) and config.names == ["Iris", "Jonas"]


def test_a_run_records_the_whole_world_and_replays_without_the_file(tmp_path: Path) -> None:
    world = write_world(tmp_path, "worlds/town.yaml", yaml.safe_dump(WORLD))
    path = config_naming(tmp_path, "worlds/town.yaml")
    db = str(tmp_path / "ledger.db")
    runner = CliRunner()
    result = runner.invoke(app, ["run", str(path), "--db", db, "-q"])
    assert result.exit_code == 0, result.output
    world.unlink()  # replay and verify need nothing but the ledger
    with EventStore.open(db) as store:
        [info] = store.list_runs()
        started = started_event(store, info.run_id)
    assert started is not None and started.config["world"]["name"] == "Town"
    for command in ("replay", "verify"):
        again = runner.invoke(app, [command, info.run_id, "--db", db])
        assert again.exit_code == 0, again.output


def test_maai_run_refuses_a_missing_world_file_with_exit_2(tmp_path: Path) -> None:
    path = config_naming(tmp_path, "worlds/gone.yaml")
    result = CliRunner().invoke(app, ["run", str(path), "--db", str(tmp_path / "l.db")])
    assert result.exit_code == 2
    assert "worlds/gone.yaml: no such file" in result.stderr


def test_a_study_over_a_config_with_a_world_file(tmp_path: Path) -> None:
    write_world(tmp_path, "worlds/town.yaml", yaml.safe_dump(WORLD))
    config_naming(tmp_path, "worlds/town.yaml")
    study = tmp_path / "study.yaml"
    factors = {"world.agents[0].persona.error_rate": [0.0, 0.2], "max_ticks": [2, 3]}
    study.write_text(
        yaml.safe_dump({"study": "towns", "base": "town.yaml", "factors": factors}),
        encoding="utf-8",
    )
    planned = load_study(study)
    assert len(planned.runs) == 4
    rates = set()
    for run in planned.runs:
        assert isinstance(run.config, WorldConfig) and run.config.world.name == "Town"
        persona = run.config.world.agents[0].persona
        assert persona is not None
        rates.add(persona.error_rate)
    assert rates == {0.0, 0.2}


def test_a_study_with_an_inline_config_names_the_world_file_beside_the_study(
    tmp_path: Path,
) -> None:
    write_world(tmp_path, "worlds/town.yaml", yaml.safe_dump(WORLD))
    study = tmp_path / "study.yaml"
    inline = {"experiment": "world", "world": "worlds/town.yaml"}
    study.write_text(
        yaml.safe_dump({"study": "towns", "config": inline, "factors": {"seed": [1, 2]}}),
        encoding="utf-8",
    )
    planned = load_study(study)
    assert [r.config.world.name for r in planned.runs] == ["Town", "Town"]  # type: ignore[attr-defined]


def test_a_study_over_a_packaged_config_with_a_world_file(tmp_path: Path) -> None:
    study = tmp_path / "study.yaml"
    study.write_text(
        yaml.safe_dump({"study": "free", "base": "world_free", "replicates": 2}), encoding="utf-8"
    )
    planned = load_study(study)
    assert [r.config.world.name for r in planned.runs] == ["Little Town"] * 2  # type: ignore[attr-defined]


def test_the_packaged_world_configs_name_their_world_files() -> None:
    configs = Path(__file__).parents[2] / "configs"
    for name, file in (
        ("world_pgg.yaml", "village_hall.yaml"),
        ("world_free.yaml", "little_town.json"),
    ):
        raw = yaml.safe_load((configs / name).read_text(encoding="utf-8"))
        assert raw["world"] == f"worlds/{file}"
        assert isinstance(read_config(configs / name)["world"], dict)
