"""The store's contract, written once and run against SQLite (a file) and PostgreSQL.

Every test takes ``store`` or ``store_url`` from tests/ledger/conftest.py, parametrized over
both backends; the PostgreSQL half is skipped with a reason when no server is configured.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import inspect
from sqlalchemy.engine import make_url

from maai.ledger import (
    GENESIS_HASH,
    AmbiguousRunIdError,
    Appended,
    ChainBrokenError,
    ConcurrencyError,
    EventStore,
    InvalidEventError,
    LedgerError,
    NewEvent,
    RunExistsError,
    RunNotFoundError,
    SchemaBehindError,
    SchemaTooNewError,
    StoredEvent,
    canonical_json,
    envelope_hash,
    format_recorded_at,
    head_revision,
    resolve_store_url,
)
from maai.ledger import store as ledger_store
from tests.conftest import libpq_dsn
from tests.ledger.helpers import RunSql

RACE_WRITER = Path(__file__).with_name("race_writer.py")


def ev(i: int, **extra: Any) -> NewEvent:
    return NewEvent(type="test.event", payload={"i": i, **extra}, agent=f"agent{i % 3}")


def receipt(event: StoredEvent) -> Appended:
    return Appended(event.position, event.seq, event.recorded_at, event.prev_hash, event.hash)


def append_n(store: EventStore, run_id: str, n: int, batch: int = 10) -> list[Appended]:
    stored: list[Appended] = []
    head = store.head(run_id)
    for start in range(0, n, batch):
        chunk = [ev(head + i + 1) for i in range(start, min(start + batch, n))]
        stored += store.append(run_id, head + start, chunk)
    return stored


# ---------------------------------------------------------------- append and read


def test_append_then_read_round_trips(store: EventStore) -> None:
    store.create_run("r1", "test", {"seed": 1})
    new = [
        NewEvent(type="run.started", payload={"config": {"a": [1, 2.5, None, True]}}),
        NewEvent(type="model.request", payload={"text": "hi"}, agent="alice", schema_version=3),
        NewEvent(type="model.response", payload={}, agent="alice"),
    ]
    appended = store.append("r1", 0, new)

    assert [a.seq for a in appended] == [1, 2, 3]
    assert appended[0].position < appended[1].position < appended[2].position
    assert appended[0].prev_hash == GENESIS_HASH
    assert appended[1].prev_hash == appended[0].hash
    assert appended[2].prev_hash == appended[1].hash
    assert all(a.recorded_at.utcoffset() == timedelta(0) for a in appended)

    stored = list(store.read("r1"))
    assert [receipt(e) for e in stored] == appended
    assert [e.type for e in stored] == ["run.started", "model.request", "model.response"]
    assert [e.agent for e in stored] == [None, "alice", "alice"]
    assert [e.schema_version for e in stored] == [1, 3, 1]
    assert [e.payload for e in stored] == [n.payload for n in new]
    assert all(e.hash == e.compute_hash() for e in stored)
    assert list(store.read("r1", from_seq=2)) == stored[2:]
    assert list(store.read("r1", from_seq=3)) == []
    assert store.head("r1") == 3
    assert store.get_run("r1").head_seq == 3


def test_hash_is_sha256_of_the_canonical_envelope(store: EventStore) -> None:
    store.create_run("r1", "test", {})
    (stored,) = store.append("r1", 0, [NewEvent(type="t", payload={"b": 1, "a": "é"})])
    envelope = {
        "run_id": "r1",
        "seq": 1,
        "type": "t",
        "schema_version": 1,
        "payload": {"a": "é", "b": 1},
        "agent": None,
        "recorded_at": format_recorded_at(stored.recorded_at),
        "prev_hash": "0" * 64,
    }
    text = json.dumps(envelope, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert stored.hash == hashlib.sha256(text.encode()).hexdigest()


def test_seqs_are_gapless_across_appends_of_any_size(store: EventStore) -> None:
    store.create_run("r1", "test", {})
    head = 0
    for size in (1, 5, 1, 17, 2):
        stored = store.append("r1", head, [ev(head + i) for i in range(size)])
        assert [e.seq for e in stored] == list(range(head + 1, head + size + 1))
        head += size
    assert [e.seq for e in store.read("r1")] == list(range(1, head + 1))
    assert store.head("r1") == head
    assert store.verify_chain("r1").ok


def test_runs_have_separate_seqs(store: EventStore) -> None:
    store.create_run("a", "test", {})
    store.create_run("b", "test", {})
    store.append("a", 0, [ev(1), ev(2)])
    store.append("b", 0, [ev(1)])
    store.append("a", 2, [ev(3)])
    assert [e.seq for e in store.read("a")] == [1, 2, 3]
    assert [e.seq for e in store.read("b")] == [1]
    assert {e.run_id for e in store.read("a")} == {"a"}


def test_stale_or_future_expected_seq_is_a_concurrency_error(store: EventStore) -> None:
    store.create_run("r1", "test", {})
    store.append("r1", 0, [ev(1), ev(2)])
    for expected in (0, 1, 3, 10):
        with pytest.raises(ConcurrencyError) as caught:
            store.append("r1", expected, [ev(99)])
        assert (caught.value.run_id, caught.value.expected, caught.value.actual) == (
            "r1",
            expected,
            2,
        )
        assert "'r1'" in str(caught.value) and f"expected head seq {expected}" in str(caught.value)
    assert store.head("r1") == 2
    assert [e.payload["i"] for e in store.read("r1")] == [1, 2]


def test_empty_append_checks_the_head_and_stores_nothing(store: EventStore) -> None:
    store.create_run("r1", "test", {})
    assert store.append("r1", 0, []) == []
    with pytest.raises(ConcurrencyError):
        store.append("r1", 1, [])
    assert store.head("r1") == 0


def test_append_to_a_missing_run(store: EventStore) -> None:
    with pytest.raises(RunNotFoundError, match="nope"):
        store.append("nope", 0, [ev(1)])
    with pytest.raises(RunNotFoundError):
        store.read("nope")
    with pytest.raises(RunNotFoundError):
        store.head("nope")
    with pytest.raises(RunNotFoundError):
        store.verify_chain("nope")


def test_read_streams_in_chunks_and_sees_later_appends(store_url: str) -> None:
    with EventStore.open(store_url, upgrade=True, read_chunk=7) as store:
        store.create_run("r1", "test", {})
        append_n(store, "r1", 50)
        assert [e.seq for e in store.read("r1")] == list(range(1, 51))
        assert [e.seq for e in store.read("r1", from_seq=44)] == list(range(45, 51))

        stream = store.read("r1", from_seq=40)
        first = next(stream)
        append_n(store, "r1", 3)  # while the stream is open: no lock is held
        assert [first.seq] + [e.seq for e in stream] == list(range(41, 54))


# ---------------------------------------------------------------- all or nothing


def test_batch_with_an_unstorable_payload_stores_nothing(store: EventStore) -> None:
    store.create_run("r1", "test", {})
    store.append("r1", 0, [ev(1)])
    bad = NewEvent(type="bad", payload={"when": {1, 2}})  # a set is not JSON
    with pytest.raises(InvalidEventError, match=r"events\[1\]"):
        store.append("r1", 1, [ev(2), bad, ev(3)])
    nan = NewEvent(type="bad", payload={"x": float("nan")})
    with pytest.raises(InvalidEventError, match="JSON"):
        store.append("r1", 1, [ev(2), nan])
    assert store.head("r1") == 1
    assert [e.seq for e in store.read("r1")] == [1]
    assert store.append("r1", 1, [ev(2)])[0].seq == 2


def test_batch_failing_inside_the_database_stores_nothing(
    store: EventStore, run_sql: RunSql
) -> None:
    """A row planted at seq 4 behind the store's back makes the insert of a 5-event batch
    fail at its third row: the first two must not stay, nor the head move."""
    store.create_run("r1", "test", {})
    store.append("r1", 0, [ev(1)])
    run_sql(
        "INSERT INTO events (run_id, seq, type, schema_version, payload, agent, recorded_at,"
        " prev_hash, hash) VALUES ('r1', 4, 'planted', 1, '{}', NULL,"
        f" '2025-01-01T00:00:00.000000+00:00', '{'0' * 64}', '{'1' * 64}')"
    )
    with pytest.raises(ConcurrencyError) as caught:
        store.append("r1", 1, [ev(2), ev(3), ev(4), ev(5), ev(6)])
    assert caught.value.expected == 1 and caught.value.actual == 1
    assert store.head("r1") == 1
    assert run_sql("SELECT seq FROM events WHERE run_id = 'r1' ORDER BY seq") == [(1,), (4,)]

    run_sql("DELETE FROM events WHERE run_id = 'r1' AND seq = 4")
    assert [e.seq for e in store.append("r1", 1, [ev(2), ev(3), ev(4)])] == [2, 3, 4]
    assert store.verify_chain("r1").ok


# ---------------------------------------------------------------- racing writers


def check_race(outcomes: list[tuple[str, int, str, Any]], rounds: int, writers: int) -> None:
    """Each writer tried every seq once: exactly one won each, the others lost cleanly."""
    errors = [o for o in outcomes if o[2] == "error"]
    assert not errors, errors
    wins = Counter(k for _, k, kind, _ in outcomes if kind == "won")
    assert wins == Counter(range(rounds)), "every seq won exactly once"
    losses = [o for o in outcomes if o[2] == "lost"]
    assert len(losses) == rounds * (writers - 1)
    for _, k, _, detail in losses:
        expected, actual = detail
        assert expected == k and actual > k


def check_history(store: EventStore, run_id: str, outcomes: list[Any], rounds: int) -> None:
    events = list(store.read(run_id))
    assert [e.seq for e in events] == list(range(1, rounds + 1))
    winners = {k: writer for writer, k, kind, _ in outcomes if kind == "won"}
    assert [(e.payload["k"], e.payload["writer"]) for e in events] == [
        (k, winners[k]) for k in range(rounds)
    ]
    assert store.head(run_id) == rounds
    assert store.verify_chain(run_id).ok


@pytest.mark.parametrize("shared_store", [True, False], ids=["one-store", "store-per-thread"])
def test_racing_threads_exactly_one_wins_each_seq(store_url: str, shared_store: bool) -> None:
    writers, rounds = 4, 25
    outcomes: list[tuple[str, int, str, Any]] = []
    lock = threading.Lock()
    start = threading.Barrier(writers)
    with EventStore.open(store_url, upgrade=True) as main_store:
        main_store.create_run("race", "test", {})

        def writer(name: str) -> None:
            own = None if shared_store else EventStore.open(store_url)
            target = main_store if own is None else own
            try:
                start.wait()
                for k in range(rounds):
                    event = NewEvent(type="race", payload={"writer": name, "k": k})
                    try:
                        target.append("race", k, [event])
                        result: tuple[str, int, str, Any] = (name, k, "won", None)
                    except ConcurrencyError as exc:
                        result = (name, k, "lost", (exc.expected, exc.actual))
                    except Exception as exc:  # any other failure fails the test, below
                        result = (name, k, "error", repr(exc))
                    with lock:
                        outcomes.append(result)
            finally:
                if own is not None:
                    own.close()

        threads = [threading.Thread(target=writer, args=(f"w{i}",)) for i in range(writers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not any(t.is_alive() for t in threads)
        check_race(outcomes, rounds, writers)
        check_history(main_store, "race", outcomes, rounds)


def test_racing_processes_exactly_one_wins_each_seq(store_url: str, tmp_path: Path) -> None:
    writers, rounds = 3, 20
    with EventStore.open(store_url, upgrade=True) as store:
        store.create_run("race", "test", {})
        sync = tmp_path / "sync"
        sync.mkdir()
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    str(RACE_WRITER),
                    store_url,
                    "race",
                    f"p{i}",
                    str(rounds),
                    str(sync),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in range(writers)
        ]
        try:
            deadline = time.monotonic() + 60
            while len(list(sync.glob("ready-*"))) < writers:
                assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
                assert time.monotonic() < deadline, "writers did not start"
                time.sleep(0.01)
            (sync / "go").touch()
            results = [p.communicate(timeout=60) for p in procs]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
        outcomes: list[Any] = []
        for proc, (out, err) in zip(procs, results, strict=True):
            assert proc.returncode == 0, err
            report = json.loads(out)
            outcomes += [
                (report["writer"], k, kind, detail) for k, kind, detail in report["outcomes"]
            ]
        check_race(outcomes, rounds, writers)
        check_history(store, "race", outcomes, rounds)


# ---------------------------------------------------------------- hash chain


def tamper_statements(backend: str) -> dict[str, tuple[str, int]]:
    """Ways to change a stored run behind the store's back, and the seq that must be named."""
    if backend == "sqlite":
        one_byte = "UPDATE events SET payload = replace(payload, 'hello', 'hellp')"
        earlier = "UPDATE events SET recorded_at = replace(recorded_at, '20', '19')"
    else:
        one_byte = "UPDATE events SET payload = replace(payload::text, 'hello', 'hellp')::jsonb"
        earlier = "UPDATE events SET recorded_at = recorded_at - interval '1 microsecond'"
    return {
        "recorded-at": (f"{earlier} WHERE run_id = 'r1' AND seq = 5", 5),
        "head-lowered": ("UPDATE runs SET head_seq = 8 WHERE run_id = 'r1'", 9),
        "payload-one-byte": (f"{one_byte} WHERE run_id = 'r1' AND seq = 6", 6),
        "type": ("UPDATE events SET type = 'other' WHERE run_id = 'r1' AND seq = 3", 3),
        "agent": ("UPDATE events SET agent = 'mallory' WHERE run_id = 'r1' AND seq = 2", 2),
        "schema-version": (
            "UPDATE events SET schema_version = 2 WHERE run_id = 'r1' AND seq = 9",
            9,
        ),
        "deleted": ("DELETE FROM events WHERE run_id = 'r1' AND seq = 4", 4),
        "deleted-last": ("DELETE FROM events WHERE run_id = 'r1' AND seq = 10", 10),
        "hash-rewritten": (
            f"UPDATE events SET hash = '{'a' * 64}' WHERE run_id = 'r1' AND seq = 7",
            7,
        ),
        "first-prev-hash": (
            f"UPDATE events SET prev_hash = '{'f' * 64}' WHERE run_id = 'r1' AND seq = 1",
            1,
        ),
    }


