"""Reasoning models and per-agent parameters (docs/providers.md, "Reasoning models"):
``max_output_tokens`` and ``reasoning_effort`` in each API's own field, refused parameters as
one config error before the run, reasoning summaries recorded as private reasoning.
Frohlich's config serves: the parameters are the agents' own, alike in every experiment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.config import ProviderConfig
from maai.domain.frohlich.config import parse_config
from maai.runtime.parameters import check_parameters
from maai.runtime.providers import ProviderSetupError
from tests.e2e.runs import write_config
from tests.runtime.loopback_http import LoopbackServer, Reply, chat_completion
from tests.support.provider_calls import (
    Recorder,
    make_request,
    run_call,
)

OPENAI_ENV_KEY = "sk-openai-test-0000000000"


def _responses_body(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "o4-mini",
        "status": "completed",
        "output": output,
        "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7},
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
    }


MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "(a)", "annotations": []}],
}


def test_chat_completions_get_max_tokens_and_reasoning_effort(server: LoopbackServer) -> None:
    server.script(Reply(body=chat_completion("(a)")))
    provider = ProviderConfig(
        base_url=server.base_url, max_output_tokens=300, reasoning_effort="low"
    )
    run_call(server, make_request(temperature=None), Recorder(), provider=provider, env={})
    (got,) = server.received
    assert got.body["max_tokens"] == 300 and got.body["reasoning_effort"] == "low"
    assert "temperature" not in got.body


def test_responses_get_max_output_tokens_and_a_reasoning_summary(server: LoopbackServer) -> None:
    reasoning = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "The floor protects the worst off."}],
    }
    server.script(Reply(body=_responses_body([reasoning, MESSAGE])))
    env = {"OPENAI_API_KEY": OPENAI_ENV_KEY, "OPENAI_BASE_URL": server.base_url}
    provider = ProviderConfig(max_output_tokens=500, reasoning_effort="high")
    answer = run_call(
        server,
        make_request(model="openai:o4-mini", temperature=None),
        Recorder(),
        provider=provider,
        env=env,
    )
    (got,) = server.received
    assert got.body["max_output_tokens"] == 500
    assert got.body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert answer.text == "(a)"
    assert answer.reasoning == "The floor protects the worst off."


def test_a_compatible_servers_reasoning_content_is_recorded(server: LoopbackServer) -> None:
    body = chat_completion("(b)")
    body["choices"][0]["message"]["reasoning_content"] = "Averages matter more to me."
    server.script(Reply(body=body))
    answer = run_call(server, make_request(), Recorder())
    assert answer.text == "(b)" and answer.reasoning == "Averages matter more to me."


def test_an_answer_without_reasoning_stores_no_reasoning_key(server: LoopbackServer) -> None:
    server.script(Reply(body=chat_completion("(b)")))
    answer = run_call(server, make_request(), Recorder())
    assert answer.reasoning is None and "reasoning" not in answer.model_dump(mode="json")


def _config(**utility: Any) -> Any:
    return parse_config(
        {
            "experiment": "frohlich",
            "agents": [
                {"name": "Alice", "model": "openai:o3-mini", "temperature": 0.7},
                {
                    "name": "Bob",
                    "model": "openai:gpt-4o",
                    "provider": {"reasoning_effort": "medium"},
                },
                {
                    "name": "Carmen",
                    "model": "openai:gpt-5-mini",
                    "provider": {"reasoning_effort": "minimal"},
                },
            ],
            "utility": {"model": "openai:o4-mini", **utility},
        }
    )


def test_refused_parameters_are_one_config_error_naming_each() -> None:
    with pytest.raises(ProviderSetupError) as caught:
        check_parameters(_config())
    lines = str(caught.value).splitlines()
    assert lines == [
        "agent Alice: model openai:o3-mini refuses temperature (reasoning models take no "
        "temperature); set its temperature to null",
        "agent Bob: model openai:gpt-4o refuses reasoning_effort (only reasoning models take a "
        "reasoning effort); remove provider.reasoning_effort or choose another value",
        # The utility agent's default temperature (0.0) too: it must be set to null.
        "utility agent: model openai:o4-mini refuses temperature (reasoning models take no "
        "temperature); set its temperature to null",
    ]


def test_the_cli_refuses_before_any_run(tmp_path: Path) -> None:
    def edit(data: dict[str, Any]) -> None:
        data["agents"][0]["model"] = "openai:o3"
        data["agents"][0]["temperature"] = 0.5
        data["agents"][0].pop("persona", None)

    config = write_config(tmp_path / "c.yaml", agents=2, rounds=1, edit=edit)
    result = CliRunner().invoke(
        app,
        ["run", str(config), "--db", str(tmp_path / "l.db")],
        env={"OPENAI_API_KEY": OPENAI_ENV_KEY, "MAAI_PREFLIGHT": "off"},
    )
    assert result.exit_code == 2, result.output
    assert "model openai:o3 refuses temperature" in result.output
    assert "run id" not in result.output
