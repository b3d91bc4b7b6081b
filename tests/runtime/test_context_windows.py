"""Context windows and token counts (docs/providers.md, "Context windows"): a request that
would not fit is not sent, and the run stops with a recorded, resumable error. Frohlich's
config serves: its discussion prompts grow, and the check is the call path's, whatever the
experiment."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from maai.domain.calls import ModelRequest
from maai.domain.config import ConfigError, ModelUser, ProviderConfig, validate_config
from maai.domain.events import ModelAttemptFailed
from maai.domain.frohlich.config import FrohlichConfig
from maai.ledger import EventStore
from maai.projections.history import history_from_stored
from maai.runtime.call_errors import ModelCallError
from maai.runtime.engine import Engine, RunFailedError
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import load_config, start_run
from maai.runtime.tokens import count_request, encoding
from maai.runtime.windows import (
    ASSUMED_WINDOW,
    DEFAULT_WINDOWS,
    default_window,
    window_of,
    window_warnings,
)
from tests.e2e.runs import write_config
from tests.runtime.loopback_http import LoopbackServer


def test_the_offline_encodings_are_openais() -> None:
    # Token ids published for these encodings (tiktoken's own tests use "hello world").
    assert encoding("o200k_base").encode_ordinary("hello world") == [24912, 2375]
    assert encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]


def test_openai_models_are_counted_exactly_and_others_estimated_with_a_margin() -> None:
    request = ModelRequest(
        address="p2/alice/r1/statement/1",
        agent="alice",
        purpose="statement",
        model="x",
        system="You are alice.",
        input="hello world " * 100,
    )
    exact = count_request(request, "gpt-4o", exact=True)
    body = len(encoding("o200k_base").encode_ordinary(request.system)) + len(
        encoding("o200k_base").encode_ordinary(request.input)
    )
    assert exact.exact and exact.tokens == body + 11 and exact.method == "o200k_base"
    older = count_request(request, "gpt-4", exact=True)
    assert older.method == "cl100k_base"
    estimate = count_request(request, "llama3.1:8b", exact=False)
    assert not estimate.exact and estimate.tokens >= exact.tokens * 1.25


def test_windows_come_from_the_config_else_the_name_else_an_assumption() -> None:
    def user(model: str, provider: ProviderConfig | None = None) -> ModelUser:
        return ModelUser(who="alice", model=model, provider=provider)

    assert window_of(user("openai:gpt-4o")).tokens == 128_000
    assert window_of(user("openai:gpt-4.1-mini")).tokens == 1_047_576
    local = ProviderConfig(base_url="http://localhost:11434/v1")
    assert window_of(user("llama3.1:8b", local)).tokens == 131_072
    declared = ProviderConfig(base_url="http://localhost:11434/v1", context_window=4096)
    assert window_of(user("llama3.1:8b", declared)).tokens == 4096
    unknown = window_of(user("my-finetune", local))
    assert unknown is not None and unknown.assumed and unknown.tokens == ASSUMED_WINDOW
    assert window_of(user("simulated")) is None


def test_an_unknown_model_gets_a_warning_naming_the_assumed_window() -> None:
    config = validate_config(
        FrohlichConfig,
        {
            "experiment": "frohlich",
            "agents": [
                {"name": "A", "model": "my-model", "provider": {"base_url": "http://h:1/v1"}},
                {"name": "B", "model": "simulated"},
            ],
        },
        "c.yaml",
    )
    (warning,) = window_warnings(config)
    assert "'my-model'" in warning and f"assuming {ASSUMED_WINDOW:,} tokens" in warning
    assert "agent A" in warning


@pytest.mark.parametrize("value", [-1, 0, 10**12])
def test_a_negative_or_absurd_window_is_one_line(value: int) -> None:
    data = {
        "experiment": "frohlich",
        "agents": [
            {
                "name": "A",
                "model": "m",
                "provider": {"base_url": "http://h/v1", "context_window": value},
            },
            {"name": "B", "model": "simulated"},
        ],
    }
    with pytest.raises(ConfigError) as caught:
        validate_config(FrohlichConfig, data, "c.yaml")
    (line,) = str(caught.value).splitlines()
    assert line.startswith("c.yaml: agents.0.provider.context_window: ")


def test_a_request_over_the_window_is_not_sent(server: LoopbackServer) -> None:
    config = validate_config(
        FrohlichConfig,
        {
            "experiment": "frohlich",
            "agents": [
                {
                    "name": "A",
                    "model": "openai:gpt-4o",
                    "provider": {"context_window": 1300, "max_output_tokens": 200},
                },
                {"name": "B", "model": "simulated"},
            ],
        },
        "c.yaml",
    )
    env = {"OPENAI_API_KEY": "sk-openai-test-0000000000", "OPENAI_BASE_URL": server.base_url}
    executor = LiveExecutor(config, env=env)
    request = ModelRequest(
        address="p2/A/r3/statement/1",
        agent="A",
        purpose="statement",
        model="openai:gpt-4o",
        system="You are A.",
        input="We should keep a floor. " * 200,  # about 1,200 tokens
    )
    failed: list[ModelAttemptFailed] = []
    with pytest.raises(ModelCallError) as caught:
        asyncio.run(executor.execute(request, failed.append))
    assert server.received == []
    (event,) = failed
    assert event.error_kind == "context_window" and not event.retryable
    tokens = count_request(request, "gpt-4o", exact=True).tokens
    assert f"request p2/A/r3/statement/1 needs {tokens:,} tokens (o200k_base)" in event.message
    assert "plus 200 kept for the answer" in event.message
    assert "context window of 1,300 tokens (context_window in the config)" in event.message
    assert "agent A" in str(caught.value)


def test_a_run_stops_with_a_recorded_resumable_error(tmp_path: Path) -> None:
    """A simulated agent given a small window: the run fails at the first request that would
    not fit, with the error recorded, and stays resumable."""

    def edit(data: dict[str, Any]) -> None:
        data["agents"][0]["provider"] = {"context_window": 2500, "max_output_tokens": 100}

    config = load_config(write_config(tmp_path / "c.yaml", agents=3, rounds=4, edit=edit))
    name = config.agents[0].name
    with EventStore.open(str(tmp_path / "l.db")) as store:
        run_id = start_run(store, config)
        with pytest.raises(RunFailedError) as caught:
            asyncio.run(Engine(store, run_id, LiveExecutor(config, env={})).run())
        assert store.get_run(run_id).status == "failed"
        history = history_from_stored(run_id, store.read(run_id))
        (event,) = [e for _, e in history.of(ModelAttemptFailed)]
        assert event.agent == name and event.error_kind == "context_window"
        assert "context window of 2,500 tokens" in event.message
        assert event.address in str(caught.value) or event.address in event.message
        # Resuming meets the same wall, and says so the same way (nothing lost, no crash).
        with pytest.raises(RunFailedError):
            asyncio.run(Engine(store, run_id, LiveExecutor(config, env={})).run())
        assert store.get_run(run_id).status == "failed"


def test_every_default_window_is_reachable_by_its_own_name() -> None:
    # The first fragment found wins: an entry shadowed by an earlier, shorter one (``o1``
    # before ``o1-preview``) would hand its models the wrong window.
    for fragment, tokens in DEFAULT_WINDOWS:
        assert default_window(fragment) == (fragment, tokens)
        assert default_window(f"Org/{fragment.upper()}-Instruct") == (fragment, tokens)