@pytest.mark.parametrize(
    "how",
    [
        "payload-one-byte",
        "type",
        "agent",
        "schema-version",
        "deleted",
        "deleted-last",
        "hash-rewritten",
        "first-prev-hash",
        "recorded-at",
        "head-lowered",
    ],
)
def test_tampering_is_detected_at_the_right_seq(
    store: EventStore, run_sql: RunSql, how: str
) -> None:
    store.create_run("r1", "test", {})
    store.append(
        "r1",
        0,
        [NewEvent(type="t", payload={"text": f"hello {i}", "i": i}, agent="a") for i in range(10)],
    )
    assert store.verify_chain("r1").ok
    statement, bad_seq = tamper_statements(store.backend)[how]
    run_sql(statement)

    report = store.verify_chain("r1")
    assert not report.ok
    assert report.first_bad_seq == bad_seq, report
    assert report.events_checked == min(bad_seq - 1, store.head("r1"))
    assert report.reason
    with pytest.raises(ChainBrokenError, match=f"seq {bad_seq}"):
        report.raise_if_broken()


def test_verify_chain_of_an_intact_run(store: EventStore) -> None:
    store.create_run("r1", "test", {})
    store.create_run("empty", "test", {})
    append_n(store, "r1", 30, batch=7)
    report = store.verify_chain("r1")
    assert (report.ok, report.events_checked, report.head_seq) == (True, 30, 30)
    assert report.first_bad_seq is None
    report.raise_if_broken()
    assert store.verify_chain("empty").ok


