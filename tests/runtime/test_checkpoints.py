"""Signed checkpoints and receipts: a rewritten and re-hashed history, a truncated one, or a
forged insert cannot pass ``maai verify`` unseen; a receipt names where a ledger departs
from the history it pinned."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.ledger import EventStore, envelope_hash
from maai.runtime import signing
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import load_config, start_run

runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


@pytest.fixture
def ledger(tmp_path: Path) -> tuple[str, str]:
    db = str(tmp_path / "l.db")
    done = invoke("run", "collaboration", "--db", db, "-q")
    assert done.exit_code == 0, done.output
    with EventStore.open(db) as store:
        (run,) = store.list_runs()
    return db, run.run_id


def sql(db: str, *statements: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """As an adversary with write access: the append-only triggers dropped first."""
    lite = sqlite3.connect(db, isolation_level=None)
    try:
        for (name,) in lite.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'"
        ).fetchall():
            lite.execute(f"DROP TRIGGER {name}")
        rows: list[tuple[object, ...]] = []
        for statement in statements:
            rows = lite.execute(statement, params).fetchall()
        return rows
    finally:
        lite.close()


def rewrite_and_rehash(db: str, run_id: str, seq: int, old: str, new: str) -> None:
    """Change one event's payload and recompute every hash from it on, as a careful forger
    would: the chain itself then verifies."""
    rows = sql(
        db,
        "SELECT seq, type, schema_version, payload, agent, recorded_at, prev_hash, hash "
        f"FROM events WHERE run_id = '{run_id}' ORDER BY seq",
    )
    lite = sqlite3.connect(db, isolation_level=None)
    prev = None
    for r_seq, type_, version, payload, agent, recorded_at, prev_hash, _ in rows:
        assert isinstance(r_seq, int) and isinstance(payload, str)
        if r_seq == seq:
            assert old in payload
            payload = payload.replace(old, new)
        if r_seq >= seq:
            prev_hash = prev if prev is not None else prev_hash
            digest = envelope_hash(
                run_id=run_id,
                seq=r_seq,
                type=str(type_),
                schema_version=int(version),  # type: ignore[arg-type]
                payload_json=payload,
                agent=agent,  # type: ignore[arg-type]
                recorded_at=str(recorded_at),
                prev_hash=str(prev_hash),
            )
            lite.execute(
                "UPDATE events SET payload = ?, prev_hash = ?, hash = ? WHERE run_id = ? "
                "AND seq = ?",
                (payload, prev_hash, digest, run_id, r_seq),
            )
            prev = digest
        else:
            prev = None
    lite.close()


def seq_of(db: str, run_id: str, type_: str) -> int:
    (found,) = sql(db, f"SELECT seq FROM events WHERE run_id = '{run_id}' AND type = '{type_}'")
    return int(found[0])  # type: ignore[arg-type]


def test_a_run_is_signed_with_a_local_key_kept_outside_the_ledger(
    ledger: tuple[str, str], signing_key: str
) -> None:
    db, run_id = ledger
    result = invoke("verify", run_id, "--db", db)
    assert result.exit_code == 0, result.output
    local = signing.load_signer(Path(signing_key), create=False)
    assert f"by key {signing.fingerprint(local.public_key)} (this machine)" in result.stdout
    assert stat.S_IMODE(os.stat(signing_key).st_mode) == 0o600
    secret = Path(signing_key).read_text().splitlines()[1]
    assert secret.encode() not in Path(db).read_bytes()


def test_a_rewritten_and_rehashed_history_fails_verify(ledger: tuple[str, str]) -> None:
    db, run_id = ledger
    seq = seq_of(db, run_id, "points.awarded")
    rewrite_and_rehash(db, run_id, seq, '"mismatch":false', '"mismatch":true')
    assert invoke("replay", run_id, "--db", db).exit_code == 0  # the chain itself holds
    result = invoke("verify", run_id, "--db", db)
    assert result.exit_code == 1
    assert "has another hash than was signed" in result.stderr


def test_a_forged_insert_with_a_forgers_key_is_named(
    ledger: tuple[str, str], tmp_path: Path
) -> None:
    db, run_id = ledger
    seq = seq_of(db, run_id, "points.awarded")
    rewrite_and_rehash(db, run_id, seq, '"mismatch":false', '"mismatch":true')
    forger = signing.load_signer(tmp_path / "forger.pem")
    ((head, head_hash),) = sql(
        db, f"SELECT seq, hash FROM events WHERE run_id = '{run_id}' ORDER BY seq DESC LIMIT 1"
    )
    with EventStore.open(db) as store:
        store.add_checkpoint(
            run_id,
            int(head),  # type: ignore[arg-type]
            str(head_hash),
            forger.public_key,
            forger.sign(run_id, int(head), str(head_hash)),  # type: ignore[arg-type]
        )
    result = invoke("verify", run_id, "--db", db)
    assert result.exit_code == 1
    assert signing.fingerprint(forger.public_key) in result.stderr
    assert "not this machine's" in result.stderr


def test_a_receipt_proves_the_history_and_names_where_it_departs(
    ledger: tuple[str, str], tmp_path: Path
) -> None:
    db, run_id = ledger
    receipt = tmp_path / "receipt.json"
    made = invoke("receipt", run_id, "--db", db, "-o", str(receipt))
    assert made.exit_code == 0, made.output
    data = json.loads(receipt.read_text())
    assert {"run_id", "head_seq", "head_hash", "signature", "public_key"} <= set(data)
    ok = invoke("verify", run_id, "--db", db, "--receipt", str(receipt))
    assert ok.exit_code == 0, ok.output
    assert "the receipt's history is intact" in ok.stdout

    seq = seq_of(db, run_id, "points.awarded")
    rewrite_and_rehash(db, run_id, seq, '"mismatch":false', '"mismatch":true')
    rewritten = invoke("verify", run_id, "--db", db, "--receipt", str(receipt))
    assert rewritten.exit_code == 1
    assert f"receipt: seq {seq} differs from the receipt's history" in rewritten.stderr


def test_a_receipt_names_the_missing_tail_of_a_truncated_run(
    ledger: tuple[str, str], tmp_path: Path
) -> None:
    db, run_id = ledger
    receipt = tmp_path / "receipt.json"
    assert invoke("receipt", run_id, "--db", db, "-o", str(receipt)).exit_code == 0
    head = json.loads(receipt.read_text())["head_seq"]
    sql(
        db,
        f"DELETE FROM events WHERE run_id = '{run_id}' AND seq > 30",
        f"DELETE FROM checkpoints WHERE run_id = '{run_id}'",
        f"UPDATE runs SET head_seq = 30, status = 'running' WHERE run_id = '{run_id}'",
    )
    result = invoke("verify", run_id, "--db", db, "--receipt", str(receipt))
    assert result.exit_code == 1
    assert f"the ledger ends at seq 30; the receipt's history goes on to seq {head}" in (
        result.stderr
    )


def test_an_altered_receipt_is_refused(ledger: tuple[str, str], tmp_path: Path) -> None:
    db, run_id = ledger
    receipt = tmp_path / "receipt.json"
    assert invoke("receipt", run_id, "--db", db, "-o", str(receipt)).exit_code == 0
    data = json.loads(receipt.read_text())
    data["head_seq"] -= 1
    data["hash_prefixes"] = data["hash_prefixes"][:-8]
    receipt.write_text(json.dumps(data))
    result = invoke("verify", run_id, "--db", db, "--receipt", str(receipt))
    assert result.exit_code == 1
    assert "the receipt's signature does not hold" in result.stderr


def test_a_long_run_is_signed_every_n_events(tmp_path: Path, signing_key: str) -> None:
    config = load_config(Path(__file__).parents[2] / "configs" / "collaboration.yaml")
    signer = signing.load_signer(Path(signing_key))
    with EventStore.open(str(tmp_path / "l.db")) as store:
        run_id = start_run(store, config)
        engine = Engine(
            store, run_id, LiveExecutor(config, env={}), signer=signer, checkpoint_every=10
        )
        asyncio.run(engine.run())
        assert engine.warnings == []
        head = store.head(run_id)
        signed = [cp.seq for cp in store.checkpoints(run_id)]
    *periodic, last = signed
    assert last == head  # signed when the run stopped
    assert len(periodic) >= head // 10 - 1 and periodic == sorted(periodic)
    assert all(b // 10 > a // 10 for a, b in zip(periodic, periodic[1:], strict=False))


class _Refusing:
    """An executor whose every call fails for good: the run ends failed."""

    async def execute(self, request: object, on_attempt_failed: object) -> object:
        raise RuntimeError("the provider is down")


@pytest.mark.parametrize("ending", ["completed", "failed"])
def test_a_run_is_signed_before_it_is_marked_ended(
    tmp_path: Path, signing_key: str, ending: str
) -> None:
    """A kill between the two steps must leave a run that the next resume ends and signs:
    marked ended first, it would stay unsigned for good (verify: "no signed checkpoint")."""
    config = load_config(Path(__file__).parents[2] / "configs" / "collaboration.yaml")
    signer = signing.load_signer(Path(signing_key))
    with EventStore.open(str(tmp_path / "l.db")) as store:
        run_id = start_run(store, config)
        steps: list[tuple[str, object]] = []
        set_status, add_checkpoint = store.set_status, store.add_checkpoint

        def spied_status(run: str, status: str) -> object:
            steps.append(("status", status))
            return set_status(run, status)

        def spied_checkpoint(run: str, seq: int, *rest: object) -> object:
            steps.append(("signed", seq))
            return add_checkpoint(run, seq, *rest)  # type: ignore[arg-type]

        store.set_status = spied_status  # type: ignore[method-assign,assignment]
        store.add_checkpoint = spied_checkpoint  # type: ignore[method-assign,assignment]
        executor = LiveExecutor(config, env={}) if ending == "completed" else _Refusing()
        engine = Engine(store, run_id, executor, signer=signer)  # type: ignore[arg-type]
        try:
            asyncio.run(engine.run())
        except Exception:  # noqa: BLE001 -- the failed run raises; its steps are what counts
            assert ending == "failed"
        head = store.head(run_id)
        assert store.get_run(run_id).status == ending
    ended = steps.index(("status", ending))
    assert ("signed", head) in steps[:ended], steps
