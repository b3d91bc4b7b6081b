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

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    # A ledger that holds packed events cannot be read by a maai at 0003.
    raise NotImplementedError("packed payloads cannot be unpacked into revision 0003 in place")
