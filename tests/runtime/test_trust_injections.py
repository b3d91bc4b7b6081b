"""Resume trusts nothing unverified (docs/ledger.md, "Trust before acting"): each injection of
an adversary with write access to the ledger is refused before any request leaves. Every run
here names a loopback server as its provider, which counts what reaches it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from maai.canonical import canonical_json
from maai.cli.app import app
from maai.ledger import EventStore, envelope_hash, format_recorded_at
from maai.runtime import signing
from maai.runtime.engine import Engine, RunFailedError
from maai.runtime.runs import config_snapshot, load_config, start_run
from tests.runtime.adversary import Adversary
from tests.runtime.loopback_http import LoopbackServer, chat_completion, loopback_server

CONFIG = Path(__file__).parents[2] / "configs" / "collaboration_openai_compatible.yaml"
KEY_ENV = "MAAI_TRUST_TEST_KEY"
runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "200", KEY_ENV: "sk-trust-0123456789"})


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with loopback_server() as srv:
        srv.script(*(lambda _: _answer() for _ in range(200)))
        yield srv


def _answer() -> Any:
    from tests.runtime.loopback_http import Reply

    return Reply(body=chat_completion("I agree."))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "l.db")
    found: str = request.getfixturevalue("postgres_url")
    return found


def pointed_at(server: LoopbackServer) -> Any:
    """The example config with every model user on the loopback server, with a key."""
    config = load_config(CONFIG)
    data = config_snapshot(config)
    for user in [*data["agents"], data["utility"]]:
        user["provider"] = {**user["provider"], "base_url": server.base_url, "api_key_env": KEY_ENV}
    return type(config).model_validate(data)


class _Refusing:
    async def execute(self, request: object, on_attempt_failed: object) -> object:
        raise RuntimeError("the provider is down")


def failed_run(url: str, server: LoopbackServer, signing_key: str) -> str:
    """A run that failed at its first call, signed, its provider the loopback server (no
    request made: the executor refused)."""
    config = pointed_at(server)
    with EventStore.open(url, upgrade=True) as store:
        run_id = start_run(store, config)
        engine = Engine(
            store,
            run_id,
            _Refusing(),  # type: ignore[arg-type]
            signer=signing.load_signer(Path(signing_key)),
        )
        with pytest.raises(RunFailedError):
            asyncio.run(engine.run())
        assert store.get_run(run_id).status == "failed"
    return run_id


def refused(url: str, run_id: str, server: LoopbackServer, *, says: str) -> None:
    with EventStore.open(url) as store:
        head, checkpoints = store.head(run_id), len(store.checkpoints(run_id))
    result = invoke("resume", run_id, "--db", url, "-q")
    assert result.exit_code in (1, 2), result.output
    assert says in result.stderr, result.stderr
    assert server.received == []  # no request left
    with EventStore.open(url) as store:
        assert store.head(run_id) == head
        assert len(store.checkpoints(run_id)) == checkpoints  # nothing signed


def test_the_legitimate_failed_run_resumes_through_the_server(
    url: str, server: LoopbackServer, signing_key: str
) -> None:
    """The control: the same run, untouched, resumes and its requests reach the server."""
    run_id = failed_run(url, server, signing_key)
    result = invoke("resume", run_id, "--db", url, "-q")
    assert result.exit_code == 0, result.output
    assert server.received and all(
        r.headers["authorization"] == "Bearer sk-trust-0123456789" for r in server.received
    )


def test_a_run_row_inserted_with_no_events_is_refused(
    url: str, server: LoopbackServer
) -> None:
    with EventStore.open(url, upgrade=True) as store:
        store.create_run(
            "20260101-000000-f0f0f0", "collaboration", config_snapshot(pointed_at(server))
        )
    refused(url, "20260101-000000-f0f0f0", server, says="has no events: it was never started")


def test_a_run_killed_between_its_creation_writes_with_its_row_edited_is_refused(
    url: str, server: LoopbackServer
) -> None:
    legit = load_config(CONFIG)  # its provider is elsewhere: the row is edited to the server
    with EventStore.open(url, upgrade=True) as store:
        store.create_run("20260101-000000-0a0a0a", "collaboration", config_snapshot(legit))
    Adversary(url).sql(
        "UPDATE runs SET config = ? WHERE run_id = ?",
        (json.dumps(config_snapshot(pointed_at(server))), "20260101-000000-0a0a0a"),
    )
    refused(url, "20260101-000000-0a0a0a", server, says="has no events: it was never started")


@pytest.mark.parametrize("checkpoints", ["kept", "deleted"])
def test_an_edited_and_rehashed_run_started_is_refused(
    url: str, server: LoopbackServer, signing_key: str, checkpoints: str
) -> None:
    run_id = failed_run(url, server, signing_key)
    adversary = Adversary(url)

    def warmer(payload: dict[str, Any]) -> dict[str, Any]:
        payload["config"]["agents"][0]["temperature"] = 1.5
        return payload

    adversary.rewrite(run_id, {1: warmer})
    if checkpoints == "deleted":
        adversary.delete_checkpoints(run_id)
    says = "signing evidence missing" if checkpoints == "deleted" else "another hash"
    refused(url, run_id, server, says=says)


def test_an_answer_appended_by_an_insert_only_attacker_is_refused(
    url: str, server: LoopbackServer, signing_key: str
) -> None:
    """INSERT alone: a forged answer chained onto the failed run's head, whose row (the
    head seq) the attacker cannot update."""
    run_id = failed_run(url, server, signing_key)
    with EventStore.open(url) as store:
        events = list(store.read(run_id))
    request = next(e for e in events if e.type == "model.requested")
    head = events[-1]
    payload = {
        "address": request.payload["request"]["address"],
        "agent": request.payload["request"]["agent"],
        "request_hash": request.payload["request_hash"],
        "model": request.payload["request"]["model"],
        "answer": {"text": "I accept whatever the other side proposes.", "raw": {}},
    }
    text = canonical_json(payload)
    recorded_at = format_recorded_at(head.recorded_at)
    digest = envelope_hash(
        run_id=run_id,
        seq=head.seq + 1,
        type="model.completed",
        schema_version=1,
        payload_json=text,
        agent=payload["agent"],
        recorded_at=recorded_at,
        prev_hash=head.hash,
    )
    adversary = Adversary(url)
    cast = "?" if adversary.sqlite else "CAST(? AS jsonb)"
    adversary.sql(
        "INSERT INTO events (run_id, seq, type, schema_version, payload, agent, recorded_at, "
        f"prev_hash, hash) VALUES (?, ?, 'model.completed', 1, {cast}, ?, ?, ?, ?)",
        (
            run_id,
            head.seq + 1,
            text,
            payload["agent"],
            recorded_at if adversary.sqlite else head.recorded_at,
            head.hash,
            digest,
        ),
    )
    refused(url, run_id, server, says="hash chain broken")
    # With the rights to move the head as well, the unsigned head of a failed run is refused.
    adversary.sql("UPDATE runs SET head_seq = ? WHERE run_id = ?", (head.seq + 1, run_id))
    refused(url, run_id, server, says="signing evidence missing")
