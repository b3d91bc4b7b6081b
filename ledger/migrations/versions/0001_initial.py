"""runs and events

Revision ID: 0001
Revises:
Create Date: 2025-01-01

Revisions are frozen history: they spell out their types instead of importing
``ledger.schema``, which describes only the newest schema.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def _utc_datetime() -> sa.types.TypeEngine[Any]:
    return sa.DateTime(timezone=True).with_variant(sa.String(32), "sqlite")


def _json() -> sa.types.TypeEngine[Any]:
    return sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("run_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(100), nullable=False),
        sa.Column("config", _json(), nullable=False),
        sa.Column("status", sa.String(64), nullable=False),
        sa.Column("head_seq", sa.BigInteger(), nullable=False),
        sa.Column("created_at", _utc_datetime(), nullable=False),
        sa.Column("updated_at", _utc_datetime(), nullable=False),
        sa.PrimaryKeyConstraint("run_id", name="pk_runs"),
        sa.CheckConstraint("head_seq >= 0", name="ck_runs_head_seq_nonnegative"),
    )
    op.create_table(
        "events",
        sa.Column(
            "position",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("run_id", sa.String(128), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("type", sa.String(200), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("payload", _json(), nullable=False),
        sa.Column("agent", sa.String(200), nullable=True),
        sa.Column("recorded_at", _utc_datetime(), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("position", name="pk_events"),
        sa.ForeignKeyConstraint(["run_id"], ["runs.run_id"], name="fk_events_run_id_runs"),
        sa.UniqueConstraint("run_id", "seq", name="uq_events_run_id_seq"),
        sa.CheckConstraint("seq >= 1", name="ck_events_seq_positive"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_events_run_id_agent_seq", "events", ["run_id", "agent", "seq"])


def downgrade() -> None:
    op.drop_index("ix_events_run_id_agent_seq", table_name="events")
    op.drop_table("events")
    op.drop_table("runs")
