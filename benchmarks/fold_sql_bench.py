"""What SQLite alone costs to answer a fold's query, on the ledger as stored and on copies
of it laid out otherwise: what a new layout for the fold's reads would buy (issue 12, item 3).

    python benchmarks/fold_sql_bench.py [--experiment frohlich] [--size 16x40]
                                        [--rounds 3] [--repeat 3] [--seed 42]

Records one simulated run as ``benchmarks/fold_bench.py`` does (the same presets and sizes)
on a temporary SQLite ledger, then copies it once per layout and times, in CPU time, the
rows the fold reads (``load_state``: ``read_fields(FOLD_FIELDS, omit=FOLD_OMITS)``) fetched
500 seqs at a time by a plain ``sqlite3`` connection, nothing done with them:

- ``stored``: the ledger as the store writes it (4 KiB pages), the fold's own query;
- ``vacuumed``: a copy rewritten by ``VACUUM`` (the same 4 KiB pages, rows in order, no
  free pages): what the other copies, each rewritten, are to be compared with;
- ``pages 16k`` / ``pages 64k``: a copy rewritten (``VACUUM``) with larger pages, so that a
  request's payload (about 4 KB) needs no overflow pages; the same query;
- ``request ix``: a copy with one partial index on an expression, a request's header
  (``json_extract`` of the six paths the fold picks), after ``run_id, seq, agent``: the fold's
  requests are read from the index alone, the other events from the table (two queries a
  window, merged by seq);
- ``indexes``: a copy with two partial indexes on expressions, a request's header
  (``json_extract`` of the six paths the fold picks) and an answer less its raw response
  (``json_remove``), each after ``run_id, seq, agent``: the fold's requests and answers are
  read from the indexes alone, the other events from the table (three queries a window,
  merged by seq);
- ``column``: a copy whose table has one more column before ``payload`` holding what the
  fold reads of a request or an answer (the same expressions), and ``agent`` before
  ``payload`` too, read with ``coalesce(column, payload)``.

The layouts alternate, ``--rounds`` times, each the best of ``--repeat``; it checks that each
layout returns the same rows as ``stored`` and prints the file's size. Nothing here changes
how the store writes or reads: it measures what a change would buy, before it is made.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # fold_bench, scale_bench

from fold_bench import EXPERIMENTS, bench_config, parse_size, record_run  # noqa: E402

from maai.ledger import EventStore  # noqa: E402
from maai.ledger.fields import (  # noqa: E402
    checked_paths,
    sqlite_payload_column,
    sqlite_size_column,
)
from maai.runtime.fold import FOLD_FIELDS, FOLD_OMITS  # noqa: E402

WINDOW = 500  # seqs a query covers
Row = tuple[object, ...]
Fetch = Callable[[sqlite3.Connection, str, int], list[Row]]

REQUESTED, COMPLETED = "model.requested", "model.completed"


def _literal(sql: str, params: list[str]) -> str:
    """``sql`` with its ``?`` replaced by the quoted parameters (paths and type names, no
    quotes in them): an index's expression cannot hold parameters."""
    for value in params:
        assert "'" not in value
        sql = sql.replace("?", f"'{value}'", 1)
    return sql


def _picked(type_: str) -> str:
    """The expression the fold's query gives for an event of ``type_`` (one of the two)."""
    if type_ == REQUESTED:
        column, params = sqlite_payload_column(checked_paths({REQUESTED: FOLD_FIELDS[REQUESTED]}))
    else:
        omit = checked_paths({COMPLETED: FOLD_OMITS[COMPLETED]})
        column, params = sqlite_payload_column({}, omit)
    # CASE type WHEN '<type>' THEN <expr> ELSE payload END -> <expr>
    expression = _literal(column, params)
    return expression.split(" THEN ", 1)[1].rsplit(" ELSE ", 1)[0]