# ---------------------------------------------------------------- payload fidelity


def test_large_and_unicode_payloads_round_trip_exactly(store: EventStore) -> None:
    texts = {
        "emoji": "🧪🎲 👩🏽‍🔬 family: 👨‍👩‍👧‍👦 flags: 🇩🇪🇯🇵",
        "cjk": "公平な分配の原則を選んでください。中文测试 한국어",
        "combining": "e\u0301 a\u0308 n\u0303 Å (A\u030a) ﬁ",
        "rtl": "مرحبا שלום",
        "separators": 'line\u2028para\u2029tab\tnewline\nquote"backslash\\',
        "controls": "\x01\x1f\x7f",
        "zero-width": "a\u200bb\u200dc\ufeff",
        "astral": "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𐍈",
    }
    big = ("x" * 1023 + "é") * 1024  # just over 1 MB of UTF-8
    store.create_run("r1", "tëst-ünïcode", {"name": "实验", "emoji": "🧪"})
    new = [
        NewEvent(type="text", payload={"texts": texts, "keys": {v: k for k, v in texts.items()}}),
        NewEvent(type="big", payload={"blob": big, "nested": [{"blob": big[:1000]}]}),
        NewEvent(type="事件.类型", payload={"ok": True}, agent="アリス"),
    ]
    appended = store.append("r1", 0, new)
    read = list(store.read("r1"))
    assert [receipt(e) for e in read] == appended
    assert [e.payload for e in read] == [n.payload for n in new]
    assert read[1].payload["blob"] == big and len(big.encode()) > 1_000_000
    assert read[2].type == "事件.类型" and read[2].agent == "アリス"
    assert store.get_run("r1").config == {"name": "实验", "emoji": "🧪"}
    assert store.get_run("r1").kind == "tëst-ünïcode"
    assert store.verify_chain("r1").ok


