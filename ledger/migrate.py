"""Schema versions: where a database stands against the code, and upgrading it.

The schema is changed only through the Alembic revisions in ``ledger/migrations/versions``;
the revision a database is at is the one recorded in its ``alembic_version`` table.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Connection, inspect, text

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

# Any fixed number: concurrent upgraders of one PostgreSQL database queue on this lock.
_PG_UPGRADE_LOCK_KEY = 0x6D_61_61_69  # "maai"

SchemaState = Literal["empty", "behind", "current", "too_new", "foreign"]


@dataclass(frozen=True)
class SchemaStatus:
    """Where a database's schema stands against this code."""

    state: SchemaState
    current: str | None
    """The revision recorded in the database (``None`` when there is none)."""
    head: str
    """The newest revision this code knows."""
    tables: tuple[str, ...] = ()
    """For ``foreign``: the tables found in a SQLite file that has no revision recorded."""


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@lru_cache(maxsize=1)
def _script() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def head_revision() -> str:
    head = _script().get_current_head()
    assert head is not None, "the ledger has no migrations"
    return head


def _known(revision: str) -> bool:
    try:
        return _script().get_revision(revision) is not None
    except CommandError:
        return False


def schema_status(connection: Connection) -> SchemaStatus:
    """Read the schema state through ``connection`` (changes nothing)."""
    head = head_revision()
    heads = MigrationContext.configure(connection).get_current_heads()
    if not heads:
        if connection.dialect.name == "sqlite":
            tables = tuple(
                name
                for name in inspect(connection).get_table_names()
                if name not in ("sqlite_sequence", "alembic_version")
            )
            if tables:
                return SchemaStatus("foreign", None, head, tables)
        return SchemaStatus("empty", None, head)
    unknown = [rev for rev in heads if not _known(rev)]
    if unknown:
        return SchemaStatus("too_new", ", ".join(unknown), head)
    current = ", ".join(heads)
    if heads == (head,):
        return SchemaStatus("current", current, head)
    return SchemaStatus("behind", current, head)


def upgrade_to_head(connection: Connection) -> None:
    """Apply every missing revision through ``connection``, inside its open transaction.

    The caller holds the transaction that serializes upgraders (``BEGIN IMMEDIATE`` on
    SQLite); on PostgreSQL this also takes an advisory lock, so two processes upgrading one
    database at once apply each revision once.
    """
    if connection.dialect.name == "postgresql":
        connection.execute(
            text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_UPGRADE_LOCK_KEY}
        )
    command.upgrade(alembic_config(connection), "head")
