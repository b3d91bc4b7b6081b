"""A Frohlich run whose every agent is an OpenAI model on the Responses API, through
``maai run`` against the loopback fake model (pre-flight, calls, usage), then verified and
replayed with the server gone (docs/providers.md, "Routes")."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from tests.e2e.fake_model import FakeModel, serve_everyone_by_responses
from tests.e2e.runs import write_config
from tests.runtime.loopback_http import loopback_server

runner = CliRunner()


def test_a_run_on_the_responses_api_records_verifies_and_replays_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    config = write_config(
        tmp_path / "responses.yaml", agents=2, rounds=2, edit=serve_everyone_by_responses
    )
    db = str(tmp_path / "responses.db")
    model = FakeModel()
    with loopback_server() as server:
        server.script(*[model.reply] * 1_000)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-Q7vX2mK9pL4wZt8R")
        result = runner.invoke(app, ["run", str(config), "--db", db])
    assert result.exit_code == 0, result.output
    assert model.unknown == [] and model.answered > 10
    assert server.listed == ["/v1/models"]  # pre-flight: the provider reached once
    assert {r.path for r in server.received} == {"/v1/responses"}
    assert all(r.body["model"] == "gpt-4o-mini" for r in server.received)
    (run_line,) = [line for line in result.stdout.splitlines() if line.startswith("run id: ")]
    run_id = run_line.removeprefix("run id: ").strip()
    # The provider's usage as the run's summary shows it: of each call's 40 input tokens 8
    # came from the cache, of its 12 output tokens 3 were reasoning.
    calls = model.answered
    usage = (
        f"input tokens {calls * 40:,} ({calls * 8:,} cached), "
        f"output tokens {calls * 12:,} ({calls * 3:,} reasoning)"
    )
    assert usage in result.stdout.splitlines(), result.stdout
    assert "Tracing" not in result.output  # the config turns tracing off: nothing exported

    # The server is gone: verify and replay read the recording alone.
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    verify = runner.invoke(app, ["verify", run_id, "--db", db])
    assert verify.exit_code == 0, verify.output
    assert verify.stdout.startswith("ok: ")
    replay = runner.invoke(app, ["replay", run_id, "--db", db])
    assert replay.exit_code == 0, replay.output
    assert "status: completed" in replay.stdout
