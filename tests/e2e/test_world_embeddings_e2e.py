"""Embeddings from an OpenAI-compatible endpoint, end to end (docs/world.md §4): a world run
whose retrieval asks a loopback embeddings server, one request per distinct text, a failed
attempt retried visibly; then replay, verify and the audits with no network at all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.embeddings import EMBEDDER, decode_vector, local_vector
from maai.ledger import EventStore
from maai.runtime.config_files import read_config
from tests.e2e.history import decode
from tests.e2e.runs import REPO, run_in_process
from tests.runtime.loopback_http import LoopbackServer, Received, Reply, error_body
from tests.runtime.loopback_http import loopback_server as _loopback_server

RUN_ID = "20990101-000000-e4bed0"
MODEL = "nomic-embed-text"


def embedding(received: Received) -> Reply:
    [text] = received.body["input"]
    vector = [round(v, 6) for v in local_vector(text)]
    return Reply(
        body={
            "object": "list",
            "data": [{"object": "embedding", "index": 0, "embedding": vector}],
            "model": MODEL,
            "usage": {"prompt_tokens": len(text.split()), "total_tokens": len(text.split())},
        }
    )


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with pytest.MonkeyPatch.context() as patch:
        for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
            patch.delenv(var, raising=False)
        with _loopback_server() as srv:
            srv.script(Reply(500, error_body("warming up")), *[embedding] * 2000)
            yield srv


@pytest.fixture(scope="module")
def recorded(server: LoopbackServer, tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("world-embeddings")
    data = read_config(REPO / "configs" / "world_pgg.yaml")  # its world file read in
    data["embeddings"] = {"model": MODEL, "provider": {"base_url": server.base_url}}
    data["retry"] = {"base_delay_s": 0.01, "max_delay_s": 0.02}
    config = folder / "world.yaml"
    config.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    db = str(folder / "ledger.db")
    run_in_process(config, db, run_id=RUN_ID)
    return db


def test_each_distinct_text_is_sent_once_as_a_compatible_embeddings_request(
    recorded: str, server: LoopbackServer
) -> None:
    posts = [r for r in server.received if r.path.endswith("/embeddings")]
    assert posts and len(posts) == len(server.received)
    assert {r.body["model"] for r in posts} == {MODEL}
    assert {r.body["encoding_format"] for r in posts} == {"float"}
    texts = [r.body["input"][0] for r in posts]
    assert len(set(texts)) == len(texts) - 1  # the failed attempt was sent again


def test_the_ledger_holds_each_vector_as_the_server_sent_it(recorded: str) -> None:
    with EventStore.open(recorded) as store:
        events = [decode(e) for e in store.read(RUN_ID)]
    answers = {
        e.address: e.answer
        for e in events
        if getattr(e, "agent", None) == EMBEDDER and hasattr(e, "answer")
    }
    requests = {
        e.request.address: e.request
        for e in events
        if hasattr(e, "request") and e.request.agent == EMBEDDER
    }
    assert answers and set(answers) == set(requests)
    for address, answer in answers.items():
        sent = [round(v, 6) for v in local_vector(requests[address].input)]
        assert decode_vector(answer.text) == pytest.approx(sent, abs=1e-6)
    failed = [e for e in events if e.TYPE == "model.attempt_failed"]
    assert [(f.agent, f.status) for f in failed] == [(EMBEDDER, 500)]


def test_replay_verify_and_audits_need_no_network(recorded: str, offline: list[Any]) -> None:
    runner = CliRunner()
    replay = runner.invoke(app, ["replay", RUN_ID, "--db", recorded, "--json"])
    assert replay.exit_code == 0, replay.output
    summary = json.loads(replay.stdout)
    assert summary["status"] == "completed" and summary["embedding_calls"] > 0
    for command in (["verify"], ["audit", "protocol"], ["audit", "leaks"]):
        result = runner.invoke(app, [*command, RUN_ID, "--db", recorded])
        assert result.exit_code == 0 and result.stdout.startswith("ok:"), result.output
    assert offline == []
