"""One model call through maai's provider path, over real HTTP, to the tests' own loopback
server (tests/runtime/loopback_http.py): the fixtures and helpers the provider tests share.

``from tests.support.provider_calls import no_proxies, server`` in a test module gives it
the loopback server as ``server`` and keeps proxies from the environment away from its
traffic (the import is what pytest collects as the module's fixtures)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import pytest

from maai.domain.calls import ModelAnswer, ModelRequest
from maai.domain.config import ProviderConfig, RetryConfig
from maai.domain.frohlich.purposes import Purpose
from maai.runtime.call_errors import AttemptFailure
from maai.runtime.providers import build_model
from maai.runtime.recording import ModelCaller
from tests.runtime.loopback_http import LoopbackServer, loopback_server

KEY_ENV = "LOCAL_LLM_KEY"
KEY = "sk-local-0123456789abcdef"
MODEL = "llama3.1:8b"
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy")


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    # A proxy from the environment would take loopback traffic elsewhere.
    for var in PROXY_VARIABLES:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with loopback_server() as srv:
        yield srv


def responses_body(
    text: str,
    *,
    model: str = "gpt-4o",
    input_tokens: int = 5,
    output_tokens: int = 2,
    cached: int = 0,
    reasoning: int = 0,
) -> dict[str, Any]:
    """A Responses API body (``POST /responses``) as OpenAI sends it: one message, and its
    usage with the cached input and reasoning tokens."""
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": model,
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens_details": {"reasoning_tokens": reasoning},
        },
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
    }


class Recorder:
    """Stands in for the engine: keeps what it would append to the ledger."""

    def __init__(self) -> None:
        self.failures: list[AttemptFailure] = []
        self.sleeps: list[float] = []

    async def on_failed(self, failure: AttemptFailure) -> None:
        self.failures.append(failure)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


def make_request(**overrides: Any) -> ModelRequest:
    # A Frohlich request: the call path sends any experiment's request alike, the purpose
    # being a label it only names in its messages.
    fields: dict[str, Any] = {
        "address": "p1/alice/r3/choice/1",
        "agent": "alice",
        "purpose": Purpose.CHOICE,
        "model": MODEL,
        "system": "You are alice.",
        "input": "Which principle do you choose?",
        "temperature": 0.3,
    }
    fields.update(overrides)
    return ModelRequest(**fields)


def run_call(
    server: LoopbackServer,
    request: ModelRequest,
    recorder: Recorder,
    *,
    retry: RetryConfig | None = None,
    provider: ProviderConfig | None | str = "loopback",
    env: dict[str, str] | None = None,
) -> ModelAnswer:
    retry = retry or RetryConfig(max_attempts=3, base_delay_s=0.001, max_delay_s=30, timeout_s=5)
    if provider == "loopback":
        provider = ProviderConfig(base_url=server.base_url, api_key_env=KEY_ENV)
    assert not isinstance(provider, str)
    model = build_model(
        request.model,
        provider,
        who=request.agent,
        env={KEY_ENV: KEY} if env is None else env,
        timeout_s=retry.timeout_s,
    )
    caller = ModelCaller(retry, rng=random.Random(7), sleep=recorder.sleep)
    return asyncio.run(caller.call(request, model, on_attempt_failed=recorder.on_failed))
