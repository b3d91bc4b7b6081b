"""Fixtures of the end-to-end tests: CLI child processes, reference runs, ledger locations."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from maai.domain.config import ExperimentConfig
from maai.domain.events import ModelCallCompleted
from maai.ledger import EventStore
from maai.runtime import executors, providers
from maai.runtime.engine import CallExecutor
from maai.runtime.executors import LiveExecutor
from maai.runtime.recording import ModelCaller
from tests.e2e.fake_model import FakeModel, serve_agent, serve_everyone_by_responses
from tests.e2e.history import decode
from tests.e2e.launcher import Launcher
from tests.e2e.runs import Recorded, References, run_in_process, write_config
from tests.runtime.loopback_http import loopback_server


@pytest.fixture(scope="session")
def launcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Launcher]:
    """Starts ``maai`` children; any still running at the end of the session are killed."""
    started = Launcher(tmp_path_factory.mktemp("maai-logs"))
    try:
        yield started
    finally:
        started.close()


@pytest.fixture
def cli(launcher: Launcher) -> Iterator[Launcher]:
    """The launcher, with every child a test started killed when the test ends."""
    try:
        yield launcher
    finally:
        launcher.close()


@pytest.fixture(scope="session")
def references(launcher: Launcher, tmp_path_factory: pytest.TempPathFactory) -> References:
    return References(launcher, tmp_path_factory.mktemp("references"))


# With 20 ms per model call a run takes a couple of seconds and its ledger keeps up with the
# engine (with no latency at all the engine races ahead of the store's writer thread, whose
# queue is then written out on Ctrl-C): a signal lands in the middle of the work.
LATENCY_MS = 20


@pytest.fixture(scope="session")
def latency_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three simulated agents, three Phase-2 rounds, 20 ms per model call."""
    folder = tmp_path_factory.mktemp("latency")
    return write_config(folder / "latency.yaml", agents=3, rounds=3, latency_ms=LATENCY_MS)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh ledger location: a SQLite file, or a PostgreSQL schema of its own (skipped with
    the reason when ``MAAI_TEST_POSTGRES_URL`` is unset or does not answer)."""
    if request.param == "sqlite":
        return str(tmp_path / "ledger.db")
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture(scope="session", params=["chat_completions", "responses"])
def recorded_run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Recorded:
    """A finished run, recorded in this process against the fake model over loopback HTTP:
    ``chat_completions``: Bob through an OpenAI-compatible server's Chat Completions, the
    others simulated; ``responses``: every agent an OpenAI model through the Responses API."""
    folder = tmp_path_factory.mktemp(f"recorded-{request.param}")
    model = FakeModel()
    with pytest.MonkeyPatch.context() as patch, loopback_server() as server:
        for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
            patch.delenv(var, raising=False)  # a proxy would take loopback traffic elsewhere
        server.script(*[model.reply] * 10_000)
        # The OpenAI route's address and key come from the environment, as in a real run.
        env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-fake-0000000000"}

        def by_responses(config: ExperimentConfig) -> CallExecutor:
            return LiveExecutor(config, env=env)

        def bob_by_chat(data: dict[str, Any]) -> None:
            serve_agent(data, "Bob", server.base_url)

        responses = request.param == "responses"
        config = write_config(
            folder / "recorded.yaml",
            agents=3,
            rounds=3,
            edit=serve_everyone_by_responses if responses else bob_by_chat,
        )
        db = str(folder / "recorded.db")
        run_id = run_in_process(config, db, executor=by_responses if responses else None)
    assert model.unknown == [] and model.answered > 10
    if request.param == "responses":
        assert model.responses == model.answered
        assert {r.path for r in server.received} == {"/v1/responses"}
        with EventStore.open(db) as store:
            usages = {
                (u.input_tokens, u.cached_input_tokens, u.output_tokens, u.reasoning_tokens)
                for e in store.read(run_id)
                if isinstance(event := decode(e), ModelCallCompleted)
                and (u := event.answer.usage).requests
            }
        assert usages == {(40, 8, 12, 3)}  # the Responses API's usage, as the server sent it
    else:
        assert model.responses == 0
    return Recorded(config, db, run_id)


class NetworkBlocked(OSError):
    pass


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """No connection to anywhere, loopback included, and no model that can be called (the
    hermetic replay tests of every experiment). Returns the list of attempted connections
    (each also raised)."""
    attempts: list[Any] = []

    def connect(self: socket.socket, address: Any) -> NoReturn:
        attempts.append(address)
        raise NetworkBlocked(f"network blocked by the test: connect to {address!r}")

    def connect_ex(self: socket.socket, address: Any) -> NoReturn:
        connect(self, address)

    def no_model(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("a model was set up during a replay")

    async def failing_call(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("a model was called during a replay")

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(providers, "build_model", no_model)
    monkeypatch.setattr(executors.LiveExecutor, "model_for", no_model)
    monkeypatch.setattr(ModelCaller, "call", failing_call)
    with pytest.raises(NetworkBlocked):
        socket.create_connection(("127.0.0.1", 9), timeout=1)
    attempts.clear()
    return attempts
