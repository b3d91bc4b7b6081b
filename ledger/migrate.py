"""Schema versions: where a database stands against the code, and upgrading it.

The schema is changed only through the Alembic revisions in ``ledger/migrations/versions``;
the revision a database is at is the one recorded in its ``alembic_version`` table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from sqlalchemy import Connection, inspect, text

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

REVISIONS: Final[tuple[str, ...]] = ("0001", "0002", "0003", "0004", "0005")
"""Every revision in ``migrations/versions``, oldest first (a test holds the two equal).

Listed here so that opening a store reads the schema state with one query: importing
Alembic to ask its script directory costs half a second, on every command. Alembic itself is
imported only to upgrade."""

# Any fixed number: concurrent upgraders of one PostgreSQL database queue on this lock.
_PG_UPGRADE_LOCK_KEY = 0x6D_61_61_69  # "maai"
_VERSION_TABLE = "alembic_version"

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
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    return REVISIONS[-1]


def _recorded_revisions(connection: Connection) -> tuple[str, ...]:
    """The revisions in the database's version table, as Alembic records them."""
    if not inspect(connection).has_table(_VERSION_TABLE):
        return ()
    rows = connection.execute(text(f"SELECT version_num FROM {_VERSION_TABLE}"))
    return tuple(sorted(str(revision) for (revision,) in rows))


def schema_status(connection: Connection) -> SchemaStatus:
    """Read the schema state through ``connection`` (changes nothing)."""
    head = head_revision()
    heads = _recorded_revisions(connection)
    if not heads:
        if connection.dialect.name == "sqlite":
            tables = tuple(
                name
                for name in inspect(connection).get_table_names()
                if name not in ("sqlite_sequence", _VERSION_TABLE)
            )
            if tables:
                return SchemaStatus("foreign", None, head, tables)
        return SchemaStatus("empty", None, head)
    unknown = [rev for rev in heads if rev not in REVISIONS]
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
    from alembic import command

    command.upgrade(alembic_config(connection), "head")
