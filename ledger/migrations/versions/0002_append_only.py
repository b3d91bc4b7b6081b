"""events are append-only: triggers refuse UPDATE and DELETE (and TRUNCATE on PostgreSQL)

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23

A second line of defence behind the hash chain: a careless script or a mistaken UPDATE is
refused by the database itself. Whoever may drop triggers may still rewrite history; the
signed checkpoints are what catch that.
"""

from __future__ import annotations

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

MESSAGE = "maai ledger: events are append-only"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"""
            CREATE FUNCTION maai_events_append_only() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION '{MESSAGE} (% refused)', TG_OP
                    USING ERRCODE = 'insufficient_privilege';
            END
            $$
            """
        )
        op.execute(
            "CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events "
            "FOR EACH ROW EXECUTE FUNCTION maai_events_append_only()"
        )
        op.execute(
            "CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events "
            "FOR EACH STATEMENT EXECUTE FUNCTION maai_events_append_only()"
        )
        return
    for verb in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER events_no_{verb.lower()} BEFORE {verb} ON events "
            f"BEGIN SELECT RAISE(ABORT, '{MESSAGE} ({verb} refused)'); END"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS events_no_truncate ON events")
        op.execute("DROP TRIGGER IF EXISTS events_append_only ON events")
        op.execute("DROP FUNCTION IF EXISTS maai_events_append_only()")
        return
    op.execute("DROP TRIGGER IF EXISTS events_no_update")
    op.execute("DROP TRIGGER IF EXISTS events_no_delete")
