"""packed payloads: repeated text stored as differences against earlier events

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25

No table changes. From this revision on, an event's payload may carry the reserved key
``"$packed"`` (``maai.ledger.packing``, docs/ledger.md "How a run is stored"): its long
strings and lists are stored as differences against earlier events of the same run. A
maai that predates it would read such a payload as it is stored, with those values null,
so the revision is what makes that maai refuse the ledger ("written by a newer maai")
instead of misreading it. Ledgers at 0003 have no packed events (writing needs the
upgrade first) and read exactly as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    """Allowed while no event is packed; a ledger that holds packed events would be misread
    at 0003, so it is refused (nothing is changed)."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        packed = "SELECT 1 FROM events WHERE payload ? '$packed' LIMIT 1"
    else:  # canonical JSON text: the key, quoted and followed by its colon, only as a key
        packed = """SELECT 1 FROM events WHERE instr(payload, '"$packed":') > 0 LIMIT 1"""
    if bind.execute(sa.text(packed)).first() is not None:
        raise RuntimeError(
            "this ledger holds events stored as differences (revision 0004); a maai at"
            " revision 0003 would misread them, so it stays at 0004"
        )
