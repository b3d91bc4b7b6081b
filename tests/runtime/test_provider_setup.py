"""Provider routing, the credentials check before a run, and key scrubbing. Frohlich's config
serves: routing reads the agents' models and providers, alike in every experiment's config."""

from __future__ import annotations

from typing import Any

import pytest
from agents.models.openai_chatcompletions import OpenAIChatCompletionsModel
from agents.models.openai_responses import OpenAIResponsesModel
from hypothesis import given, settings
from hypothesis import strategies as st

from maai.domain.config import ProviderConfig, UtilityConfig
from maai.domain.frohlich.config import AgentConfig, FrohlichConfig
from maai.runtime.providers import (
    NO_KEY_PLACEHOLDER,
    ProviderSetupError,
    build_model,
    check_credentials,
    register_secret,
    resolve_route,
    scrub,
    third_party_key_envs,
)

OPENROUTER = ProviderConfig(
    base_url="https://openrouter.ai/api/v1", api_key_env="OPENROUTER_API_KEY"
)
OLLAMA = ProviderConfig(base_url="http://localhost:11434/v1")


def config(utility: UtilityConfig | None = None, **agents: dict[str, Any]) -> FrohlichConfig:
    return FrohlichConfig(
        agents=[AgentConfig(name=name, **fields) for name, fields in agents.items()],
        utility=utility or UtilityConfig(model="openai:gpt-4o-mini"),
    )


MIXED = config(
    alice={"model": "openai:gpt-4o"},
    bob={"model": "meta-llama/llama-3.1-8b-instruct", "provider": OPENROUTER},
    carol={"model": "llama3.1:8b", "provider": OLLAMA},
    dave={"model": "simulated"},
)


def test_missing_keys_name_the_variable_and_every_agent_needing_it() -> None:
    with pytest.raises(ProviderSetupError) as caught:
        check_credentials(MIXED, env={})
    message = str(caught.value)
    assert (
        "environment variable OPENAI_API_KEY is not set (needed by agent alice, utility agent)"
        in message
    )
    assert "environment variable OPENROUTER_API_KEY is not set (needed by agent bob)" in message
    assert "carol" not in message and "dave" not in message  # keyless local server, simulation


def test_credentials_present_pass() -> None:
    check_credentials(MIXED, env={"OPENAI_API_KEY": "sk-a", "OPENROUTER_API_KEY": "sk-or-b"})


def test_blank_key_counts_as_missing() -> None:
    with pytest.raises(ProviderSetupError, match="OPENROUTER_API_KEY"):
        check_credentials(MIXED, env={"OPENAI_API_KEY": "sk-a", "OPENROUTER_API_KEY": "  "})


def test_simulated_run_needs_no_keys() -> None:
    check_credentials(
        config(UtilityConfig(), alice={}, bob={"model": "simulated"}),
        env={},
    )


def test_unknown_provider_prefix_is_refused_before_the_run() -> None:
    with pytest.raises(ProviderSetupError, match="agent bob: model 'anthropic:claude'"):
        check_credentials(config(alice={}, bob={"model": "anthropic:claude"}), env={})


@pytest.mark.parametrize(
    ("model", "provider", "expected"),
    [
        ("openai:gpt-4o", None, ("openai", "gpt-4o", "OPENAI_API_KEY", None)),
        ("gpt-4o-mini", None, ("openai", "gpt-4o-mini", "OPENAI_API_KEY", None)),
        (
            "ft:gpt-4o-mini:org::abc",
            None,
            ("openai", "ft:gpt-4o-mini:org::abc", "OPENAI_API_KEY", None),
        ),
        (
            "openai:gpt-4o",
            ProviderConfig(api_key_env="OPENAI_KEY_PROJECT_X"),
            ("openai", "gpt-4o", "OPENAI_KEY_PROJECT_X", None),
        ),
        ("llama3.1:8b", OLLAMA, ("compatible", "llama3.1:8b", None, "http://localhost:11434/v1")),
        (
            "openai/gpt-4o",
            OPENROUTER,
            ("compatible", "openai/gpt-4o", "OPENROUTER_API_KEY", "https://openrouter.ai/api/v1"),
        ),
        ("simulated", None, ("simulated", "simulated", None, None)),
    ],
)
def test_routes(model: str, provider: ProviderConfig | None, expected: tuple[Any, ...]) -> None:
    route = resolve_route(model, provider, who="alice")
    assert (route.kind, route.name, route.key_env, route.base_url) == expected


def test_build_openai_model_without_hidden_retries() -> None:
    model = build_model(
        "openai:gpt-4o", None, who="alice", env={"OPENAI_API_KEY": "sk-x"}, timeout_s=9
    )
    assert isinstance(model, OpenAIResponsesModel)
    client = model._client
    assert client.max_retries == 0 and client.api_key == "sk-x"
    assert str(client.base_url) == "https://api.openai.com/v1/"
    assert client.timeout == 9