def test_unstorable_text_is_refused_on_every_backend(store: EventStore) -> None:
    store.create_run("r1", "test", {})
    for payload in ({"x": "a\x00b"}, {"a\x00": 1}, {"x": "\ud800"}):
        with pytest.raises(InvalidEventError):
            store.append("r1", 0, [NewEvent(type="t", payload=payload)])
    with pytest.raises(ValueError):
        NewEvent(type="t\x00", payload={})
    assert store.head("r1") == 0
    # An escaped backslash followed by "u0000" is ordinary text, not a NUL.
    store.append("r1", 0, [NewEvent(type="t", payload={"x": "\\u0000"})])
    assert next(iter(store.read("r1"))).payload == {"x": "\\u0000"}


def test_payloads_are_normalized_the_same_on_every_backend(store: EventStore) -> None:
    """What read returns is the same on both backends, and hashes as stored: JSON has one
    number type and no tuples, and PostgreSQL's JSONB prints numbers back without
    exponents."""
    store.create_run("r1", "test", {})
    payload = {
        "tuple": (1, 2),
        "big_float": 1e16,
        "huge": 1.7976931348623157e308,
        "neg_zero": -0.0,
        "small": 1.5e-10,
        "tiny": 5e-324,
        "two": 2.0,
        "third": 1 / 3,
        "big_int": 2**70,
        "negative": -12.5,
        "nested": [{"f": 3e20}],
    }
    store.append("r1", 0, [NewEvent(type="t", payload=payload)])
    expected = {
        "tuple": [1, 2],
        "big_float": 10**16,
        "huge": int(1.7976931348623157e308),
        "neg_zero": 0.0,
        "small": 1.5e-10,
        "tiny": 5e-324,
        "two": 2.0,
        "third": 1 / 3,
        "big_int": 2**70,
        "negative": -12.5,
        "nested": [{"f": 3 * 10**20}],
    }
    (read,) = list(store.read("r1"))
    assert read.payload == expected
    assert read.hash == read.compute_hash()
    assert {k: type(v) for k, v in read.payload.items()} == {
        k: type(v) for k, v in expected.items()
    }
    assert store.verify_chain("r1").ok
    store.append("r1", 1, [NewEvent(type="t", payload={"m": {1: "a"}})])
    assert list(store.read("r1", 1))[0].payload == {"m": {"1": "a"}}


