"""Throughput of the ledger's event store, with raw sqlite3 as the yardstick.

    python benchmarks/ledger_bench.py [--events N] [--single N] [--repeat N] [--pg URL]
                                      [--synchronous FULL]

For SQLite (a temporary file) and, when reachable, PostgreSQL (``--pg URL`` or
``$MAAI_TEST_POSTGRES_URL``; a throw-away schema is created in it and dropped after), prints:

- append at 1 event per commit (``--single`` events) and at 100 per commit (``--events``):
  "events ready" appends NewEvents built before the clock starts (as the raw writer's rows
  are), "events built" builds them from the payload dicts inside the clock;
- read-and-deserialize of a 100-per-commit run (``--events`` events) into StoredEvents;
- verify_chain over that run.

For SQLite, then, raw ``sqlite3`` on a second file with the same tables and pragmas, 100 rows
per ``executemany`` and commit:

- "rows ready": the very rows the store writes (canonical payload JSON, hash chain), built
  before the clock starts: the cost of the database alone;
- "rows built in the clock": the same rows built from the same payload dicts inside the clock
  (canonical JSON and sha256 are what any writer of these rows must compute);
- a plain ``SELECT`` with ``json.loads`` of each payload;

and the ratio store/raw for each, like with like: ready events against ready rows, events
built in the clock against rows built in the clock. Each measurement is the best of
``--repeat`` runs (the machine's other work only ever slows a run down). The batched appends
of the store and the raw writer run in alternating rounds, and the median of each round's own
ratio is printed beside the ratio of the bests: on a machine whose speed drifts (a shared VM),
only measurements taken seconds apart compare like with like. Payloads are JSON model requests
of about 600 bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

from maai.canonical import canonical_json
from maai.ledger import EventStore, LedgerError, NewEvent, envelope_hash, format_recorded_at
from maai.ledger.envelope import GENESIS_HASH

BATCH = 100
AGENTS = ("alice", "bob", "carol", "dave")


def request_payload(i: int) -> dict[str, Any]:
    """A model request as the engine records one (~600 bytes of JSON)."""
    agent = AGENTS[i % 4]
    return {
        "address": f"p1/{agent}/round{i % 7}/choice/attempt{i % 3}",
        "model": "openai:gpt-4o-mini",
        "system": (
            f"You are {agent}, a participant in an experiment about distributive justice. "
            "Answer in your own words and follow the instructions of each step exactly."
        ),
        "input": [
            {
                "role": "user",
                "content": (
                    f"Round {i % 7}. Choose one of the four principles of justice and, if it "
                    "has a constraint, name the amount. Explain your choice in two sentences."
                ),
            }
        ],
        "settings": {"temperature": 0.7, "top_p": 1.0, "max_tokens": 512, "seed": i},
        "output_schema": None,
        "request_hash": f"{i:064x}",
    }


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:>9,.0f} ev/s  ({count:,} in {seconds:.2f} s)"


def best_of(repeat: int, trial: Callable[[int], int]) -> tuple[int, float]:
    """Run ``trial(k)`` for k in range(repeat); the fastest run counts."""
    best: tuple[int, float] | None = None
    for k in range(repeat):
        start = time.perf_counter()
        count = trial(k)
        seconds = time.perf_counter() - start
        if best is None or count / seconds > best[0] / best[1]:
            best = (count, seconds)
    assert best is not None
    return best


def report(results: dict[str, float], name: str, measured: tuple[int, float]) -> None:
    count, seconds = measured
    results[name] = count / seconds
    print(f"  {name:<38} {rate(count, seconds)}")


def store_trials(store: EventStore, *, events: int, single: int) -> dict[str, Callable[[int], int]]:
    """The store's measurements, each a trial ``k -> events handled``."""
    payloads = [request_payload(i) for i in range(events)]

    def one_per_commit(k: int) -> int:
        run = store.create_run(f"single-{k}", "bench", {}).run_id
        for i in range(single):
            new = NewEvent(type="model.request", payload=payloads[i], agent=AGENTS[i % 4])
            store.append(run, i, [new])
        return single

    def new_events(seq: int) -> list[NewEvent]:
        return [
            NewEvent(type="model.request", payload=payloads[i], agent=AGENTS[i % 4])
            for i in range(seq, min(seq + BATCH, events))
        ]

    ready = [new_events(seq) for seq in range(0, events, BATCH)]

    def batched(k: int) -> int:
        run = store.create_run(f"batch-{k}", "bench", {}).run_id
        for number, batch in enumerate(ready):
            store.append(run, number * BATCH, batch)
        return events

    def batched_built(k: int) -> int:
        run = store.create_run(f"built-{k}", "bench", {}).run_id
        for seq in range(0, events, BATCH):
            store.append(run, seq, new_events(seq))
        return events

    def read_all(_: int) -> int:
        count = 0
        for ev in store.read("batch-0"):
            count += 1
            assert ev.payload["settings"]["top_p"] == 1.0
        assert count == events
        return count

    def verify(_: int) -> int:
        chain = store.verify_chain("batch-0")
        assert chain.ok, chain
        return chain.events_checked

    return {
        "append, 1 per commit": one_per_commit,
        "append, 100 per commit": batched,
        "append, 100 per commit, events built": batched_built,
        "read + deserialize": read_all,
        "verify_chain": verify,
    }


