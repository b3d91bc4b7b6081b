"""The world file and the game's config (docs/world.md §1, §5): what a user writes is
accepted, the original system's JSON keys too, and each mistake is named in one clear line."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from maai.domain.world.config import WorldConfig
from maai.domain.world.world import WorldSpec


def world(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Town",
        "locations": [
            {"name": "Cafe", "capacity": 2},
            {"name": "Library", "allowed": ["Iris"]},
        ],
        "agents": [
            {"name": "Iris", "plan": {"location": "Library", "description": "read a book"}},
            {"name": "Jonas", "location": "Cafe"},
        ],
    }
    data.update(overrides)
    return data


def problem(data: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        WorldSpec.model_validate(data)
    return str(caught.value)


def test_a_valid_world_starts_each_agent_where_it_is_told() -> None:
    spec = WorldSpec.model_validate(world())
    assert spec.agent("Iris").start == "Library"  # its initial plan's location
    assert spec.agent("Jonas").start == "Cafe"
    assert spec.location("Cafe").admits("Jonas")
    assert not spec.location("Library").admits("Jonas")


def test_the_original_json_keys_are_accepted() -> None:
    original = json.dumps(
        {
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
    )
    spec = WorldSpec.model_validate_json(original)
    assert spec.name == "Smallville"
    assert spec.agents[0].name == "Ann"
    assert spec.agents[0].directives == ["Be polite."]
    assert spec.agents[0].plan is not None and spec.agents[0].plan.stop_condition == "tired"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"locations": [{"name": "Cafe"}, {"name": "Cafe"}]},
            "location name 'Cafe' is used twice",
        ),
        (
            {
                "agents": [
                    {"name": "Iris", "location": "Cafe"},
                    {"name": "Iris", "location": "Cafe"},
                ]
            },
            "agent name 'Iris' is used twice",
        ),
        (
            {"locations": [{"name": "Cafe", "allowed": ["Zed"]}]},
            "location 'Cafe' allows unknown agent 'Zed'",
        ),
        (
            {"agents": [{"name": "Iris", "plan": {"location": "Moon", "description": "fly"}}]},
            "agent 'Iris' plans to be in unknown location 'Moon'",
        ),
        (
            {"agents": [{"name": "Iris", "location": "Attic"}]},
            "agent 'Iris' starts in unknown location 'Attic'",
        ),
        (
            {
                "agents": [
                    {"name": "Iris", "location": "Cafe"},
                    {"name": "Jonas", "plan": {"location": "Library", "description": "read"}},
                ]
            },
            "agent 'Jonas' plans to be in 'Library', which it may not enter",
        ),
        ({"agents": [{"name": "Iris"}]}, "agent 'Iris' has neither a start location nor"),
        (
            {
                "locations": [{"name": "Cafe", "capacity": 1}],
                "agents": [{"name": "A", "location": "Cafe"}, {"name": "B", "location": "Cafe"}],
            },
            "location 'Cafe' holds at most 1 agents but 2 start there",
        ),
        ({"agents": [{"name": "utility", "location": "Cafe"}]}, "'utility' is reserved"),
    ],
)
def test_each_mistake_is_named(change: dict[str, Any], message: str) -> None:
    assert message in problem(world(**change))


def test_capacity_below_one_is_refused() -> None:
    text = problem(world(locations=[{"name": "Cafe", "capacity": 0}]))
    assert "capacity" in text and "greater than or equal to 1" in text


def test_an_unknown_key_is_refused() -> None:
    text = problem(world(weather="sunny"))
    assert "weather" in text and "Extra inputs are not permitted" in text


def game_config(**game: Any) -> dict[str, Any]:
    agents = [{"name": n, "role": "player", "location": "Hall"} for n in ("Ann", "Ben", "Cy")] + [
        {"name": "Mod", "role": "moderator", "location": "Hall"}
    ]
    return {
        "experiment": "world",
        "game": {"game_room": "Hall", "contribution_room": "Booth", **game},
        "world": {"locations": [{"name": "Hall"}, {"name": "Booth"}], "agents": agents},
    }


def test_a_game_config_gives_endowments_and_roles() -> None:
    data = game_config(endowment=10)
    data["world"]["agents"][0]["endowment"] = 30
    config = WorldConfig.model_validate(data)
    assert config.players == ["Ann", "Ben", "Cy"] and config.moderator == "Mod"
    assert config.endowment("Ann") == 30 and config.endowment("Ben") == 10
    assert config.game is not None and config.game.multiplier == 1.6


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["game"].update(contribution_room="Vault"), "'Vault' is not a location"),
        (lambda d: d["game"].update(turn_order=["Ann", "Ben"]), "turn_order must name every"),
        (lambda d: d["world"]["agents"][3].update(role="player"), "exactly one moderator"),
        (lambda d: d["world"]["agents"][3].update(endowment=5), "'Mod' has an endowment"),
        (
            lambda d: d["world"]["locations"][1].update(allowed=["Ann", "Ben", "Cy"]),
            "'Mod' must be allowed in the contribution room",
        ),
        (lambda d: d["game"].update(multiplier=0), "greater than 0"),
    ],
)
def test_each_game_mistake_is_named(edit: Any, message: str) -> None:
    data = game_config()
    edit(data)
    with pytest.raises(ValidationError) as caught:
        WorldConfig.model_validate(data)
    assert message in str(caught.value)
