"""Fixtures of the ledger tests: one store URL per backend, and plain SQL beside the store."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from maai.ledger import EventStore, resolve_store_url
from tests.conftest import libpq_dsn
from tests.ledger.helpers import RunSql, unwritable


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """A location with no ledger yet: a SQLite file path that does not exist, or a PostgreSQL
    URL using an empty schema of its own."""
    if request.param == "sqlite":
        return str(tmp_path / "ledger.db")
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def store(store_url: str) -> Iterator[EventStore]:
    """An upgraded, empty store."""
    with EventStore.open(store_url, upgrade=True) as opened:
        yield opened


@pytest.fixture
def run_sql(store_url: str) -> RunSql:
    """Run one SQL statement on the store's database behind the store's back (committed);
    returns the rows, if any. For tampering and inspection: an UPDATE or DELETE of events
    is run as an adversary with the rights to switch the append-only triggers off would
    (``test_store_contract`` checks that a plain one is refused)."""
    location = resolve_store_url(store_url)

    def run(statement: str) -> list[tuple[Any, ...]]:
        tamper = statement.lstrip().upper().startswith(("UPDATE EVENTS", "DELETE FROM EVENTS"))
        if location.path is not None:
            lite = sqlite3.connect(location.path, isolation_level=None)
            try:
                if not tamper:
                    return lite.execute(statement).fetchall()
                triggers = lite.execute(
                    "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' "
                    "AND tbl_name = 'events'"
                ).fetchall()
                for name, _ in triggers:
                    lite.execute(f"DROP TRIGGER {name}")
                try:
                    return lite.execute(statement).fetchall()
                finally:
                    for _, sql in triggers:
                        lite.execute(sql)
            finally:
                lite.close()
        dsn = libpq_dsn(location.url.render_as_string(hide_password=False))
        with psycopg.connect(dsn, autocommit=True) as conn:
            if not tamper:
                cursor = conn.execute(statement)
                return cursor.fetchall() if cursor.description else []
            with conn.transaction():
                conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
                cursor = conn.execute(statement)
                rows = cursor.fetchall() if cursor.description else []
                conn.execute("ALTER TABLE events ENABLE TRIGGER USER")
            return rows

    return run


@pytest.fixture
def unwritable_folder(tmp_path: Path) -> Iterator[Path]:
    """An existing, empty folder in which this process cannot create files."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    with unwritable(folder):
        yield folder
