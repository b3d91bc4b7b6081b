"""A worker runs a job only if its study plan is signed by a key it trusts, names the run and
pins its hashed run.started, and sends only to allowed hosts (docs/studies.md, "Many
machines"). A refused job fails with the reason, is never retried, and no request leaves:
every run here names a loopback server that counts what reaches it. PostgreSQL only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from procrastinate import App, PsycopgConnector
from sqlalchemy.engine import make_url
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.ledger import EventStore, resolve_store_url
from maai.runtime import distributed, plans, signing
from maai.runtime.runs import config_snapshot, start_run
from tests.conftest import libpq_dsn
from tests.runtime.adversary import Adversary
from tests.runtime.loopback_http import LoopbackServer, Reply, chat_completion, loopback_server
from tests.runtime.test_trust_injections import KEY_ENV, pointed_at

pytestmark = pytest.mark.postgres


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={KEY_ENV: "sk-trust-0123456789"})


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with loopback_server() as srv:
        srv.script(*(lambda _: Reply(body=chat_completion("I agree.")) for _ in range(400)))
        yield srv


@pytest.fixture
def study(postgres_url: str, server: LoopbackServer, tmp_path: Path) -> Path:
    """A study of two runs on the loopback server, submitted (signed with the test key)."""
    EventStore.open(postgres_url, upgrade=True).close()
    base = config_snapshot(pointed_at(server))
    base["exchanges"] = 1
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(base), encoding="utf-8")
    path = tmp_path / "study.yaml"
    path.write_text(
        yaml.safe_dump({"study": "guarded", "base": "base.yaml", "replicates": 2}),
        encoding="utf-8",
    )
    submitted = invoke("study", "submit", str(path), "--db", postgres_url)
    assert submitted.exit_code == 0, submitted.output
    return path


def jobs(url: str) -> list[tuple[str, str, int]]:
    """(run id, status, attempts) of every job, oldest first."""
    schema = make_url(url).query["options"].split("=")[1]  # type: ignore[union-attr]
    with psycopg.connect(libpq_dsn(url), autocommit=True) as conn:
        rows = conn.execute(
            f'SELECT args, status, attempts FROM "{schema}".procrastinate_jobs ORDER BY id'
        ).fetchall()
    return [(r[0]["run_id"], str(r[1]), int(r[2])) for r in rows]


def defer(url: str, **args: Any) -> None:
    """A job enqueued as anyone who can write to the database could."""
    dsn = distributed.libpq_dsn(resolve_store_url(url))
    queue = App(connector=PsycopgConnector(conninfo=dsn))
    with queue.open():
        queue.configure_task(distributed.TASK, queue=distributed.QUEUE).defer(**args)


def signed_plan_of(url: str) -> dict[str, Any]:
    schema = make_url(url).query["options"].split("=")[1]  # type: ignore[union-attr]
    with psycopg.connect(libpq_dsn(url), autocommit=True) as conn:
        row = conn.execute(f'SELECT args FROM "{schema}".procrastinate_jobs LIMIT 1').fetchone()
    assert row is not None
    plan: dict[str, Any] = row[0]["plan"]
    return plan


def forged_run(url: str, server: LoopbackServer) -> str:
    with EventStore.open(url) as store:
        return start_run(store, pointed_at(server), run_id="20260101-000000-bad000")


def clear_queue(url: str) -> None:
    schema = make_url(url).query["options"].split("=")[1]  # type: ignore[union-attr]
    with psycopg.connect(libpq_dsn(url), autocommit=True) as conn:
        conn.execute(f'DELETE FROM "{schema}".procrastinate_jobs')


def test_a_signed_plan_is_run(postgres_url: str, study: Path, server: LoopbackServer) -> None:
    worker = invoke("worker", "--db", postgres_url, "--burst")
    assert worker.exit_code == 0, worker.output
    assert [status for _, status, _ in jobs(postgres_url)] == ["succeeded", "succeeded"]
    assert server.received  # the control: these requests were meant to leave


def test_a_forged_run_and_job_without_a_plan_are_refused(
    postgres_url: str, study: Path, server: LoopbackServer
) -> None:
    clear_queue(postgres_url)
    run_id = forged_run(postgres_url, server)
    defer(postgres_url, run_id=run_id, study="guarded", budget_usd=None)
    worker = invoke("worker", "--db", postgres_url, "--burst")
    assert worker.exit_code == 0, worker.output
    assert "refused: run 20260101-000000-bad000: the job carries no signed plan" in worker.output
    assert jobs(postgres_url) == [(run_id, "failed", 1)]  # failed once, never retried
    assert server.received == []


def test_a_signed_plan_copied_onto_a_forged_job_is_refused(
    postgres_url: str, study: Path, server: LoopbackServer
) -> None:
    signed = signed_plan_of(postgres_url)
    clear_queue(postgres_url)
    run_id = forged_run(postgres_url, server)
    defer(postgres_url, run_id=run_id, study="guarded", budget_usd=None, plan=signed)
    worker = invoke("worker", "--db", postgres_url, "--burst")
    assert "the signed plan does not name this run" in worker.output, worker.output
    assert jobs(postgres_url) == [(run_id, "failed", 1)]
    assert server.received == []


def test_a_plan_signed_by_another_key_is_refused(
    postgres_url: str, study: Path, server: LoopbackServer, tmp_path: Path
) -> None:
    """The forger signs a plan of their own, naming their run: the worker trusts only its
    own key by default, and only the keys given with --trust otherwise."""
    clear_queue(postgres_url)
    run_id = forged_run(postgres_url, server)
    forger = signing.Signer(Ed25519PrivateKey.generate(), tmp_path / "forger.pem")
    with EventStore.open(postgres_url) as store:
        plan = plans.make_plan(store, "guarded", None, {run_id: pointed_at(server)})
    defer(postgres_url, run_id=run_id, plan=plans.sign_plan(plan, forger))
    worker = invoke("worker", "--db", postgres_url, "--burst")
    assert "which this worker does not trust (--trust KEYFILE)" in worker.output, worker.output
    assert jobs(postgres_url) == [(run_id, "failed", 1)]
    assert server.received == []
    # Trusted explicitly (a PEM public key file), the same job would run.
    public = tmp_path / "forger.pub"
    public.write_bytes(
        forger.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    assert plans.read_trusted_key(public) == forger.public_key


def test_a_host_not_allowed_is_refused(
    postgres_url: str, study: Path, server: LoopbackServer
) -> None:
    worker = invoke("worker", "--db", postgres_url, "--burst", "--allow-host", "api.example.org")
    assert worker.exit_code == 0, worker.output
    host = server.base_url.split("/")[2]
    assert f"provider host(s) {host} not allowed (--allow-host)" in worker.output
    assert [(s, a) for _, s, a in jobs(postgres_url)] == [("failed", 1), ("failed", 1)]
    assert server.received == []


@pytest.mark.parametrize("checkpoints", ["kept", "deleted"])
def test_planned_runs_whose_run_started_was_rewritten_are_refused(
    postgres_url: str, study: Path, server: LoopbackServer, checkpoints: str
) -> None:
    """A run rewritten and re-hashed after the plan was signed: its first checkpoint (signed
    as it was created) no longer holds; with the checkpoints deleted too, the plan's pin of
    its run.started still does not."""

    def hotter(payload: dict[str, Any]) -> dict[str, Any]:
        payload["config"]["agents"][0]["temperature"] = 1.9
        return payload

    adversary = Adversary(postgres_url)
    for run_id, _, _ in jobs(postgres_url):
        adversary.rewrite(run_id, {1: hotter})
        if checkpoints == "deleted":
            adversary.delete_checkpoints(run_id)
    worker = invoke("worker", "--db", postgres_url, "--burst")
    said = (
        "another hash than was signed"
        if checkpoints == "kept"
        else "its run.started is not the one the signed plan names"
    )
    assert said in worker.output, worker.output
    assert [(s, a) for _, s, a in jobs(postgres_url)] == [("failed", 1), ("failed", 1)]
    assert server.received == []
