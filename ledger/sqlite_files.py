"""Checks on a SQLite ledger's file before SQLite touches it, and clean-up of a half-made one:
a bad path gets one clear error, and nothing is left half-created."""

from __future__ import annotations

import os
import shlex
import sqlite3
from contextlib import suppress
from pathlib import Path
from typing import Final
from urllib.parse import quote

from maai.ledger.errors import NotADatabaseError, SchemaBehindError, StoreUnreachableError
from maai.ledger.migrate import head_revision
from maai.ledger.urls import StoreLocation

SQLITE_MAGIC: Final = b"SQLite format 3\x00"


def remove_if_empty(path: Path) -> None:
    """Nothing half-created: remove a database file this process created but could not
    finish, unless it has tables by now (another process may have been creating it too)."""
    try:
        conn = sqlite3.connect(path, timeout=0.1)
        try:
            (tables,) = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return
    if tables == 0:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with suppress(OSError):
                os.unlink(f"{path}{suffix}")


def check_sqlite_path(path: Path, *, location: StoreLocation, upgrade: bool) -> bool:
    """Refuse a path SQLite should not open, before SQLite touches it. Returns whether the
    file does not exist yet (and will be created)."""
    if path.is_dir():
        raise NotADatabaseError(f"{path} is a folder, not a SQLite database file")
    if path.exists():
        if not (os.access(path, os.R_OK) and can_write(path)):
            raise StoreUnreachableError(f"cannot open {path}: no permission to read and write it")
        try:
            with open(path, "rb") as handle:
                header = handle.read(len(SQLITE_MAGIC))
        except OSError as exc:
            raise StoreUnreachableError(f"cannot read {path}: {exc.strerror}") from None
        # A zero-length file is what SQLite itself treats as an empty database.
        if header and header != SQLITE_MAGIC:
            raise NotADatabaseError(f"{path} is not a SQLite database; it was left untouched")
        if not can_write(path.parent):
            raise StoreUnreachableError(
                f"cannot use {path}: its folder is not writable (SQLite keeps its write-ahead"
                " log next to the database)"
            )
        return False
    folder = path.parent
    if location.is_default:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnreachableError(
                f"cannot create the ledger folder {folder}: {exc.strerror}"
            ) from None
    if not folder.exists():
        raise StoreUnreachableError(f"cannot create {path}: folder {folder} does not exist")
    if not folder.is_dir():
        raise StoreUnreachableError(f"cannot create {path}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreUnreachableError(f"cannot create {path}: folder {folder} is not writable")
    if not upgrade:
        raise SchemaBehindError(
            f"there is no ledger at {path} (upgrade=False creates none)."
            f" Run: maai db upgrade --db {shlex.quote(str(path))}",
            current=None,
            head=head_revision(),
        )
    return True


def can_write(path: Path) -> bool:
    """Whether this process may write the file, or create files in the folder, ``path``
    (False on read-only media too: ``access`` reports EROFS even to root)."""
    return os.access(path, os.W_OK | os.X_OK if path.is_dir() else os.W_OK)


def writable(path: Path) -> bool:
    """Whether SQLite could write the existing ledger at ``path``: the file, and its folder
    (where the write-ahead log lives). False on read-only media and for a published ledger
    without write permission."""
    return can_write(path) and can_write(path.parent)


def check_sqlite_readable(path: Path) -> None:
    """Refuse, before SQLite touches it, a path a read-only open cannot read: nothing is
    created or changed by a read-only open."""
    if path.is_dir():
        raise NotADatabaseError(f"{path} is a folder, not a SQLite database file")
    if not path.exists():
        raise StoreUnreachableError(
            f"there is no ledger at {path} (it is opened read-only, which creates none)"
        )
    if not os.access(path, os.R_OK):
        raise StoreUnreachableError(f"cannot open {path}: no permission to read it")
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise StoreUnreachableError(f"cannot read {path}: {exc.strerror}") from None
    if header != SQLITE_MAGIC:
        if not header:
            raise SchemaBehindError(
                f"{path} is an empty file, not a ledger (it is opened read-only)",
                current=None,
                head=head_revision(),
            )
        raise NotADatabaseError(f"{path} is not a SQLite database; it was left untouched")


def read_only_uri(path: Path) -> str:
    """The SQLite URI that reads ``path`` without writing anything.

    ``mode=ro`` where SQLite can still keep its shared-memory index next to the file (the
    folder is writable, or the index exists): it takes the usual locks, so a writer may be
    at work meanwhile. On read-only media nothing can write the file, and SQLite could not
    open its write-ahead log there: ``immutable=1`` reads the file as it is, with no lock and
    no side file. A non-empty write-ahead log left beside such a file holds commits that
    ``immutable`` would skip: that is refused, never read past."""
    target = quote(str(path))
    folder_writable = can_write(path.parent)
    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    if folder_writable or shm.exists():
        return f"file:{target}?mode=ro"
    if wal.exists() and wal.stat().st_size > 0:
        raise StoreUnreachableError(
            f"cannot read {path} read-only: its write-ahead log {wal} holds commits that"
            " cannot be applied in a read-only folder; copy the ledger with its -wal file"
            " to a writable folder"
        )
    return f"file:{target}?immutable=1"
