"""Alembic environment of the ledger, shipped inside the package and applied programmatically
by :mod:`ledger.migrate` (``maai db upgrade``); there is no ``alembic.ini``."""
