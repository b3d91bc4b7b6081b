"""The one sqlite3 connection a SQLite store appends through.

Checking a connection out of SQLAlchemy's pool and back in (with its reset, a ROLLBACK) for
every append cost about as much per batch as hashing it. The store keeps one pooled
connection checked out for its appends instead, and serializes its threads on a lock: SQLite
lets one writer at a time into a database anyway (``BEGIN IMMEDIATE``), so nothing is lost.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from sqlalchemy import Engine
from sqlalchemy.pool import PoolProxiedConnection

from ledger.errors import StoreBusyError


class SqliteWriter:
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
