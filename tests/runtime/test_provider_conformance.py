"""Conformance fixtures (docs/providers.md, "What each provider sends"): hand-written HTTP
exchanges in the shapes each provider documents (tests/fixtures/providers/, each file names
its source), replayed by the loopback server. Each is handled as documented, and a run fed
each provider's shapes completes, verifies and replays offline."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.config import ProviderConfig, RetryConfig
from maai.ledger import EventStore
from maai.runtime.call_errors import ModelCallError
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import load_config, start_run
from maai.runtime.verify import verify_events
from tests.e2e.fake_model import FakeModel, serve_agent
from tests.e2e.runs import write_config
from tests.runtime.loopback_http import (
    LoopbackServer,
    Received,
    Reply,
    chat_completion,
    loopback_server,
)
from tests.support.provider_calls import (
    Recorder,
    make_request,
    run_call,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "providers"
PROVIDERS = sorted(p.stem for p in FIXTURES.glob("*.json"))
OPENAI_ENV = "sk-openai-test-0000000000"


def _load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


CASES = [(name, exchange["case"]) for name in PROVIDERS for exchange in _load(name)["exchanges"]]


def _success_body(route: str) -> dict[str, Any]:
    if route == "compatible":
        return chat_completion("(a)")
    return {
        "id": "resp_ok",
        "object": "response",
        "created_at": 0,
        "model": "o4-mini",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_ok",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "(a)", "annotations": []}],
            }
        ],
        "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
    }


def test_every_provider_covers_every_case() -> None:
    wanted = {
        "usage_cached_reasoning",
        "context_length_exceeded",
        "content_filter",
        "tool_call_shaped",
        "rate_limited",
    }
    assert len(PROVIDERS) == 6
    for name in PROVIDERS:
        data = _load(name)
        assert data["source"] and data["provider"]
        cases = {e["case"] for e in data["exchanges"]}
        assert wanted <= cases and cases & {"empty_choices", "empty_output"}, name


@pytest.mark.parametrize(("provider", "case"), CASES)
def test_each_exchange_is_handled_as_documented(
    server: LoopbackServer, provider: str, case: str
) -> None:
    data = _load(provider)
    exchange = next(e for e in data["exchanges"] if e["case"] == case)
    expect = exchange["expect"]
    reply = Reply(exchange["status"], exchange["body"], exchange.get("headers", {}))
    server.script(reply, Reply(body=_success_body(data["route"])))
    recorder = Recorder()
    retry = RetryConfig(max_attempts=2, base_delay_s=0.001, max_delay_s=5, timeout_s=5)
    if data["route"] == "openai":
        env = {"OPENAI_API_KEY": OPENAI_ENV, "OPENAI_BASE_URL": server.base_url}
        request, provider_config = make_request(model="openai:o4-mini", temperature=None), None
    else:
        env, request = {}, make_request()
        provider_config = ProviderConfig(base_url=server.base_url)
    if "error_kind" in expect and not expect["retryable"]:
        with pytest.raises(ModelCallError):
            run_call(server, request, recorder, retry=retry, provider=provider_config, env=env)
        (failure,) = recorder.failures
        assert failure.error_kind == expect["error_kind"] and not failure.retryable
        assert failure.http_status == (exchange["status"] if exchange["status"] >= 400 else None)
        if "message" in expect:  # the server's own words, whatever the error's shape
            assert failure.message == expect["message"]
        return
    answer = run_call(server, request, recorder, retry=retry, provider=provider_config, env=env)
    if "error_kind" in expect:  # retried, then the next reply answered
        (failure,) = recorder.failures
        assert failure.error_kind == expect["error_kind"] and failure.retryable
        wanted_delay = expect.get("retry_delay_s")
        if isinstance(wanted_delay, float):
            assert recorder.sleeps == [wanted_delay]
        assert answer.text == "(a)" and answer.attempts == 2
        return
    assert recorder.failures == []
    assert answer.text == expect["text"]
    if "reasoning" in expect:
        assert answer.reasoning == expect["reasoning"]
    if expect.get("usage"):
        got = answer.usage
        assert {k: getattr(got, k) for k in expect["usage"]} == expect["usage"]
        assert got.unreadable == ()


def _shaped(provider: str) -> Any:
    """A reply function for a run: the fake model's answers in ``provider``'s success shape
    (its usage), with one content-filter reply, one tool-call reply and one rate limit
    (waited 0 s) early on."""
    data = _load(provider)
    by_case = {e["case"]: e for e in data["exchanges"]}
    model = FakeModel()
    early = [by_case["content_filter"], by_case["tool_call_shaped"], by_case["rate_limited"]]

    def reply(received: Received) -> Reply:
        if early:
            exchange = early.pop(0)
            headers = {"retry-after": "0"} if exchange["status"] == 429 else {}
            return Reply(exchange["status"], exchange["body"], headers)
        answer = model.reply(received)
        if answer.status != 200:
            return answer
        body = copy.deepcopy(by_case["usage_cached_reasoning"]["body"])
        body["choices"][0]["message"]["content"] = answer.body["choices"][0]["message"]["content"]
        return Reply(200, body)

    return reply


@pytest.mark.parametrize("provider", [p for p in PROVIDERS if _load(p)["route"] == "compatible"])
def test_a_run_on_each_providers_shapes_verifies_and_replays(tmp_path: Path, provider: str) -> None:
    reply = _shaped(provider)
    with loopback_server() as srv:
        srv.script(*[reply] * 10_000)

        def edit(data: dict[str, Any]) -> None:
            serve_agent(data, "Bob", srv.base_url)
            data["retry"] = {"max_attempts": 3, "base_delay_s": 0.01, "max_delay_s": 0.05}

        config = load_config(write_config(tmp_path / "c.yaml", agents=2, rounds=1, edit=edit))
        db = str(tmp_path / "l.db")
        with EventStore.open(db) as store:
            run_id = start_run(store, config)
            asyncio.run(Engine(store, run_id, LiveExecutor(config, env={})).run())
            assert store.get_run(run_id).status == "completed"
            assert verify_events(store.read(run_id)).ok
    # Offline: the server is gone.
    for command in ("verify", "replay"):
        result = CliRunner().invoke(app, [command, run_id, "--db", db])
        assert result.exit_code == 0, result.output
