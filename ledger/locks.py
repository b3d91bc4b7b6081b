"""A named lock held for as long as a process works on something (a study), released by the
operating system or the database when that process dies, so a killed process never leaves a
stale lock: an exclusive ``flock`` on a file beside a SQLite ledger, a session-level advisory
lock on PostgreSQL."""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from maai.ledger.errors import StoreBusyError
from maai.ledger.urls import StoreLocation


class LockHeldError(StoreBusyError):
    """Another process holds the lock."""


def _key(name: str) -> int:
    digest = hashlib.sha256(f"maai-lock:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@contextmanager
def named_lock(location: StoreLocation, name: str, what: str) -> Iterator[None]:
    """Hold the lock ``name`` in the ledger at ``location``; :class:`LockHeldError` (naming
    ``what``) at once when another process holds it."""
    if location.backend == "sqlite":
        assert location.path is not None
        lock_path = location.path.with_name(f"{location.path.name}.lock-{name}")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise LockHeldError(f"{what} is running in another process") from None
            yield
        finally:
            os.close(fd)  # closing releases the lock
        return
    engine = create_engine(location.url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            got = conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": _key(name)})
            if not got.scalar():
                raise LockHeldError(f"{what} is running in another process")
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _key(name)})
    finally:
        engine.dispose()
