"""Checks on a SQLite ledger's file before SQLite touches it, and clean-up of a half-made one:
a bad path gets one clear error, and nothing is left half-created."""

from __future__ import annotations

import os
import shlex
import sqlite3
from contextlib import suppress
from pathlib import Path
from typing import Final

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
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
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
        if not os.access(path, os.R_OK | os.W_OK):
            raise StoreUnreachableError(f"cannot open {path}: no permission to read and write it")
        try:
            with open(path, "rb") as handle:
                header = handle.read(len(SQLITE_MAGIC))
        except OSError as exc:
            raise StoreUnreachableError(f"cannot read {path}: {exc.strerror}") from None
        # A zero-length file is what SQLite itself treats as an empty database.
        if header and header != SQLITE_MAGIC:
            raise NotADatabaseError(f"{path} is not a SQLite database; it was left untouched")
        if not os.access(path.parent, os.W_OK | os.X_OK):
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
