"""Errors of the event store.

Every failure that can reach a caller of :class:`ledger.EventStore` is one of these, with a
one-line message that names the thing at fault (the run, the seq, the database). Driver
exceptions (``sqlalchemy.exc.*``, ``psycopg.*``, ``sqlite3.*``) are translated at the store's
boundary so that no raw driver traceback reaches a user; the original is kept as
``__cause__`` for debugging.
"""

from __future__ import annotations


class LedgerError(Exception):
    """Base class of every error raised by the ledger."""


class BadStoreUrlError(LedgerError, ValueError):
    """The store location given (``--db``, ``MAAI_DB`` or ``url=``) cannot be understood."""


class StoreUnreachableError(LedgerError):
    """The database cannot be reached or opened: a missing or unwritable folder, a server that
    does not answer, a refused login."""


class NotADatabaseError(LedgerError):
    """The path names something that is not a maai SQLite ledger; it is left untouched."""


class StoreBusyError(LedgerError):
    """Another writer held the database lock for longer than the busy timeout."""


class StoreFullError(LedgerError):
    """The database or its disk is full (SQLite ``SQLITE_FULL``, "database or disk is full";
    PostgreSQL ``disk_full``, SQLSTATE 53100). The write that met it stored nothing; free
    some space and go on (a run: ``maai resume``)."""


class ReadOnlyStoreError(LedgerError):
    """A write was asked of a store opened read-only (a ledger on read-only media, or one
    opened with ``read_only=True``)."""


class SchemaBehindError(LedgerError):
    """The database schema is older than this code; ``maai db upgrade`` brings it up to date."""

    def __init__(self, message: str, *, current: str | None, head: str) -> None:
        super().__init__(message)
        self.current = current
        self.head = head


class SchemaTooNewError(LedgerError):
    """The database records a schema revision this code does not know (written by a newer
    maai, or not by maai at all)."""

    def __init__(self, message: str, *, current: str) -> None:
        super().__init__(message)
        self.current = current


class RunNotFoundError(LedgerError, LookupError):
    """No run has this id (or, for :meth:`EventStore.get_run`, no run id starts with it)."""

    def __init__(self, run_id: str, message: str | None = None) -> None:
        super().__init__(message or f"no run with id {run_id!r}")
        self.run_id = run_id


class AmbiguousRunIdError(RunNotFoundError):
    """A run id prefix matches more than one run."""

    def __init__(self, prefix: str, matches: list[str]) -> None:
        shown = ", ".join(matches[:5]) + (", ..." if len(matches) > 5 else "")
        super().__init__(prefix, f"run id prefix {prefix!r} matches {len(matches)} runs: {shown}")
        self.matches = matches


class RunExistsError(LedgerError):
    """A run with this id already exists."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"a run with id {run_id!r} already exists")
        self.run_id = run_id


class ConcurrencyError(LedgerError):
    """An append expected the run's head at one seq but found it elsewhere: another writer got
    there first. Nothing of the batch was stored."""

    def __init__(self, run_id: str, expected: int, actual: int | None) -> None:
        shown = "unknown" if actual is None else str(actual)
        super().__init__(
            f"run {run_id!r}: append expected head seq {expected}, but the head is at {shown}"
            " (another writer appended first; nothing was stored)"
        )
        self.run_id = run_id
        self.expected = expected
        self.actual = actual


class ChainBrokenError(LedgerError):
    """The stored hash chain of a run does not verify: an event was changed, removed or
    reordered after it was written."""

    def __init__(self, run_id: str, seq: int, reason: str) -> None:
        super().__init__(f"run {run_id!r}: hash chain broken at seq {seq}: {reason}")
        self.run_id = run_id
        self.seq = seq
        self.reason = reason


class InvalidEventError(LedgerError, ValueError):
    """An event (or a run config) cannot be stored as given: a payload that is not JSON, a
    NaN, a NUL character, a bad run id."""
