"""Telling a full store from other write errors: SQLite's SQLITE_FULL, PostgreSQL's
disk_full, and a file that reached the process's file-size limit (``ulimit -f``).

Python ignores SIGXFSZ, so a write past the file-size limit fails with EFBIG, which SQLite
reports as a plain "disk I/O error" (SQLITE_IOERR_WRITE). While a limit is in force, that
error on a write is taken for the limit: the store is full for this process, as it would be
for a full disk (exit 4), not busy or broken."""

from __future__ import annotations

import resource
import sqlite3

import psycopg

# SQLite's extended result codes for a failed write, a failed growth or a failed fsync.
_SQLITE_WRITE_ERRORS = frozenset({778, 1546, 1034})  # IOERR_WRITE, IOERR_TRUNCATE, IOERR_FSYNC


def file_size_limit() -> int | None:
    """The process's file-size limit in bytes (``ulimit -f``), ``None`` when unlimited."""
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else soft


def is_disk_full(orig: BaseException) -> bool:
    """SQLite's SQLITE_FULL ("database or disk is full"), PostgreSQL's disk_full (53100), or a
    SQLite write error while a file-size limit is in force."""
    if isinstance(orig, psycopg.errors.DiskFull):
        return True
    if isinstance(orig, sqlite3.Error):
        code = getattr(orig, "sqlite_errorcode", None)
        if code == sqlite3.SQLITE_FULL or "database or disk is full" in str(orig).lower():
            return True
        return code in _SQLITE_WRITE_ERRORS and file_size_limit() is not None
    return False


def full_detail(orig: BaseException, detail: str) -> str:
    """What a full store's message says of the cause: the driver's words, and the file-size
    limit where that is what was reached."""
    limit = file_size_limit()
    if isinstance(orig, sqlite3.Error) and limit is not None:
        code = getattr(orig, "sqlite_errorcode", None)
        if code in _SQLITE_WRITE_ERRORS:
            return f"{detail}: the file-size limit (ulimit -f) of {limit:,} bytes was reached"
    return detail
