"""Collaboration configs that cannot be used: each is one clear line naming the key at fault,
through ``load_config`` on a YAML file (as ``maai run FILE`` reads it) and once through the
command line itself. The shipped collaboration configs load and say how to run them."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.config import ConfigError
from maai.runtime.runs import load_config

CONFIGS = Path(__file__).parents[3] / "configs"

BASE: dict[str, Any] = {
    "experiment": "collaboration",
    "seed": 1,
    "agents": [{"name": "Ada"}, {"name": "Ben"}],
}


def collaborative(name: str, upside: int = 100, downside: int = -50) -> dict[str, Any]:
    return {"name": name, "kind": "collaborative", "upside": upside, "downside": downside}


def individual(name: str = "Y", points: int = 50) -> dict[str, Any]:
    return {"name": name, "kind": "individual", "points": points}


def set_options(*options: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["options"] = list(options)

    return edit


def set_key(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data[key] = value

    return edit


def set_agent(index: int, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["agents"][index][key] = value

    return edit


def add_agent(data: dict[str, Any]) -> None:
    data["agents"].append({"name": "Cy"})


def baseline_p_above_1(data: dict[str, Any]) -> None:
    data["agents"] = data["agents"][:1]
    data["baseline"] = {"p": 1.5}


def individual_with_upside(data: dict[str, Any]) -> None:
    data["options"] = [collaborative("A"), {**individual(), "upside": 60}]


# (id, edit of the base config, words the one line must contain: the key, and what is wrong)
CASES: list[tuple[str, Callable[[dict[str, Any]], None], list[str]]] = [
    ("u above 1", set_agent(0, "u_value", 1.2), ["agents.0.u_value", "less than or equal to 1"]),
    ("u below 0", set_agent(1, "u_value", -0.1), ["agents.1.u_value", "greater than or equal"]),
    (
        "upside below the downside",
        set_options(collaborative("A", upside=-100, downside=-90), individual()),
        ["options.0", "upside (-100) must be above the downside (-90)"],
    ),
    (
        "duplicate option names",
        set_options(collaborative("A"), collaborative("a"), individual()),
        ["options", "unique", "repeated: A"],
    ),
    (
        "individual option with an upside",
        individual_with_upside,
        ["options.1", "individual option Y", "upside", "as if it were collaborative"],
    ),
    (
        "two individual options",
        set_options(collaborative("A"), individual("Y"), individual("Z")),
        ["options", "exactly one individual option, not 2"],
    ),
    (
        "an agent's options without an individual one",
        set_agent(0, "options", [collaborative("A")]),
        ["agents.Ada.options", "exactly one individual option, not 0"],
    ),
    ("three agents", add_agent, ["agents", "two agents; got 3"]),
    (
        "a baseline with two agents",
        set_key("baseline", {"p": 0.5}),
        ["baseline", "one agent", "got 2"],
    ),
    ("exchanges 0", set_key("exchanges", 0), ["exchanges", "greater than or equal to 1"]),
    ("exchanges 11", set_key("exchanges", 11), ["exchanges", "less than or equal to 10"]),
    ("an unknown key", set_key("exchange", 3), ["exchange: unknown key"]),
    ("an unknown agent key", set_agent(0, "u", 0.8), ["agents.0.u: unknown key"]),
    ("an unknown message rule", set_key("message_rule", "block"), ["message_rule", "flag"]),
    ("p above 1", baseline_p_above_1, ["baseline.p", "less than or equal to 1"]),
]


def write(path: Path, data: Any) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def error_of(tmp_path: Path, data: Any) -> str:
    path = write(tmp_path / "collab.yaml", data)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return str(caught.value)


@pytest.mark.parametrize(("edit", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_error_is_one_line_naming_the_key(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None], words: list[str]
) -> None:
    data = copy.deepcopy(BASE)
    edit(data)
    message = error_of(tmp_path, data)
    assert "\n" not in message, message
    assert message.startswith(f"{tmp_path / 'collab.yaml'}: "), message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"


def test_keys_of_the_frohlich_experiment_are_named_as_such(tmp_path: Path) -> None:
    data = {**copy.deepcopy(BASE), "phase2_rounds": 3, "class_probabilities": {"high": 1.0}}
    message = error_of(tmp_path, data)
    first = message.splitlines()[0]
    assert "phase2_rounds" in first and "class_probabilities" in first
    assert "belong to the 'frohlich' experiment's config" in first
    assert "this config names experiment 'collaboration'" in first


def test_an_unknown_experiment_names_the_known_ones(tmp_path: Path) -> None:
    message = error_of(tmp_path, {**copy.deepcopy(BASE), "experiment": "colaboration"})
    assert "\n" not in message
    assert "experiment: unknown experiment 'colaboration'" in message
    assert "collaboration" in message.split("known:")[1]
    assert "frohlich" in message.split("known:")[1]


def test_the_command_line_exits_2_with_one_line(tmp_path: Path) -> None:
    data = copy.deepcopy(BASE)
    data["agents"][0]["u_value"] = 1.5
    path = write(tmp_path / "bad.yaml", data)
    result = CliRunner().invoke(app, ["run", str(path), "--db", str(tmp_path / "l.db")])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "agents.0.u_value" in lines[0] and "bad.yaml" in lines[0]
    assert result.stdout == ""


def test_a_valid_minimal_config_takes_the_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path / "ok.yaml", BASE))
    assert isinstance(config, CollaborationConfig)
    assert config.exchanges == 3 and config.message_rule == "flag"
    assert config.disclose_initial_belief is True and config.baseline is None
    assert [a.u_value for a in config.agents] == [0.75, 0.75]
    assert [o.name for o in config.options] == ["A", "B", "C", "Y"]


SHIPPED = ["collaboration", "collaboration_asymmetric", "collaboration_baseline"]


@pytest.mark.parametrize(
    "name", [*SHIPPED, "collaboration_openai_compatible"], ids=lambda name: name
)
def test_shipped_collaboration_configs_load_and_say_how_to_run_them(name: str) -> None:
    path = CONFIGS / f"{name}.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# "), "a shipped config starts with a comment saying what it is"
    assert "maai run" in text.split("experiment:")[0]
    config = load_config(path)
    assert isinstance(config, CollaborationConfig)
    assert yaml.safe_load(text)["experiment"] == "collaboration"


def test_the_asymmetric_config_has_the_spec_numbers() -> None:
    config = load_config(CONFIGS / "collaboration_asymmetric.yaml")
    assert isinstance(config, CollaborationConfig)
    first, second = config.agents

    def table(name: str) -> dict[str, tuple[int | None, ...]]:
        return {o.name: (o.upside, o.downside, o.points) for o in config.options_of(name)}

    assert first.u_value == 0.85 and second.u_value == 0.91
    assert table(first.name) == {
        "A": (62, -90, None),
        "B": (59, -45, None),
        "C": (55, -15, None),
        "Y": (None, None, 50),
    }
    assert table(second.name) == {
        "K": (58, -90, None),
        "L": (54, -45, None),
        "M": (51, -15, None),
        "Y": (None, None, 45),
    }


def test_the_baseline_config_has_one_agent_and_p() -> None:
    config = load_config(CONFIGS / "collaboration_baseline.yaml")
    assert isinstance(config, CollaborationConfig)
    assert config.baseline is not None and config.baseline.p == 0.5
    assert len(config.agents) == 1


def test_the_openai_compatible_config_talks_to_one_server_without_a_key() -> None:
    config = load_config(CONFIGS / "collaboration_openai_compatible.yaml")
    assert isinstance(config, CollaborationConfig)
    users = config.model_users()
    assert [u.who for u in users] == [a.name for a in config.agents] + ["utility"]
    for user in users:
        assert user.provider is not None
        assert user.provider.base_url == "http://localhost:11434/v1"
        assert user.provider.api_key_env is None  # a local server needs no key
        assert user.model != "simulated"