def test_build_compatible_models() -> None:
    gemini = ProviderConfig(
        base_url="https://generativelanguage.googleapis.com/v1beta/openai/",
        api_key_env="GEMINI_API_KEY",
    )
    model = build_model("gemini-2.0-flash", gemini, who="utility", env={"GEMINI_API_KEY": "AIza-k"})
    assert isinstance(model, OpenAIChatCompletionsModel)
    assert model.model == "gemini-2.0-flash"
    assert model._client.max_retries == 0 and model._client.api_key == "AIza-k"
    assert str(model._client.base_url).startswith("https://generativelanguage.googleapis.com/")
    local = build_model("qwen2.5:7b", OLLAMA, who="carol", env={"OPENAI_API_KEY": "sk-openai"})
    assert isinstance(local, OpenAIChatCompletionsModel)
    assert local._client.api_key == NO_KEY_PLACEHOLDER


def test_build_model_names_agent_and_variable_when_key_is_missing() -> None:
    with pytest.raises(ProviderSetupError) as caught:
        build_model("openai/gpt-4o", OPENROUTER, who="utility", env={})
    assert str(caught.value) == (
        "environment variable OPENROUTER_API_KEY is not set "
        "(needed by utility agent, model openai/gpt-4o)"
    )


def test_simulated_is_the_experiments_policy_not_a_provider() -> None:
    """A provider never builds the simulated model; the executor wraps the experiment's own
    simulated policy for each participant and for the utility agent."""
    from maai.runtime.executors import LiveExecutor
    from maai.runtime.simulated import SimulatedModel

    with pytest.raises(ProviderSetupError, match="experiment's policy"):
        build_model("simulated", None, who="alice", env={})
    alice = AgentConfig(name="alice", personality="careful")
    cfg = FrohlichConfig(agents=[alice, AgentConfig(name="bob")], seed=5)
    executor = LiveExecutor(cfg, env={})
    participant = executor.model_for("alice")
    assert isinstance(participant, SimulatedModel)
    assert participant.policy.persona.name == "alice"  # type: ignore[attr-defined]
    assert participant.policy.seed == 5  # type: ignore[attr-defined]
    utility = executor.model_for("utility")
    assert isinstance(utility, SimulatedModel)
    assert type(utility.policy).__name__ == "SimulatedUtility"
    with pytest.raises(ProviderSetupError, match="not in the config"):
        executor.model_for("zoe")


def test_third_party_key_envs() -> None:
    shared = ProviderConfig(base_url="https://openrouter.ai/api/v1", api_key_env="OPENAI_API_KEY")
    cfg = config(
        alice={"model": "x", "provider": shared}, bob={"provider": OPENROUTER, "model": "y"}
    )
    assert third_party_key_envs(cfg) == {"OPENAI_API_KEY", "OPENROUTER_API_KEY"}
    assert third_party_key_envs(MIXED) == {"OPENROUTER_API_KEY"}


def test_scrub_removes_registered_keys_and_key_shapes() -> None:
    register_secret("local-secret-value-123")
    text = (
        "key local-secret-value-123 failed; Authorization: Bearer abc.def-ghi; "
        "Incorrect API key provided: sk-proj-********************ab12; "
        "gemini AIzaSyA1234567890abcdefghijkl"
    )
    clean = scrub(text)
    for secret in ("local-secret-value-123", "abc.def-ghi", "sk-proj-****", "ab12", "AIzaSyA12345"):
        assert secret not in clean
    assert "Bearer ***" in clean and "sk-***" in clean


@settings(max_examples=50, deadline=None)
@given(
    secret=st.text(
        st.characters(categories=["L", "N"], include_characters="-_."), min_size=4, max_size=40
    ),
    before=st.text(max_size=20),
    after=st.text(max_size=20),
)
def test_scrub_never_lets_a_given_secret_through(secret: str, before: str, after: str) -> None:
    assert secret not in scrub(before + secret + after, extra=[secret])


def test_an_embeddings_model_without_its_key_is_named_before_the_run() -> None:
    from maai.domain.world.config import WorldConfig
    from maai.runtime.config_files import read_config
    from tests.support.world_driver import CONFIGS

    data = read_config(CONFIGS / "world_pgg.yaml")  # its world file read in
    data["embeddings"] = {"model": "openai:text-embedding-3-small"}
    world = WorldConfig.model_validate(data)
    with pytest.raises(
        ProviderSetupError, match=r"OPENAI_API_KEY is not set \(needed by embeddings model\)"
    ):
        check_credentials(world, env={})
    check_credentials(world, env={"OPENAI_API_KEY": "sk-test"})


def test_the_embedder_is_built_as_an_embeddings_endpoint_not_a_chat_model() -> None:
    from maai.domain.embeddings import EMBEDDER
    from maai.runtime.embeddings import EmbeddingsModel

    model = build_model(
        "nomic-embed-text",
        ProviderConfig(base_url="http://127.0.0.1:1/v1"),
        who=EMBEDDER,
        env={},
    )
    assert isinstance(model, EmbeddingsModel) and model.model == "nomic-embed-text"
    assert model.client.max_retries == 0