def fold_query() -> tuple[str, list[str]]:
    column, params = sqlite_payload_column(checked_paths(FOLD_FIELDS), checked_paths(FOLD_OMITS))
    size_column, size_params = sqlite_size_column(checked_paths(FOLD_OMITS))
    query = (
        f"SELECT seq, type, schema_version, {column}, agent, {size_column} FROM events"
        " WHERE run_id = ? AND seq > ? AND seq <= ? ORDER BY seq"
    )
    return query, params + size_params


def stored_fetch() -> Fetch:
    query, params = fold_query()

    def fetch(connection: sqlite3.Connection, run_id: str, after: int) -> list[Row]:
        rows = connection.execute(query, (*params, run_id, after, after + WINDOW)).fetchall()
        return [r[:5] for r in rows]

    return fetch


def index_adder(*types: str) -> Callable[[Path], None]:
    def add_indexes(path: Path) -> None:
        with sqlite3.connect(path) as connection:
            for type_ in types:
                name = type_.replace(".", "_")
                connection.execute(
                    f"CREATE INDEX ix_fold_{name} ON events (run_id, seq, agent, {_picked(type_)})"
                    f" WHERE type = '{type_}'"
                )
        with sqlite3.connect(path, isolation_level=None) as connection:
            connection.execute("VACUUM")

    return add_indexes


def indexes_fetch(*types: str) -> Callable[[], Fetch]:
    """Events of ``types`` read from their indexes, the others from the table."""

    def make() -> Fetch:
        picked = {t: _picked(t) for t in types}
        window = "run_id = ? AND seq > ? AND seq <= ?"
        queries = [
            f"SELECT seq, type, schema_version, {picked[t]}, agent FROM events"
            f" WHERE {window} AND type = '{t}' ORDER BY seq"
            for t in types
        ]
        others = ", ".join(f"'{t}'" for t in types)
        rest, params = sqlite_payload_column(
            {}, checked_paths({t: p for t, p in FOLD_OMITS.items() if t not in types})
        )
        queries.append(
            f"SELECT seq, type, schema_version, {_literal(rest, params)}, agent FROM events"
            f" WHERE {window} AND type NOT IN ({others}) ORDER BY seq"
        )

        def fetch(connection: sqlite3.Connection, run_id: str, after: int) -> list[Row]:
            rows: list[Row] = []
            for query in queries:
                rows += connection.execute(query, (run_id, after, after + WINDOW)).fetchall()
            rows.sort(key=lambda r: r[0])  # type: ignore[arg-type,return-value]
            return rows

        return fetch

    return make


def add_column(path: Path) -> None:
    """The events table rebuilt with ``agent`` and ``folded`` (what the fold reads of a
    request or an answer) before ``payload``."""
    with sqlite3.connect(path) as connection:
        connection.executescript(
            """
            CREATE TABLE events_folded (
                position INTEGER PRIMARY KEY, run_id TEXT NOT NULL, seq INTEGER NOT NULL,
                type TEXT NOT NULL, schema_version INTEGER NOT NULL, agent TEXT,
                folded TEXT, payload TEXT NOT NULL, recorded_at TEXT NOT NULL,
                prev_hash TEXT NOT NULL, hash TEXT NOT NULL, UNIQUE (run_id, seq));
            """
        )
        connection.execute(
            "INSERT INTO events_folded SELECT position, run_id, seq, type, schema_version,"
            f" agent, CASE type WHEN '{REQUESTED}' THEN {_picked(REQUESTED)}"
            f" WHEN '{COMPLETED}' THEN {_picked(COMPLETED)} END, payload, recorded_at,"
            " prev_hash, hash FROM events ORDER BY position"
        )
        connection.execute("DROP TABLE events")
    with sqlite3.connect(path, isolation_level=None) as connection:
        connection.execute("VACUUM")


def column_fetch() -> Fetch:
    query = (
        "SELECT seq, type, schema_version, coalesce(folded, payload), agent FROM events_folded"
        " WHERE run_id = ? AND seq > ? AND seq <= ? ORDER BY seq"
    )

    def fetch(connection: sqlite3.Connection, run_id: str, after: int) -> list[Row]:
        return connection.execute(query, (run_id, after, after + WINDOW)).fetchall()

    return fetch


