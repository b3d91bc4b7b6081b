"""The one sqlite3 connection a SQLite store appends through.

Checking a connection out of SQLAlchemy's pool and back in (with its reset, a ROLLBACK) for
every append cost about as much per batch as hashing it. The store keeps one pooled
connection checked out for its appends instead, and serializes its threads on a lock: SQLite
lets one writer at a time into a database anyway (``BEGIN IMMEDIATE``), so nothing is lost.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Final

from sqlalchemy import Engine
from sqlalchemy.pool import PoolProxiedConnection

from maai.ledger.batch import Batch, found_prev_hash
from maai.ledger.envelope import GENESIS_HASH
from maai.ledger.errors import ConcurrencyError, RunNotFoundError, StoreBusyError

_INSERT: Final = (
    "INSERT INTO events (run_id, seq, type, schema_version, payload, agent, recorded_at,"
    " prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class SqliteWriter:
    """The write side of one SQLite store: one pooled connection, taken on the first append
    and kept until :meth:`close`, used by one thread at a time."""

    def __init__(self, engine: Engine, busy_timeout_s: float, display: str) -> None:
        self._engine = engine
        self._busy_timeout_s = busy_timeout_s
        self._display = display
        self._lock = threading.Lock()
        self._pooled: PoolProxiedConnection | None = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT`` on the writer's connection; rolled back if the
        body raises. Another thread of this process waits its turn up to the busy timeout,
        as another process would."""
        if not self._lock.acquire(timeout=self._busy_timeout_s):
            raise StoreBusyError(
                f"the store {self._display} stayed busy with another append of this process "
                f"for {self._busy_timeout_s:g}s"
            )
        try:
            if self._pooled is None:
                self._pooled = self._engine.raw_connection()
            raw = self._pooled.driver_connection
            assert isinstance(raw, sqlite3.Connection)
            raw.execute("BEGIN IMMEDIATE")
            try:
                yield raw
                raw.execute("COMMIT")
            except BaseException:
                if raw.in_transaction:
                    with suppress(sqlite3.Error):
                        raw.execute("ROLLBACK")
                if raw.in_transaction:  # the connection is in a state we cannot trust
                    self._release()
                raise
        finally:
            self._lock.release()

    def _release(self) -> None:
        pooled, self._pooled = self._pooled, None
        if pooled is not None:
            with suppress(Exception):  # a broken connection is dropped by the pool
                pooled.close()

    def close(self) -> None:
        """Give the connection back to the pool (the store disposes of the pool next)."""
        with self._lock:
            self._release()


def append_rows(raw: sqlite3.Connection, batch: Batch) -> Sequence[int]:
    """Claim the run's head, chain and insert the batch's rows (inside the caller's
    transaction); returns the positions in seq order."""
    run_id, expected = batch.run_id, batch.expected_seq
    if not batch.events:
        actual = head(raw, run_id)
        if actual != expected:
            raise ConcurrencyError(run_id, expected, actual)
        return []
    claimed = raw.execute(
        "UPDATE runs SET head_seq = ?, updated_at = ? WHERE run_id = ? AND head_seq = ?",
        (batch.new_head, batch.recorded_text, run_id, expected),
    ).rowcount
    if claimed != 1:
        raise ConcurrencyError(run_id, expected, head(raw, run_id))
    prev_hash = GENESIS_HASH
    if expected > 0:
        found = raw.execute(
            "SELECT hash FROM events WHERE run_id = ? AND seq = ?", (run_id, expected)
        ).fetchone()
        prev_hash = found_prev_hash(run_id, expected, found)
    rows = batch.build_rows(prev_hash)
    raw.executemany(_INSERT, rows)
    (last,) = raw.execute("SELECT last_insert_rowid()").fetchone()
    first = last - len(rows) + 1
    # One writer at a time and AUTOINCREMENT make a batch's positions consecutive; a
    # cheap check of the first keeps that assumption from ever being silently wrong.
    _, first_seq, *_ = rows[0]
    (stored_first,) = raw.execute(
        "SELECT position FROM events WHERE run_id = ? AND seq = ?", (run_id, first_seq)
    ).fetchone()
    if stored_first == first:
        return range(first, last + 1)
    return [
        int(p)
        for (p,) in raw.execute(
            "SELECT position FROM events WHERE run_id = ? AND seq > ? ORDER BY seq",
            (run_id, expected),
        )
    ]


def head(raw: sqlite3.Connection, run_id: str) -> int:
    """The run's head seq; :class:`RunNotFoundError` if there is no such run."""
    found = raw.execute("SELECT head_seq FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    if found is None:
        raise RunNotFoundError(run_id)
    (head_seq,) = found
    return int(head_seq)
