"""Alembic environment: run by :mod:`ledger.migrate`, which passes an open connection (already
inside the transaction that serializes concurrent upgraders) in ``config.attributes``."""

from __future__ import annotations

from alembic import context

from maai.ledger.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None or context.is_offline_mode():
    raise RuntimeError(
        "the ledger's migrations run through ledger.migrate (maai db upgrade), which passes a"
        " connection; plain `alembic` commands and offline SQL generation are not set up"
    )

context.configure(
    connection=connection,
    target_metadata=metadata,
    # SQLite cannot ALTER most things in place; batch mode copies the table instead.
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