def bench_store(
    url: str, *, events: int, single: int, synchronous: str, repeat: int
) -> dict[str, float]:
    results: dict[str, float] = {}
    with EventStore.open(url, synchronous=synchronous, upgrade=True) as store:
        trials = store_trials(store, events=events, single=single)
        for name, trial in trials.items():
            report(results, name, best_of(1 if name == "verify_chain" else repeat, trial))
    return results


def side_by_side(
    repeat: int, trials: dict[str, Callable[[int], int]]
) -> tuple[dict[str, tuple[int, float]], list[dict[str, float]]]:
    """Run the trials in turn, ``repeat`` rounds: each round measures all of them within
    seconds of each other, so a ratio within one round compares like with like on a machine
    whose speed drifts. Returns the best of each and every round's rates."""
    best: dict[str, tuple[int, float]] = {}
    rounds: list[dict[str, float]] = []
    for k in range(repeat):
        rates: dict[str, float] = {}
        for name, trial in trials.items():
            start = time.perf_counter()
            count = trial(k)
            seconds = time.perf_counter() - start
            rates[name] = count / seconds
            if name not in best or rates[name] > best[name][0] / best[name][1]:
                best[name] = (count, seconds)
        rounds.append(rates)
    return best, rounds


def chain_rows(run_id: str, payloads: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The rows the store inserts for these payloads: canonical JSON, sha256 chain."""
    recorded = format_recorded_at(datetime.now(UTC))
    rows = []
    prev = GENESIS_HASH
    for i, payload in enumerate(payloads):
        agent = AGENTS[i % 4]
        text = canonical_json(payload)
        digest = envelope_hash(
            run_id=run_id,
            seq=i + 1,
            type="model.request",
            schema_version=1,
            payload_json=text,
            agent=agent,
            recorded_at=recorded,
            prev_hash=prev,
        )
        rows.append((run_id, i + 1, "model.request", 1, text, agent, recorded, prev, digest))
        prev = digest
    return rows


def raw_trials(
    conn: sqlite3.Connection, *, events: int, repeat: int
) -> dict[str, Callable[[int], int]]:
    """Raw sqlite3 on a second file with the store's tables (made by the store itself) and
    pragmas: the same rows, 100 per ``executemany`` and commit."""
    payloads = [request_payload(i) for i in range(events)]
    insert = (
        "INSERT INTO events (run_id, seq, type, schema_version, payload, agent,"
        " recorded_at, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )

    def new_run(name: str) -> str:
        conn.execute(
            "INSERT INTO runs (run_id, kind, config, status, head_seq, created_at, updated_at)"
            " VALUES (?, 'bench', '{}', 'created', 0, '', '')",
            (name,),
        )
        return name

    def write(rows: list[tuple[Any, ...]]) -> None:
        for start in range(0, len(rows), BATCH):
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(insert, rows[start : start + BATCH])
            conn.execute("COMMIT")

    prepared = [chain_rows(f"ready-{k}", payloads) for k in range(repeat)]

    def rows_ready(k: int) -> int:
        new_run(f"ready-{k}")
        write(prepared[k])
        return events

    def rows_built(k: int) -> int:
        write(chain_rows(new_run(f"built-{k}"), payloads))
        return events

    def read(_: int) -> int:
        count = 0
        loads = json.loads
        for row in conn.execute(
            "SELECT position, seq, type, schema_version, payload, agent, recorded_at,"
            " prev_hash, hash FROM events WHERE run_id = 'ready-0' ORDER BY seq"
        ):
            loads(row[4])
            count += 1
        return count

    return {
        "executemany, rows ready": rows_ready,
        "executemany, rows built in the clock": rows_built,
        "select + json.loads": read,
    }


def raw_connection(path: Path, synchronous: str) -> sqlite3.Connection:
    EventStore.open(str(path), synchronous=synchronous).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def bench_sqlite(folder: Path, *, events: int, single: int, synchronous: str, repeat: int) -> None:
    """The store and raw sqlite3 side by side: appends in alternating rounds, then reads."""
    conn = raw_connection(folder / "raw.db", synchronous)
    with EventStore.open(str(folder / "store.db"), synchronous=synchronous, upgrade=True) as store:
        ours = store_trials(store, events=events, single=single)
        raw = raw_trials(conn, events=events, repeat=repeat)
        append, append_built = "append, 100 per commit", "append, 100 per commit, events built"
        ready, built = "executemany, rows ready", "executemany, rows built in the clock"
        best, rounds = side_by_side(
            repeat,
            {
                append: ours[append],
                ready: raw[ready],
                append_built: ours[append_built],
                built: raw[built],
            },
        )
        results: dict[str, float] = {}
        print("SQLite, EventStore")
        report(results, "append, 1 per commit", best_of(repeat, ours["append, 1 per commit"]))
        report(results, append, best[append])
        report(results, append_built, best[append_built])
        report(results, "read + deserialize", best_of(repeat, ours["read + deserialize"]))
        report(results, "verify_chain", best_of(1, ours["verify_chain"]))
        print("SQLite, raw sqlite3 (same rows, same pragmas)")
        report(results, ready, best[ready])
        report(results, built, best[built])
        report(results, "select + json.loads", best_of(repeat, raw["select + json.loads"]))
    conn.close()
    print("ratio EventStore / raw (best of each; and the median of the rounds' own ratios)")
    pairs = (
        ("append, events ready vs executemany, rows ready", append, ready),
        ("append, events built vs executemany, rows built", append_built, built),
    )
    for label, ours_key, raw_key in pairs:
        paired = statistics.median(r[ours_key] / r[raw_key] for r in rounds)
        print(f"  {label:<52} {results[ours_key] / results[raw_key]:>5.0%}  (rounds: {paired:.0%})")
    label = "read + deserialize vs select + json.loads"
    ratio = results["read + deserialize"] / results["select + json.loads"]
    print(f"  {label:<52} {ratio:>5.0%}")


@contextmanager
def pg_schema(url: str) -> Iterator[str]:
    """A throw-away schema in the PostgreSQL database at ``url``; yields a URL that uses it."""
    parsed = make_url(url).set(drivername="postgresql")
    dsn = parsed.render_as_string(hide_password=False)
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True, connect_timeout=3) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield parsed.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
            hide_password=False
        )
    finally:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000, help="events per batched run")
    parser.add_argument("--single", type=int, default=2_000, help="events at 1 per commit")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (best)")
    parser.add_argument("--pg", default=os.environ.get("MAAI_TEST_POSTGRES_URL"))
    parser.add_argument("--synchronous", default="FULL", help="SQLite synchronous pragma")
    args = parser.parse_args(argv)
    if args.events < BATCH or args.single < 1 or args.repeat < 1:
        parser.error(f"need --events >= {BATCH}, --single >= 1, --repeat >= 1")

    print(
        f"python {platform.python_version()}, sqlite {sqlite3.sqlite_version},"
        f" {os.cpu_count()} cpus ({platform.machine()}); SQLite synchronous={args.synchronous};"
        f" {args.events:,} events batched, {args.single:,} single, best of {args.repeat}"
    )
    print(f"payload: {len(canonical_json(request_payload(12345)))} bytes of JSON")
    with tempfile.TemporaryDirectory(prefix="maai-bench-") as tmp:
        print()
        bench_sqlite(
            Path(tmp),
            events=args.events,
            single=args.single,
            synchronous=args.synchronous,
            repeat=args.repeat,
        )

    if not args.pg:
        print("\nPostgreSQL: skipped (no --pg URL and MAAI_TEST_POSTGRES_URL is unset)")
        return 0
    try:
        with pg_schema(args.pg) as url:
            print(f"\nPostgreSQL ({make_url(args.pg).render_as_string(hide_password=True)})")
            bench_store(
                url,
                events=args.events,
                single=args.single,
                synchronous="FULL",
                repeat=args.repeat,
            )
    except (psycopg.OperationalError, LedgerError) as exc:
        print(f"\nPostgreSQL: skipped ({str(exc).splitlines()[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
