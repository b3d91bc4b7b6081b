"""Signatures inside the chain (docs/ledger.md, "Signing evidence in the chain"): a writer who
can drop triggers, delete checkpoint rows, cut a run and re-hash what is left never gets
``maai verify`` to say "ok", and never gets the owner's key to sign the result (``receipt``,
``resume``). On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.ledger import EventStore
from maai.runtime import signing
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import load_config, start_run
from tests.runtime.adversary import Adversary

CONFIG = Path(__file__).parents[2] / "configs" / "collaboration.yaml"
runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "l.db")
    found: str = request.getfixturevalue("postgres_url")
    return found


@pytest.fixture
def signed_run(url: str, signing_key: str) -> str:
    """A completed run signed every 10 events, each checkpoint named in the chain."""
    config = load_config(CONFIG)
    signer = signing.load_signer(Path(signing_key))
    with EventStore.open(url, upgrade=True) as store:
        run_id = start_run(store, config)
        engine = Engine(
            store, run_id, LiveExecutor(config, env={}), signer=signer, checkpoint_every=10
        )
        asyncio.run(engine.run())
        assert engine.warnings == []
    return run_id


def named(adversary: Adversary, run_id: str) -> list[tuple[int, int]]:
    """(seq of each run.signed, seq it names)."""
    with EventStore.open(adversary.url) as store:
        return [
            (e.seq, int(e.payload["seq"]))
            for e in store.read(run_id)
            if e.type == "run.signed"
        ]


def times_ten(payload: dict[str, Any]) -> dict[str, Any]:
    usage = payload["answer"]["usage"]
    usage["input_tokens"] = usage["input_tokens"] * 10 + 1
    return payload


def test_a_run_names_its_checkpoints_in_its_chain_and_verifies(url: str, signed_run: str) -> None:
    adversary = Adversary(url)
    names = named(adversary, signed_run)
    assert len(names) >= 4
    with EventStore.open(url) as store:
        signed = {cp.seq for cp in store.checkpoints(signed_run)}
        head = store.head(signed_run)
    assert all(at > seq and seq in signed for at, seq in names)
    assert head in signed  # the head, signed when the run stopped, is named by no event
    result = invoke("verify", signed_run, "--db", url)
    assert result.exit_code == 0, result.output


def _delete_all(a: Adversary, run_id: str) -> None:
    a.delete_checkpoints(run_id)


def _delete_the_head_checkpoint(a: Adversary, run_id: str) -> None:
    (head,) = a.sql("SELECT head_seq FROM runs WHERE run_id = ?", (run_id,))[0]
    a.delete_checkpoints(run_id, f"AND seq = {int(head)}")


def _delete_one_named(a: Adversary, run_id: str) -> None:
    _, seq = named(a, run_id)[1]
    a.delete_checkpoints(run_id, f"AND seq = {seq}")


def _cut_after_evidence_and_mark_interrupted(a: Adversary, run_id: str) -> None:
    at, _ = named(a, run_id)[2]
    a.cut(run_id, at + 3, "interrupted")
    a.delete_checkpoints(run_id)


def _cut_and_mark_interrupted_keeping_older_checkpoints(a: Adversary, run_id: str) -> None:
    at, _ = named(a, run_id)[2]
    a.cut(run_id, at + 3, "interrupted")
    a.delete_checkpoints(run_id, f"AND seq > {at}")


def _tokens_times_ten_at_the_end_marked_interrupted(a: Adversary, run_id: str) -> None:
    last = a.seqs(run_id, "model.completed")[-1]
    a.rewrite(run_id, {last: times_ten})
    a.delete_checkpoints(run_id)
    a.set_status(run_id, "interrupted")


def _tokens_times_ten_early_marked_interrupted(a: Adversary, run_id: str) -> None:
    first = a.seqs(run_id, "model.completed")[0]
    a.rewrite(run_id, {first: times_ten})
    a.delete_checkpoints(run_id)
    a.set_status(run_id, "interrupted")


def _provenance_stripped(a: Adversary, run_id: str) -> None:
    def strip(payload: dict[str, Any]) -> dict[str, Any]:
        payload.pop("provenance")
        return payload

    a.rewrite(run_id, {1: strip})
    a.delete_checkpoints(run_id)


def _checkpoints_of_every_run_deleted_and_run_marked_failed(a: Adversary, run_id: str) -> None:
    a.sql("DELETE FROM checkpoints")
    a.set_status(run_id, "failed")


def _rewritten_and_resigned_with_another_key(a: Adversary, run_id: str) -> None:
    last = a.seqs(run_id, "model.completed")[-1]
    a.rewrite(run_id, {last: times_ten})
    a.delete_checkpoints(run_id)
    forger = signing.Signer(signing.Ed25519PrivateKey.generate(), Path("forger.pem"))
    with EventStore.open(a.url) as store:
        seq, head_hash = store.head_hash(run_id) or (0, "")
        store.add_checkpoint(
            run_id, seq, head_hash, forger.public_key, forger.sign(run_id, seq, head_hash)
        )


FORGERIES: dict[str, Callable[[Adversary, str], None]] = {
    "every checkpoint deleted": _delete_all,
    "the head's checkpoint deleted": _delete_the_head_checkpoint,
    "a checkpoint named in the chain deleted": _delete_one_named,
    "cut after evidence, marked interrupted": _cut_after_evidence_and_mark_interrupted,
    "cut, marked interrupted, older checkpoints kept": (
        _cut_and_mark_interrupted_keeping_older_checkpoints
    ),
    "last tokens x10, marked interrupted": _tokens_times_ten_at_the_end_marked_interrupted,
    "first tokens x10, marked interrupted": _tokens_times_ten_early_marked_interrupted,
    "provenance stripped and re-hashed": _provenance_stripped,
    "checkpoints table emptied, marked failed": (
        _checkpoints_of_every_run_deleted_and_run_marked_failed
    ),
    "rewritten and re-signed with another key": _rewritten_and_resigned_with_another_key,
}


@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_forgery_fails_verify_and_is_never_signed(
    url: str, signed_run: str, forgery: str
) -> None:
    adversary = Adversary(url)
    FORGERIES[forgery](adversary, signed_run)
    with EventStore.open(url) as store:
        assert store.verify_chain(signed_run).ok  # the chain alone says nothing is wrong
        before = len(store.checkpoints(signed_run))
        head = store.head(signed_run)
    result = invoke("verify", signed_run, "--db", url)
    assert result.exit_code == 1, result.output
    assert "ok:" not in result.stdout
    assert "signing evidence missing" in result.stderr or "does not hold" in result.stderr or (
        "another hash than" in result.stderr
    ), result.stderr
    refused = invoke("receipt", signed_run, "--db", url)
    assert refused.exit_code == 1, refused.output
    assert "refused" in refused.stderr or "nothing was sent or signed" in refused.stderr
    with EventStore.open(url) as store:
        assert len(store.checkpoints(signed_run)) == before  # the owner's key signed nothing
        assert store.head(signed_run) == head


@pytest.mark.parametrize(
    "forgery",
    [
        "every checkpoint deleted",
        "a checkpoint named in the chain deleted",
        "cut after evidence, marked interrupted",
        "first tokens x10, marked interrupted",
        "provenance stripped and re-hashed",
        "rewritten and re-signed with another key",
    ],
)
def test_resume_refuses_a_forgery_before_signing_or_sending(
    url: str, signed_run: str, forgery: str
) -> None:
    adversary = Adversary(url)
    FORGERIES[forgery](adversary, signed_run)
    adversary.set_status(signed_run, "interrupted")
    with EventStore.open(url) as store:
        before = len(store.checkpoints(signed_run))
        head = store.head(signed_run)
    result = invoke("resume", signed_run, "--db", url, "-q")
    assert result.exit_code == 1, result.output
    assert "nothing was sent or signed" in result.stderr, result.stderr
    with EventStore.open(url) as store:
        assert len(store.checkpoints(signed_run)) == before
        assert store.head(signed_run) == head
        assert store.get_run(signed_run).status == "interrupted"


def test_a_resumed_run_names_the_checkpoint_it_stopped_at(url: str, signed_run: str) -> None:
    """The head signed when a run stops is named by the first append of its resume."""
    adversary = Adversary(url)
    at, _ = named(adversary, signed_run)[-1]
    with EventStore.open(url) as store:
        stop = max(cp.seq for cp in store.checkpoints(signed_run) if cp.seq < at + 6)
    # The run as it stood when it stopped at `stop` (its later history never happened).
    adversary.cut(signed_run, stop, "interrupted")
    adversary.delete_checkpoints(signed_run, f"AND seq > {stop}")
    resumed = invoke("resume", signed_run, "--db", url, "-q")
    assert resumed.exit_code == 0, resumed.output
    assert stop in [seq for _, seq in named(adversary, signed_run)]
    assert invoke("verify", signed_run, "--db", url).exit_code == 0


def test_an_interrupted_run_with_an_unsigned_head_resumes_with_a_warning(
    url: str, signed_run: str
) -> None:
    """The one exception: a full disk stops a run before its head can be signed, so an
    interrupted run whose older checkpoints all hold is resumed (and signed), saying so;
    verify fails it until then, and receipt refuses it."""
    adversary = Adversary(url)
    at, _ = named(adversary, signed_run)[2]
    _cut_and_mark_interrupted_keeping_older_checkpoints(adversary, signed_run)
    assert invoke("receipt", signed_run, "--db", url).exit_code == 1
    resumed = invoke("resume", signed_run, "--db", url, "-q")
    assert resumed.exit_code == 0, resumed.output
    assert "signing evidence missing" in resumed.stderr and "resuming signs it" in resumed.stderr
    assert invoke("verify", signed_run, "--db", url).exit_code == 0
    with EventStore.open(url) as store:
        head = store.head(signed_run)
        assert head > at + 3 and head in {cp.seq for cp in store.checkpoints(signed_run)}