def repaged(page_size: int) -> Callable[[Path], None]:
    def rewrite(path: Path) -> None:
        with sqlite3.connect(path, isolation_level=None) as connection:
            connection.execute("PRAGMA journal_mode = DELETE")
            connection.execute(f"PRAGMA page_size = {page_size}")
            connection.execute("VACUUM")

    return rewrite


def settle(path: Path) -> None:
    """The WAL folded into the file, so that every copy is read from its file alone."""
    with sqlite3.connect(path, isolation_level=None) as connection:
        connection.execute("PRAGMA journal_mode = DELETE")


LAYOUTS: dict[str, tuple[Callable[[Path], None] | None, Callable[[], Fetch]]] = {
    "stored": (None, stored_fetch),
    "vacuumed": (repaged(4096), stored_fetch),
    "pages 16k": (repaged(16384), stored_fetch),
    "pages 64k": (repaged(65536), stored_fetch),
    "request ix": (index_adder(REQUESTED), indexes_fetch(REQUESTED)),
    "indexes": (index_adder(REQUESTED, COMPLETED), indexes_fetch(REQUESTED, COMPLETED)),
    "column": (add_column, column_fetch),
}


def read_all(connection: sqlite3.Connection, run_id: str, head: int, fetch: Fetch) -> int:
    count = 0
    for after in range(0, head, WINDOW):
        count += len(fetch(connection, run_id, after))
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--experiment", default="frohlich", choices=EXPERIMENTS)
    parser.add_argument("--size", default="10k", help="a preset (1k, 10k, 30k) or AGENTSxROUNDS")
    parser.add_argument("--rounds", type=int, default=3, help="times the layouts alternate")
    parser.add_argument("--repeat", type=int, default=3, help="reads per layout and round")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)
    size, agents, rounds = parse_size(args.experiment, args.size)
    with tempfile.TemporaryDirectory(prefix="maai-fold-sql-") as tmp:
        source = Path(tmp) / "recorded.db"
        with EventStore.open(str(source), synchronous="OFF") as store:
            run_id = record_run(store, bench_config(args.experiment, agents, rounds, args.seed))
            head = store.head(run_id)
        settle(source)
        paths: dict[str, Path] = {}
        for name, (make, _) in LAYOUTS.items():
            path = Path(tmp) / f"{name.replace(' ', '-')}.db"
            shutil.copyfile(source, path)
            if make is not None:
                make(path)
            paths[name] = path
        connections = {n: sqlite3.connect(f"file:{p}?mode=ro", uri=True) for n, p in paths.items()}
        fetches = {name: make_fetch() for name, (_, make_fetch) in LAYOUTS.items()}

        def rows(name: str) -> list[Row]:
            fetch, connection = fetches[name], connections[name]
            return [r for a in range(0, head, WINDOW) for r in fetch(connection, run_id, a)]

        want = rows("stored")
        for name in fetches:
            if rows(name) != want:
                raise AssertionError(f"layout {name!r} reads other rows than the ledger as stored")
        best = dict.fromkeys(LAYOUTS, float("inf"))
        for _ in range(args.rounds):
            for name, fetch in fetches.items():
                for _ in range(args.repeat):
                    started = time.process_time()
                    read_all(connections[name], run_id, head, fetch)
                    best[name] = min(best[name], time.process_time() - started)
        print(
            f"{args.experiment} {size}: {head} events;"
            f" SQL CPU time, best of {args.rounds} x {args.repeat}"
        )
        print(f"{'layout':>10} | {'file MB':>7} | {'seconds':>8} | {'events/s':>9} | vs stored")
        for name in LAYOUTS:
            megabytes = os.path.getsize(paths[name]) / 1e6
            print(
                f"{name:>10} | {megabytes:7.1f} | {best[name]:8.4f} | {head / best[name]:9,.0f} |"
                f" {best['stored'] / best[name]:5.2f}x"
            )
        for connection in connections.values():
            connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
