"""Tracing: one trace per run, exported to OpenAI only with an OpenAI key.

The exporter is the SDK's real one, pointed at a loopback server standing in for OpenAI's
trace endpoint, so what would have been sent (and with which Authorization) is observable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from agents.tracing import custom_span, set_trace_processors
from agents.tracing.processors import BackendSpanExporter, BatchTraceProcessor, default_processor

from maai.runtime.recording import ModelCaller
from maai.runtime.tracing import export_key, run_trace
from tests.runtime.fake_models import EchoModel, session
from tests.runtime.loopback_http import LoopbackServer, Reply, loopback_server

OPENAI_KEY = "sk-openai-tracing-0000000000"
ROUTER_KEY = "sk-or-v1-third-party-1111111111"


@pytest.fixture
def ingest(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LoopbackServer, BatchTraceProcessor]]:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    with loopback_server() as server:
        exporter = BackendSpanExporter(endpoint=f"{server.url}/v1/traces/ingest", max_retries=1)
        processor = BatchTraceProcessor(exporter, schedule_delay=60)
        set_trace_processors([processor])
        try:
            yield server, processor
        finally:
            set_trace_processors([default_processor()])
            processor.shutdown()


def traced_run(
    env: dict[str, str], *, enabled: bool = True, third_party: frozenset[str] = frozenset()
) -> str | None:
    """A run's worth of tracing: the trace, a span, and a model call inside it."""
    with (
        run_trace("run-1", "maai test run", enabled, env, third_party_key_envs=third_party) as tid,
        custom_span("phase1"),
    ):
        asyncio.run(ModelCaller().call(session()[0], EchoModel()))
    return tid


def exported(server: LoopbackServer, processor: BatchTraceProcessor) -> list[str]:
    server.script(*(Reply(body={}) for _ in range(10)))
    processor.force_flush()
    return [r.headers["authorization"] for r in server.received]


def test_only_third_party_keys_exports_nothing(
    ingest: tuple[LoopbackServer, BatchTraceProcessor], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Even with the OpenRouter key exported as OPENAI_API_KEY in the process environment,
    # where the SDK's exporter would look for a key of its own accord.
    monkeypatch.setenv("OPENAI_API_KEY", ROUTER_KEY)
    env = {"OPENROUTER_API_KEY": ROUTER_KEY}
    assert traced_run(env, third_party=frozenset({"OPENROUTER_API_KEY"})) is None
    assert exported(*ingest) == []


def test_openai_key_exports_with_that_key_only(
    ingest: tuple[LoopbackServer, BatchTraceProcessor], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-some-other-process-key-2222")
    env = {"OPENAI_API_KEY": OPENAI_KEY, "OPENROUTER_API_KEY": ROUTER_KEY}
    trace_id = traced_run(env, third_party=frozenset({"OPENROUTER_API_KEY"}))
    assert trace_id is not None and trace_id.startswith("trace_")
    server, processor = ingest
    headers = exported(server, processor)
    assert headers and set(headers) == {f"Bearer {OPENAI_KEY}"}
    body = server.received[0].body
    ids = {item.get("trace_id") or item.get("id") for item in body["data"]}
    assert trace_id in ids
    assert ROUTER_KEY not in str([r.body for r in server.received])


def test_openai_key_variable_used_by_a_third_party_is_not_exported(
    ingest: tuple[LoopbackServer, BatchTraceProcessor],
) -> None:
    env = {"OPENAI_API_KEY": ROUTER_KEY}
    assert traced_run(env, third_party=frozenset({"OPENAI_API_KEY"})) is None
    assert exported(*ingest) == []


def test_tracing_disabled_in_config_exports_nothing(
    ingest: tuple[LoopbackServer, BatchTraceProcessor],
) -> None:
    assert traced_run({"OPENAI_API_KEY": OPENAI_KEY}, enabled=False) is None
    assert exported(*ingest) == []


@pytest.mark.parametrize(
    ("enabled", "env", "third_party", "expected"),
    [
        (True, {"OPENAI_API_KEY": OPENAI_KEY}, set(), OPENAI_KEY),
        (False, {"OPENAI_API_KEY": OPENAI_KEY}, set(), None),
        (True, {}, set(), None),
        (True, {"OPENAI_API_KEY": " "}, set(), None),
        (True, {"OPENAI_API_KEY": ROUTER_KEY}, {"OPENAI_API_KEY"}, None),
        # The same key under another name is still the third party's.
        (True, {"OPENAI_API_KEY": ROUTER_KEY, "OR_KEY": ROUTER_KEY}, {"OR_KEY"}, None),
        (True, {"OPENAI_API_KEY": OPENAI_KEY, "OR_KEY": ROUTER_KEY}, {"OR_KEY"}, OPENAI_KEY),
    ],
)
def test_export_key(
    enabled: bool, env: dict[str, str], third_party: set[str], expected: str | None
) -> None:
    assert export_key(enabled, env, third_party_key_envs=third_party) == expected


def test_a_configured_tracing_key_variable() -> None:
    env = {"MAAI_TRACING_KEY": OPENAI_KEY}
    assert export_key(True, env, key_env="MAAI_TRACING_KEY") == OPENAI_KEY
