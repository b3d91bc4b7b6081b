"""maai's event store: runs and their append-only, hash-chained events on SQLite or
PostgreSQL. Knows nothing about any experiment. See docs/ledger.md."""

from maai.canonical import canonical_json
from maai.ledger.envelope import (
    GENESIS_HASH,
    Appended,
    ChainReport,
    Checkpoint,
    NewEvent,
    RunInfo,
    StoredEvent,
    envelope_hash,
    format_recorded_at,
)
from maai.ledger.errors import (
    AmbiguousRunIdError,
    BadStoreUrlError,
    ChainBrokenError,
    ConcurrencyError,
    InvalidEventError,
    LedgerError,
    NotADatabaseError,
    ReadOnlyStoreError,
    RunExistsError,
    RunNotFoundError,
    SchemaBehindError,
    SchemaTooNewError,
    StoreBusyError,
    StoreFullError,
    StoreUnreachableError,
)
from maai.ledger.migrate import head_revision
from maai.ledger.store import EventStore
from maai.ledger.urls import StoreLocation, default_db_path, resolve_store_url

__all__ = [
    "GENESIS_HASH",
    "AmbiguousRunIdError",
    "Appended",
    "BadStoreUrlError",
    "ChainBrokenError",
    "ChainReport",
    "Checkpoint",
    "ConcurrencyError",
    "EventStore",
    "InvalidEventError",
    "LedgerError",
    "NewEvent",
    "NotADatabaseError",
    "ReadOnlyStoreError",
    "RunExistsError",
    "RunInfo",
    "RunNotFoundError",
    "SchemaBehindError",
    "SchemaTooNewError",
    "StoreBusyError",
    "StoreFullError",
    "StoreLocation",
    "StoreUnreachableError",
    "StoredEvent",
    "canonical_json",
    "default_db_path",
    "envelope_hash",
    "format_recorded_at",
    "head_revision",
    "resolve_store_url",
]
