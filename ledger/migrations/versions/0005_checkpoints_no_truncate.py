"""checkpoints cannot be truncated: a BEFORE TRUNCATE trigger on PostgreSQL

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29

Revision 0003 refused UPDATE and DELETE on checkpoints, row by row; PostgreSQL's TRUNCATE
fires no row trigger, so ``TRUNCATE checkpoints`` emptied the table. A statement trigger
refuses it as revision 0002 refuses it on events. SQLite has no TRUNCATE (its ``DELETE``
without WHERE fires the row trigger of 0003): nothing changes there.
"""

from __future__ import annotations

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE TRIGGER checkpoints_no_truncate BEFORE TRUNCATE ON checkpoints "
            "FOR EACH STATEMENT EXECUTE FUNCTION maai_events_append_only()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS checkpoints_no_truncate ON checkpoints")
