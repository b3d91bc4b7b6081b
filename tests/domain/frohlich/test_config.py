"""Frohlich config validation (docs/frohlich.md §5) and its documented example configs (every
shipped config of every experiment: tests/domain/test_shipped_configs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from maai.domain.frohlich.config import ConfigError, parse_config
from maai.domain.frohlich.types import IncomeClass
from maai.runtime.runs import load_config
from tests.support.driver import make_config

CONFIGS = sorted((Path(__file__).parents[3] / "configs").glob("*.yaml"))


def agents(n: int = 2) -> list[dict[str, str]]:
    return [{"name": f"agent{i}"} for i in range(n)]


def error_of(data: object) -> str:
    with pytest.raises(ConfigError) as info:
        parse_config(data, source="exp.yaml")
    return str(info.value)


def test_defaults_follow_the_spec():
    config = parse_config({"agents": agents()})
    assert config.phase2_rounds == 10
    assert config.phase1_multiplier.low == 0.5 and config.phase1_multiplier.high == 2.0
    assert config.class_probabilities[IncomeClass.MEDIUM] == 0.5
    assert config.attempts.choice == 3
    assert (
        config.agents[0].memory_words is None and config.memory_limit(config.agents[0].name) == 5000
    )
    assert config.agents[0].reasoning is True
    assert config.agents[0].model == "simulated"
    assert config.base_distributions()[0] == (32_000, 27_000, 24_000, 13_000, 12_000)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"agents": agents(), "colour": "red"}, "exp.yaml: colour: unknown key"),
        ({"agents": [{"name": "a", "moodel": "x"}, {"name": "b"}]}, "agents.0.moodel: unknown key"),
        ({"agents": agents(1)}, "at least 2 agents"),
        ({"agents": [{"name": "a"}, {"name": "a"}]}, "repeated: a"),
        ({"agents": agents(), "phase2_rounds": 0}, "phase2_rounds"),
        (
            {"agents": agents(), "phase1_multiplier": {"low": 2, "high": 1}},
            "multiplier low (2.0) is above high (1.0)",
        ),
        ({"agents": agents(), "phase2_multiplier": {"fixed": -1}}, "positive"),
        (
            {
                "agents": agents(),
                "class_probabilities": {
                    "high": 0.5,
                    "medium_high": 0.5,
                    "medium": 0.5,
                    "medium_low": 0,
                    "low": 0,
                },
            },
            "must sum to 1",
        ),
        ({"agents": agents(), "class_probabilities": {"high": 1.0}}, "missing probabilities"),
        ({"agents": agents(), "distributions": [[1, 2, 3, 4, 5]]}, "at least two"),
        ({"agents": [{"name": "utility"}, {"name": "b"}]}, "reserved"),
        ([1, 2], "top level must be a mapping"),
    ],
)
def test_bad_configs_name_the_key(data: object, expected: str):
    assert expected in error_of(data)


def test_api_keys_are_named_not_given():
    config = parse_config(
        {
            "agents": [
                {
                    "name": "a",
                    "model": "m",
                    "provider": {"base_url": "http://x", "api_key_env": "K"},
                },
                {"name": "b"},
            ]
        }
    )
    assert config.agents[0].provider is not None
    assert config.agents[0].provider.api_key_env == "K"
    message = error_of(
        {"agents": [{"name": "a", "provider": {"api_key": "sk-secret"}}, {"name": "b"}]}
    )
    assert "agents.0.provider.api_key: unknown key" in message
    assert "sk-secret" not in message


def test_shipped_configs_include_the_documented_ones():
    assert {p.name for p in CONFIGS} >= {"default.yaml", "openai.yaml", "ollama.yaml", "mixed.yaml"}
    default = load_config(CONFIGS[[p.name for p in CONFIGS].index("default.yaml")])
    assert len(default.agents) == 5 and default.phase2_rounds == 10
    assert all(a.model == "simulated" for a in default.agents)


def test_a_run_level_memory_limit_with_per_agent_overrides():
    config = make_config(
        memory_words=300,
        agents=[{"name": "alice"}, {"name": "bob", "memory_words": 80}],
    )
    assert config.memory_limit("alice") == 300
    assert config.memory_limit("bob") == 80
    assert make_config().memory_limit("alice") == 5000
