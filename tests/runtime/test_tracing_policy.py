"""Tracing: one trace per run, exported to OpenAI only for a run that calls OpenAI's API (or
when asked for with MAAI_TRACING=openai), and only with an OpenAI key.

The exporter is the SDK's real one, pointed at a loopback server standing in for OpenAI's
trace endpoint, so what would have been sent (and with which Authorization) is observable.
Frohlich's config serves: the policy reads the agents' routes, alike in every experiment.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from agents.tracing import custom_span, set_trace_processors
from agents.tracing.processors import BackendSpanExporter, BatchTraceProcessor, default_processor

from maai.domain.frohlich.config import parse_config
from maai.runtime.recording import ModelCaller
from maai.runtime.tracing import export_key, openai_key_envs, run_trace, trace_key_env
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
    env: dict[str, str],
    *,
    enabled: bool = True,
    third_party: frozenset[str] = frozenset(),
    uses_openai: bool = True,
) -> str | None:
    """A run's worth of tracing: the trace, a span, and a model call inside it."""
    with (
        run_trace(
            "run-1",
            "maai test run",
            enabled,
            env,
            uses_openai=uses_openai,
            third_party_key_envs=third_party,
        ) as tid,
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
    got = export_key(enabled, env, uses_openai=True, third_party_key_envs=third_party)
    assert got == expected


def test_a_configured_tracing_key_variable() -> None:
    env = {"MAAI_TRACING_KEY": OPENAI_KEY}
    assert export_key(True, env, uses_openai=True, key_env="MAAI_TRACING_KEY") == OPENAI_KEY


# --- only runs that call OpenAI's API, unless asked for -----------------------------------


def test_a_run_without_openai_models_exports_nothing_even_with_the_key_set(
    ingest: tuple[LoopbackServer, BatchTraceProcessor], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    assert traced_run({"OPENAI_API_KEY": OPENAI_KEY}, uses_openai=False) is None
    assert exported(*ingest) == []


def test_tracing_to_openai_can_be_asked_for(
    ingest: tuple[LoopbackServer, BatchTraceProcessor],
) -> None:
    env = {"OPENAI_API_KEY": OPENAI_KEY, "MAAI_TRACING": "openai"}
    assert traced_run(env, uses_openai=False) is not None
    assert set(exported(*ingest)) == {f"Bearer {OPENAI_KEY}"}


def test_maai_tracing_off_turns_it_off(
    ingest: tuple[LoopbackServer, BatchTraceProcessor],
) -> None:
    env = {"OPENAI_API_KEY": OPENAI_KEY, "MAAI_TRACING": "off"}
    assert traced_run(env, uses_openai=True) is None
    assert exported(*ingest) == []


@pytest.mark.parametrize(
    ("uses_openai", "asked", "expected"),
    [
        (True, None, OPENAI_KEY),
        (False, None, None),
        (False, "auto", None),
        (False, "openai", OPENAI_KEY),
        (False, "OpenAI ", OPENAI_KEY),
        (True, "off", None),
        (False, "off", None),
    ],
)
def test_export_needs_an_openai_run_or_an_explicit_request(
    uses_openai: bool, asked: str | None, expected: str | None
) -> None:
    env = {"OPENAI_API_KEY": OPENAI_KEY, **({"MAAI_TRACING": asked} if asked else {})}
    assert export_key(True, env, uses_openai=uses_openai) == expected


@pytest.mark.parametrize(
    ("base_url", "expected"),
    [
        ("https://api.openai.com/v1", OPENAI_KEY),
        ("https://eu.api.openai.com/v1", OPENAI_KEY),
        ("", OPENAI_KEY),
        ("http://127.0.0.1:8080/v1", None),  # a local stand-in for OpenAI's API
        ("https://gateway.example.com/openai/v1", None),  # a proxy: its key is its own
        ("https://openai.com.evil.example/v1", None),
    ],
)
def test_an_openai_route_sent_elsewhere_by_openai_base_url_is_no_openai_run(
    base_url: str, expected: str | None
) -> None:
    env = {"OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": base_url}
    assert export_key(True, env, uses_openai=True) == expected
    # Asked for explicitly, the trace still goes to OpenAI, as for a run of other models.
    asked = {**env, "MAAI_TRACING": "openai"}
    assert export_key(True, asked, uses_openai=True) == OPENAI_KEY


def test_an_explicit_request_never_exports_a_third_partys_key() -> None:
    env = {"OPENAI_API_KEY": ROUTER_KEY, "OR_KEY": ROUTER_KEY, "MAAI_TRACING": "openai"}
    assert export_key(True, env, uses_openai=False, third_party_key_envs={"OR_KEY"}) is None
    assert export_key(False, env, uses_openai=True) is None  # tracing: false wins


ROUTER = {"base_url": "https://openrouter.ai/api/v1", "api_key_env": "OPENROUTER_API_KEY"}


@pytest.mark.parametrize(
    ("agents", "utility", "envs", "key_env"),
    [
        ([{"name": "a"}, {"name": "b"}], {}, (), "OPENAI_API_KEY"),
        (
            [{"name": "a", "model": "llama3.1:8b", "provider": ROUTER}, {"name": "b"}],
            {},
            (),
            "OPENAI_API_KEY",
        ),
        (
            [{"name": "a"}, {"name": "b"}],
            {"model": "openai:gpt-4.1-mini"},
            ("OPENAI_API_KEY",),
            "OPENAI_API_KEY",
        ),
        (
            [
                {"name": "a", "model": "gpt-4o", "provider": {"api_key_env": "MY_OPENAI"}},
                {"name": "b"},
            ],
            {},
            ("MY_OPENAI",),
            "MY_OPENAI",
        ),
    ],
)
def test_which_runs_call_openai(
    agents: list[dict[str, object]], utility: dict[str, str], envs: tuple[str, ...], key_env: str
) -> None:
    config = parse_config({"agents": agents, **({"utility": utility} if utility else {})})
    assert openai_key_envs(config) == envs
    assert trace_key_env(config) == key_env


def test_the_cli_does_not_trace_a_simulated_run_with_an_openai_key_set(
    ingest: tuple[LoopbackServer, BatchTraceProcessor], monkeypatch: pytest.MonkeyPatch
) -> None:
    from maai.cli.run_commands import _trace
    from maai.runtime.runs import load_config

    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.delenv("MAAI_TRACING", raising=False)
    monkeypatch.delenv("OPENAI_AGENTS_DISABLE_TRACING", raising=False)
    config = load_config("configs/default.yaml")
    with _trace("run-x", config) as trace_id:
        assert trace_id is None
    assert exported(*ingest) == []
    monkeypatch.setenv("MAAI_TRACING", "openai")
    with _trace("run-x", config) as trace_id:
        assert trace_id is not None
    assert set(exported(*ingest)) == {f"Bearer {OPENAI_KEY}"}
