"""checkpoints: signed heads of runs, append-only

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23

A checkpoint is a run's head (seq, hash) signed with a key kept outside the ledger
(``maai.runtime.signing``): whoever rewrites the events and re-hashes the chain cannot sign
the new head with that key.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None

MESSAGE = "maai ledger: checkpoints are append-only"


def _utc_datetime() -> sa.types.TypeEngine[Any]:
    return sa.DateTime(timezone=True).with_variant(sa.String(32), "sqlite")


def upgrade() -> None:
    op.create_table(
        "checkpoints",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("run_id", sa.String(128), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("public_key", sa.String(64), nullable=False),
        sa.Column("signature", sa.String(128), nullable=False),
        sa.Column("signed_at", _utc_datetime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_checkpoints"),
        sa.ForeignKeyConstraint(["run_id"], ["runs.run_id"], name="fk_checkpoints_run_id_runs"),
        sa.CheckConstraint("seq >= 1", name="ck_checkpoints_seq_positive"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_checkpoints_run_id_seq", "checkpoints", ["run_id", "seq"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE TRIGGER checkpoints_append_only BEFORE UPDATE OR DELETE ON checkpoints "
            "FOR EACH ROW EXECUTE FUNCTION maai_events_append_only()"
        )
        return
    for verb in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER checkpoints_no_{verb.lower()} BEFORE {verb} ON checkpoints "
            f"BEGIN SELECT RAISE(ABORT, '{MESSAGE} ({verb} refused)'); END"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS checkpoints_append_only ON checkpoints")
    op.drop_index("ix_checkpoints_run_id_seq", table_name="checkpoints")
    op.drop_table("checkpoints")
