"""Pre-flight (docs/providers.md, "Pre-flight"): every distinct provider is reached once
before a run is created; a failure names the address and the key's variable.
Frohlich's config serves: pre-flight reads only the agents' providers, which every
experiment's config declares alike."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.frohlich.config import parse_config
from maai.ledger import EventStore
from maai.runtime.preflight import preflight
from maai.runtime.providers import ProviderSetupError
from tests.e2e.fake_model import FakeModel, serve_agent
from tests.e2e.runs import write_config
from tests.runtime.loopback_http import LoopbackServer, Reply, error_body, loopback_server


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("MAAI_PREFLIGHT", raising=False)


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with loopback_server() as srv:
        yield srv


def _config(*agents: tuple[str, str | None, str | None]) -> Any:
    entries = []
    for name, base_url, key_env in agents:
        entry: dict[str, Any] = {"name": name, "model": "simulated"}
        if base_url is not None:
            entry["model"] = "some-model"
            entry["provider"] = {"base_url": base_url, "api_key_env": key_env}
        entries.append(entry)
    return parse_config({"experiment": "frohlich", "agents": entries})


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_server_is_named_with_its_key_variable() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    config = _config(("Alice", url, "LOCAL_KEY"), ("Bob", url, "LOCAL_KEY"))
    with pytest.raises(ProviderSetupError) as caught:
        preflight(config, {"LOCAL_KEY": "sk-local-0123456789"}, timeout_s=5)
    (line,) = str(caught.value).splitlines()
    assert line.startswith(f"provider {url} (key from LOCAL_KEY; needed by agent Alice, agent Bob)")
    assert "cannot connect" in line and "sk-local" not in line


def test_a_refused_key_is_named(server: LoopbackServer) -> None:
    server.models_reply = Reply(401, error_body("Incorrect API key provided"))
    config = _config(("Alice", server.base_url, "LOCAL_KEY"), ("Bob", None, None))
    with pytest.raises(ProviderSetupError) as caught:
        preflight(config, {"LOCAL_KEY": "sk-local-0123456789"})
    message = str(caught.value)
    assert f"provider {server.base_url} (key from LOCAL_KEY; needed by agent Alice)" in message
    assert "HTTP 401: the key was refused (Incorrect API key provided)" in message


def test_each_server_is_reached_once(server: LoopbackServer) -> None:
    config = _config(("Alice", server.base_url, None), ("Bob", server.base_url, None))
    preflight(config, {})
    assert server.listed == ["/v1/models"] and server.received == []


def test_a_server_without_a_models_list_gets_a_one_token_call(server: LoopbackServer) -> None:
    from tests.runtime.loopback_http import chat_completion

    server.models_reply = Reply(404, error_body("no such route"))
    server.script(Reply(body=chat_completion(".")))
    preflight(_config(("Alice", server.base_url, None), ("Bob", None, None)), {})
    (call,) = server.received
    assert call.path == "/v1/chat/completions" and call.body["max_tokens"] == 1


def test_the_cli_creates_no_run_when_a_provider_is_down(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    config = write_config(
        tmp_path / "c.yaml", agents=3, rounds=1, edit=lambda d: serve_agent(d, "Bob", url)
    )
    db = str(tmp_path / "l.db")
    result = CliRunner().invoke(app, ["run", str(config), "--db", db])
    assert result.exit_code == 2, result.output
    assert f"provider {url} (no key (the provider names no api_key_env)" in result.output
    assert "run id" not in result.output
    with EventStore.open(db) as store:
        assert store.list_runs() == []


def test_the_cli_reaches_a_live_server_first_then_runs(tmp_path: Path) -> None:
    model = FakeModel()
    with loopback_server() as srv:
        srv.script(*[model.reply] * 10_000)
        config = write_config(
            tmp_path / "c.yaml",
            agents=3,
            rounds=1,
            edit=lambda d: serve_agent(d, "Bob", srv.base_url),
        )
        result = CliRunner().invoke(app, ["run", str(config), "--db", str(tmp_path / "l.db")])
        assert result.exit_code == 0, result.output
        assert srv.listed == ["/v1/models"]


def test_a_study_reaches_its_providers_before_any_run(tmp_path: Path) -> None:
    import yaml

    from tests.runtime.test_study import write_study

    url = f"http://127.0.0.1:{_closed_port()}/v1"
    study = write_study(tmp_path)
    base = tmp_path / "base.yaml"
    data = yaml.safe_load(base.read_text(encoding="utf-8"))
    data["agents"][0]["model"] = "some-model"
    data["agents"][0]["provider"] = {"base_url": url}
    data["agents"][0].pop("persona", None)
    base.write_text(yaml.safe_dump(data), encoding="utf-8")
    db = str(tmp_path / "l.db")
    result = CliRunner().invoke(app, ["study", "run", str(study), "--db", db])
    assert result.exit_code == 2, result.output
    assert f"provider {url}" in result.output and "cannot connect" in result.output
    with EventStore.open(db) as store:
        assert store.list_runs() == []