def test_recorded_at_round_trips_to_the_microsecond(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.create_run("r1", "test", {})
    moments = [
        datetime(2025, 3, 9, 1, 59, 59, 123456, tzinfo=UTC),
        datetime(2025, 3, 9, 2, 0, 0, 0, tzinfo=UTC),
        datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    ]
    for i, moment in enumerate(moments):
        monkeypatch.setattr(ledger_store, "_utcnow", lambda moment=moment: moment)
        (stored,) = store.append("r1", i, [ev(i)])
        assert stored.recorded_at == moment
    read = list(store.read("r1"))
    assert [e.recorded_at for e in read] == moments
    assert [format_recorded_at(e.recorded_at) for e in read] == [
        "2025-03-09T01:59:59.123456+00:00",
        "2025-03-09T02:00:00.000000+00:00",
        "1999-12-31T23:59:59.999999+00:00",
    ]
    for e in read:
        assert e.hash == envelope_hash(
            run_id=e.run_id,
            seq=e.seq,
            type=e.type,
            schema_version=e.schema_version,
            payload_json=canonical_json(e.payload),
            agent=e.agent,
            recorded_at=format_recorded_at(e.recorded_at),
            prev_hash=e.prev_hash,
        )
    assert store.verify_chain("r1").ok


# ---------------------------------------------------------------- runs


def test_an_empty_ledger_lists_no_runs(store: EventStore) -> None:
    assert store.list_runs() == []


def test_runs_are_created_listed_and_updated(store: EventStore) -> None:
    created = store.create_run("exp-2025-a", "frohlich", {"seed": 7, "agents": ["a", "b"]})
    assert (created.status, created.head_seq) == ("created", 0)
    assert created.created_at == created.updated_at
    store.create_run("exp-2025-b", "frohlich", {})
    store.create_run("other", "collab", {"nested": {"x": [1, 2]}})

    runs = store.list_runs()
    assert [r.run_id for r in runs] == ["exp-2025-a", "exp-2025-b", "other"]
    assert runs[0] == created
    assert runs[2].config == {"nested": {"x": [1, 2]}}

    time.sleep(0.002)
    updated = store.set_status("exp-2025-a", "running")
    assert updated.status == "running" and updated.updated_at > created.updated_at
    assert updated.created_at == created.created_at
    store.append("exp-2025-a", 0, [ev(1), ev(2)])
    after = store.get_run("exp-2025-a")
    assert (after.status, after.head_seq) == ("running", 2)
    assert after.updated_at >= updated.updated_at
    store.set_status("exp-2025-a", "completed")
    assert [(r.run_id, r.status, r.head_seq) for r in store.list_runs()] == [
        ("exp-2025-a", "completed", 2),
        ("exp-2025-b", "created", 0),
        ("other", "created", 0),
    ]


def test_run_ids_are_unique_and_found_by_prefix(store: EventStore) -> None:
    store.create_run("exp-2025-a", "frohlich", {})
    store.create_run("exp-2025-b", "frohlich", {})
    store.create_run("other_1", "frohlich", {})
    with pytest.raises(RunExistsError, match="exp-2025-a"):
        store.create_run("exp-2025-a", "frohlich", {})
    assert store.get_run("exp-2025-b").run_id == "exp-2025-b"
    assert store.get_run("oth").run_id == "other_1"
    assert store.get_run("exp-2025-a").run_id == "exp-2025-a"
    with pytest.raises(AmbiguousRunIdError, match="exp-2025-a, exp-2025-b"):
        store.get_run("exp-")
    with pytest.raises(RunNotFoundError, match="'zzz'"):
        store.get_run("zzz")
    # LIKE wildcards and case are not prefixes of anything here.
    for pattern in ("%", "_", "exp_2025", "EXP"):
        with pytest.raises(RunNotFoundError):
            store.get_run(pattern)
    with pytest.raises(RunNotFoundError):
        store.set_status("zzz", "running")
    with pytest.raises(InvalidEventError):
        store.create_run("has space", "frohlich", {})
    with pytest.raises(InvalidEventError):
        store.create_run("ok", "frohlich", {"x": float("inf")})
    with pytest.raises(InvalidEventError):
        store.set_status("other_1", "")


def test_a_closed_store_refuses_work(store_url: str) -> None:
    store = EventStore.open(store_url, upgrade=True)
    store.close()
    store.close()
    with pytest.raises(LedgerError, match="closed"):
        store.list_runs()


# ---------------------------------------------------------------- migrations


def test_migrations_from_empty(store_url: str, run_sql: RunSql) -> None:
    with EventStore.open(store_url, upgrade=True) as store:
        assert store.upgraded_from == "empty"
        assert store.schema_revision == head_revision()
        with store._engine.connect() as conn:
            tables = set(inspect(conn).get_table_names())
            unique = inspect(conn).get_unique_constraints("events")
            indexes = inspect(conn).get_indexes("events")
    assert {"runs", "events", "alembic_version"} <= tables
    assert any(set(u["column_names"]) == {"run_id", "seq"} for u in unique)
    assert any("agent" in i["column_names"] for i in indexes)
    assert run_sql("SELECT version_num FROM alembic_version") == [(head_revision(),)]

    with EventStore.open(store_url, upgrade=True) as again:
        assert again.upgraded_from is None
    with EventStore.open(store_url) as plain:
        assert plain.upgraded_from is None and plain.list_runs() == []


def test_migrated_schema_matches_the_code(store: EventStore) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from maai.ledger.schema import metadata

    with store._engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(context, metadata) == []


def test_a_schema_newer_than_the_code_is_refused(store_url: str, run_sql: RunSql) -> None:
    EventStore.open(store_url, upgrade=True).close()
    run_sql("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    for upgrade in (None, True, False):
        with pytest.raises(SchemaTooNewError, match="9999_from_the_future") as caught:
            EventStore.open(store_url, upgrade=upgrade)
        assert caught.value.current == "9999_from_the_future"


def test_a_schema_behind_is_refused_when_not_upgrading(store_url: str, run_sql: RunSql) -> None:
    with pytest.raises(SchemaBehindError) as caught:
        EventStore.open(store_url, upgrade=False)
    assert "maai db upgrade --db" in str(caught.value)
    assert caught.value.current is None and caught.value.head == head_revision()
    # Refusing created nothing: there is still no ledger to open without upgrading.
    with pytest.raises(SchemaBehindError):
        EventStore.open(store_url, upgrade=False)


def test_postgres_is_not_upgraded_implicitly(store_url: str) -> None:
    if not store_url.startswith("postgresql"):
        with EventStore.open(store_url) as store:
            assert store.upgraded_from == "empty"  # SQLite: upgraded on open
        return
    with pytest.raises(SchemaBehindError, match="maai db upgrade --db"):
        EventStore.open(store_url)


@pytest.mark.postgres
def test_postgres_session_time_zone_does_not_matter(postgres_url: str) -> None:
    """timestamptz comes back in the session's time zone; the hashed text must not."""
    url = make_url(postgres_url)
    options = f"{url.query['options']} -ctimezone=Asia/Kathmandu"
    local = url.update_query_dict({"options": options}).render_as_string(hide_password=False)
    with EventStore.open(local, upgrade=True) as store:
        store.create_run("r1", "test", {})
        (stored,) = store.append("r1", 0, [ev(1)])
        with store._engine.connect() as conn:
            assert conn.exec_driver_sql("SHOW timezone").scalar() == "Asia/Kathmandu"
        (read,) = list(store.read("r1"))
    assert read.recorded_at == stored.recorded_at and read.recorded_at.utcoffset() == timedelta(0)
    with EventStore.open(postgres_url) as utc_store:
        assert utc_store.verify_chain("r1").ok
        assert list(utc_store.read("r1")) == [read]


# ---------------------------------------------------------------- append-only


def test_the_database_refuses_to_change_or_remove_events(store: EventStore, store_url: str) -> None:
    """Triggers (revision 0002) make the events table append-only in the database itself."""
    store.create_run("r1", "test", {})
    store.append("r1", 0, [ev(1), ev(2)])
    location = resolve_store_url(store_url)
    statements = (
        "UPDATE events SET type = 'other' WHERE seq = 1",
        "DELETE FROM events WHERE seq = 2",
    )
    for statement in statements:
        if location.path is not None:
            lite = sqlite3.connect(location.path, isolation_level=None)
            try:
                with pytest.raises(sqlite3.DatabaseError, match="events are append-only"):
                    lite.execute(statement)
            finally:
                lite.close()
        else:
            dsn = libpq_dsn(location.url.render_as_string(hide_password=False))
            with psycopg.connect(dsn, autocommit=True) as conn:
                with pytest.raises(psycopg.Error, match="events are append-only"):
                    conn.execute(statement)
                if statement.startswith("DELETE"):
                    with pytest.raises(psycopg.Error, match="events are append-only"):
                        conn.execute("TRUNCATE events CASCADE")
    assert [e.seq for e in store.read("r1")] == [1, 2]
    assert store.verify_chain("r1").ok


def test_the_database_refuses_to_change_remove_or_truncate_checkpoints(
    store: EventStore, store_url: str
) -> None:
    """Checkpoints are append-only like events (revisions 0003 and 0005): TRUNCATE included,
    which fires no row trigger on PostgreSQL."""
    store.create_run("r1", "test", {})
    (appended,) = store.append("r1", 0, [ev(1)])
    store.add_checkpoint("r1", 1, appended.hash, "ab" * 32, "cd" * 64)
    location = resolve_store_url(store_url)
    statements = ["UPDATE checkpoints SET seq = 2", "DELETE FROM checkpoints"]
    if location.path is not None:
        lite = sqlite3.connect(location.path, isolation_level=None)
        try:
            for statement in statements:
                with pytest.raises(sqlite3.DatabaseError, match="checkpoints are append-only"):
                    lite.execute(statement)
        finally:
            lite.close()
    else:
        dsn = libpq_dsn(location.url.render_as_string(hide_password=False))
        with psycopg.connect(dsn, autocommit=True) as conn:
            for statement in [*statements, "TRUNCATE checkpoints"]:
                with pytest.raises(psycopg.Error, match="append-only"):
                    conn.execute(statement)
    assert [cp.seq for cp in store.checkpoints("r1")] == [1]
