"""The store's tables, in SQLAlchemy Core.

This module describes the schema the code expects *now*; the database is changed only by the
Alembic revisions in ``ledger/migrations/versions`` (a test checks that the two agree on
both backends). Change both together.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Column,
    Connection,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    select,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.types import TypeDecorator, TypeEngine

from maai.ledger.errors import RunNotFoundError

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime with microseconds that reads back exactly as written.

    PostgreSQL: ``timestamp with time zone`` (microsecond resolution). SQLite: the ISO 8601
    text ``2025-01-31T12:00:00.123456+00:00``, fixed width, so text order is time order. The
    ``recorded_at`` of an event is hashed as exactly this text, so it must round-trip.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "sqlite":
            return dialect.type_descriptor(String(32))
        return dialect.type_descriptor(DateTime(timezone=True))

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given where a UTC time is stored")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.isoformat(timespec="microseconds")
        return value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):
            return datetime.fromisoformat(value)
        assert isinstance(value, datetime)
        return value.astimezone(UTC)


def _json() -> TypeEngine[Any]:
    return JSON().with_variant(JSONB(), "postgresql")


def _position() -> TypeEngine[int]:
    # SQLite makes only "INTEGER PRIMARY KEY" an alias of the rowid; BIGINT would not be.
    return BigInteger().with_variant(Integer(), "sqlite")


runs = Table(
    "runs",
    metadata,
    Column("run_id", String(128), primary_key=True),
    Column("kind", String(100), nullable=False),
    Column("config", _json(), nullable=False),
    Column("status", String(64), nullable=False),
    Column("head_seq", BigInteger(), nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("updated_at", UtcDateTime(), nullable=False),
    CheckConstraint("head_seq >= 0", name="head_seq_nonnegative"),
)

events = Table(
    "events",
    metadata,
    Column("position", _position(), primary_key=True, autoincrement=True),
    Column("run_id", String(128), ForeignKey("runs.run_id"), nullable=False),
    Column("seq", BigInteger(), nullable=False),
    Column("type", String(200), nullable=False),
    Column("schema_version", Integer(), nullable=False),
    Column("payload", _json(), nullable=False),
    Column("agent", String(200), nullable=True),
    Column("recorded_at", UtcDateTime(), nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
    UniqueConstraint("run_id", "seq"),
    CheckConstraint("seq >= 1", name="seq_positive"),
    # Projections ask "what did agent X see/say in run R, in order": (run_id, agent, seq)
    # answers that from the index alone; a bare index on agent would not narrow by run.
    Index(None, "run_id", "agent", "seq"),
    # AUTOINCREMENT: a position is never reused, even if the newest rows were ever deleted.
    sqlite_autoincrement=True,
)


checkpoints = Table(
    "checkpoints",
    metadata,
    Column("id", _position(), primary_key=True, autoincrement=True),
    Column("run_id", String(128), ForeignKey("runs.run_id"), nullable=False),
    Column("seq", BigInteger(), nullable=False),
    Column("hash", String(64), nullable=False),
    Column("public_key", String(64), nullable=False),
    Column("signature", String(128), nullable=False),
    Column("signed_at", UtcDateTime(), nullable=False),
    CheckConstraint("seq >= 1", name="seq_positive"),
    Index(None, "run_id", "seq"),
    sqlite_autoincrement=True,
)


def read_head(conn: Connection, run_id: str) -> int:
    """The run's head seq, through a SQLAlchemy connection on either backend;
    :class:`~ledger.errors.RunNotFoundError` if there is no such run."""
    found = conn.execute(select(runs.c.head_seq).where(runs.c.run_id == run_id)).scalar()
    if found is None:
        raise RunNotFoundError(run_id)
    return int(found)
