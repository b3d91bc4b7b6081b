"""Alembic revisions of the ledger schema, oldest first (Alembic skips this file)."""
